package io.github.agentlb.core.shared;

import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.Evaluation;
import io.github.agentlb.core.ring.HashRing;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What an {@code avn} balancer learns from each answer, alone or as a replica of a
 * {@link SharedAllocation}: the agent's load report, then the request's ring position; when a
 * window completes, the evaluation. Alone, the evaluation's moves change the ring at once; a
 * replica of a shared allocation evaluates only while {@link SharedAllocationSync#evaluates()} and
 * proposes its moves to the store ({@link SharedAllocationSync#evaluated}), its ring changing when
 * the write lands. No Camel here: the balancer's strategy calls it per answer, a replay per
 * simulated answer. Thread-safe as {@link AdaptiveVirtualNodes} and {@link SharedAllocationSync} are.
 */
public final class AvnLearning {

    private final Supplier<AdaptiveVirtualNodes> avn;
    private final SharedAllocationSync shared;
    private final Consumer<Evaluation> evaluations;

    /**
     * @param avn         the algorithm (replaced whole by a new configuration, so read per answer)
     * @param shared      the replica's side of a shared allocation, or null to learn alone
     * @param evaluations told of every evaluation made (for logs), on the answer's thread
     */
    public AvnLearning(Supplier<AdaptiveVirtualNodes> avn, SharedAllocationSync shared, Consumer<Evaluation> evaluations) {
        this.avn = avn;
        this.shared = shared;
        this.evaluations = evaluations;
    }

    /** A load report an answer carried: for the algorithm, and for the leader when this replica follows. */
    public void report(String agent, double cpu, double memory) {
        avn.get().report(agent, cpu, memory);
        if (shared != null) {
            shared.reported(agent, cpu, memory);
        }
    }

    /**
     * A request answered: records its ring position ({@code null} without a key) and evaluates when
     * that completes a window.
     *
     * @return true when this replica's ring changed (a new picker is due); false otherwise, also
     *         when a shared allocation's leader proposed moves (its ring changes when they are written)
     */
    public boolean answered(Long position) {
        AdaptiveVirtualNodes current = avn.get();
        // A shared allocation's leader sees 1/N of the requests: it closes a window every 1/N of
        // the evaluation window, so the allocation learns as fast as one instance's would.
        int replicas = shared == null ? 1 : shared.replicasPerWindow();
        boolean windowComplete = position != null ? current.record(position, replicas) : current.recordWithoutKey(replicas);
        if (shared != null) {
            shared.routed(position);
        }
        if (!windowComplete || (shared != null && !shared.evaluates())) {
            return false;
        }
        // Replicas sharing an allocation route by written counts only: the leader proposes its
        // moves to the store and installs them when the write lands.
        boolean propose = shared != null && shared.routesByWritten();
        HashRing before = current.ring();
        Optional<Evaluation> evaluation = current.evaluate(!propose);
        evaluation.ifPresent(evaluations);
        if (propose) {
            evaluation.filter(e -> !e.moves().isEmpty())
                    .ifPresent(e -> shared.evaluated(before.virtualNodes(), e.ring().virtualNodes()));
            return false;
        }
        return current.ring() != before;
    }
}
