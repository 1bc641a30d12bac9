package io.github.agentlb.core.avn;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.ring.HashRing;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Consistent hashing with capacity-weighted, adaptively reallocated virtual nodes: the state of the
 * paper's strategy (Liu Peijin et al., seed {@code 002}), with no Camel in it.
 *
 * <ol>
 *   <li>{@link #setAgents}: capacity weights from start-up utilization (eq. 1), virtual node
 *       counts proportional to them with total {@code N} (eq. 2), a ring over
 *       {@code agent:0 .. agent:(N_i - 1)}. {@link #updateAgents}: a membership change that keeps
 *       the survivors' virtual nodes and gives a newcomer its eq. (2) share
 *       ({@link MembershipChange}): no key moves between survivors, keys move only to a newcomer,
 *       the learned allocation survives.
 *   <li>{@link #record} per request keeps the key's ring position in a history of the last
 *       {@link AdaptiveVirtualNodesConfig#historySize()} keyed requests, and returns {@code true}
 *       every {@link AdaptiveVirtualNodesConfig#evaluationWindow()} requests; {@link #report}
 *       per load report feeds the window's CPU and memory. The leader of replicas sharing one
 *       allocation also takes the others' keyed requests with {@link #observe(long)} (history
 *       only, no window count) and their reports with {@link #report}.
 *   <li>{@link #evaluate}: replays the history on the current ring to get each agent's request
 *       share (what this ring makes of recent traffic, as the paper's storage system counts the
 *       data each agent holds), computes {@code L_i} (eq. 3) and S (eqs. 4-5) and, as the
 *       {@link MoveGuard} allows, moves virtual nodes from the most to the least loaded agent
 *       ({@link Reallocation}); the new ring replaces the old one atomically.
 * </ol>
 *
 * <h2>Guards against noise</h2>
 * CPU and memory reports are instantaneous, and S computed from one window of them crossed the
 * threshold on a fleet of equal agents now and then, each crossing moving a node and re-homing
 * users. So: the CPU and memory of eq. (3) are an exponentially weighted moving average of the
 * windows' mean reports ({@link AdaptiveVirtualNodesConfig#utilizationSmoothing()}), restarted
 * after a move since earlier reports describe another ring; moves start when S exceeds the
 * threshold and go on until S is at most the settle threshold (hysteresis), and an evaluation
 * that moved is followed by a cooldown ({@link MoveGuard}). The paper's mechanism is unchanged:
 * one virtual node at a time from the most to the least loaded agent, total constant.
 *
 * <p>About 350 lines: the whole public API of the strategy's state, each method with its
 * guarantees; the algorithms live in their own classes ({@link Reallocation}, {@link MoveGuard},
 * {@link MembershipChange}, {@link VirtualNodeAllocation}, {@code UtilizationReports}, {@code KeyHistory}).
 *
 * <pre>{@code
 * AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.ofDefaults());
 * avn.setAgents(List.of("a", "b", "c"));
 * HashRing ring = avn.ring();
 * long position = ring.hash(userId);
 * String agent = ring.agentAt(position);
 * if (avn.record(position)) {
 *     avn.evaluate();
 * }
 * }</pre>
 *
 * <h2>Thread-safety</h2>
 * All methods are thread-safe. {@link #record}, {@link #observe}, {@link #report} and the getters are lock-free
 * (volatile reads, {@link LongAdder}s, atomic array slots). {@link #evaluate},
 * {@link #setAgents} and {@link #updateAgents} are serialized by a lock; {@code evaluate} never waits for it (it returns
 * empty if another evaluation or agent change is running). A request recorded while a window is
 * being closed may count in either window.
 *
 * <h2>Cost</h2>
 * {@code record}: O(1). {@code evaluate}: see {@link Reallocation}: one replay of the w history
 * positions, then per move at most 64 candidates judged by the positions on two arcs each, and
 * one ring derived, O(v). Memory: one long and one int per request of a window.
 */
public final class AdaptiveVirtualNodes {

    private final AdaptiveVirtualNodesConfig config;
    private final ReentrantLock lock = new ReentrantLock();
    private final UtilizationReports reports;
    private final AtomicLong reallocations = new AtomicLong();
    private final KeyHistory history;
    private final MoveGuard guard;
    private volatile Topology topology;
    private volatile EvaluationWindow window;
    private volatile Evaluation lastEvaluation;

    /** An instance with no agents yet, timed by {@link System#nanoTime()}; call {@link #setAgents} before routing. */
    public AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig config) {
        this(config, System::nanoTime);
    }

    /**
     * An instance with no agents yet; call {@link #setAgents} before routing.
     *
     * @param nanoClock monotonic clock in ns (e.g. {@code System::nanoTime}), dates load reports
     *                  for {@link AdaptiveVirtualNodesConfig#reportExpiry()}
     */
    public AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig config, LongSupplier nanoClock) {
        this.config = Objects.requireNonNull(config, "config");
        this.reports = new UtilizationReports(config, Objects.requireNonNull(nanoClock, "nanoClock"));
        this.history = new KeyHistory(config.historySize());
        this.guard = new MoveGuard(config);
    }

    /** The configuration. */
    public AdaptiveVirtualNodesConfig config() {
        return config;
    }

    /**
     * Starts over with agents that look alike: equal weights, {@code N} virtual nodes shared as
     * evenly as eq. (2) allows (150 over three agents: 50 each). Resets the window, the guard and
     * the learned allocation; keeps the replayed history (key positions do not depend on the
     * agents) and the reallocation count. For a change of a running fleet use {@link #updateAgents(Collection)}.
     * All or nothing: a rejected call leaves every state as it was. O(v log v), v = virtual nodes.
     *
     * @throws IllegalArgumentException if {@code agents} is null or empty, has a blank id, or has more agents than {@code N}
     */
    public void setAgents(Collection<String> agents) {
        changeAgents(equalWeights(agents), false);
    }

    /**
     * Starts over with agents and their start-up utilization: weights by eq. (1), virtual nodes by
     * eq. (2); otherwise as {@link #setAgents(Collection)}.
     *
     * @param startup agent id to its CPU and memory utilization at start-up
     * @throws IllegalArgumentException if {@code startup} is null or empty, has a blank id or a null
     *                                  utilization, or has more agents than {@code N}
     */
    public void setAgents(Map<String, AgentUtilization> startup) {
        changeAgents(VirtualNodeAllocation.capacityWeights(startup, config), false);
    }

    /**
     * A membership change of a running fleet of agents that look alike ({@link MembershipChange}):
     * the survivors keep their virtual nodes, learned ones included, a departed agent's go, a
     * newcomer gets its eq. (2) share. So a removal moves no key between survivors and an addition
     * moves keys only to the newcomer; the total becomes the members' sum. Without agents yet, or
     * with none staying, this starts over as {@link #setAgents(Collection)}.
     *
     * <p>Restarts the window, the smoothing and the {@link MoveGuard} (the reports describe another
     * ring) and forgets departed agents' reports; keeps the history and the reallocation count.
     * All or nothing. O(v log v).
     *
     * @throws IllegalArgumentException if {@code agents} is null or empty, has a blank id, or (when
     *                                  starting over) has more agents than {@code N}
     */
    public void updateAgents(Collection<String> agents) {
        changeAgents(equalWeights(agents), true);
    }

    /**
     * A membership change with the agents' start-up utilization (eq. 1 weights, a newcomer's share
     * by eq. 2); otherwise as {@link #updateAgents(Collection)}. A survivor's capacity weight
     * {@code e_i} is renormalized over the new agents; its virtual nodes stay.
     *
     * @throws IllegalArgumentException as {@link #setAgents(Map)}
     */
    public void updateAgents(Map<String, AgentUtilization> startup) {
        changeAgents(VirtualNodeAllocation.capacityWeights(startup, config), true);
    }





    private static SortedMap<String, Double> equalWeights(Collection<String> agents) {
        return VirtualNodeAllocation.equalWeights(new LinkedHashSet<>(Check.notEmpty("agents", agents)));
    }

    /**
     * Starts over with explicit virtual node counts (for example the paper's uniform start 5, 5, 5
     * against 6, 6, 3) and capacity weights {@code e_i} used by {@code L_ti} (eq. 3); the learned
     * allocation is replaced. All or nothing.
     *
     * @param virtualNodes   agent id to its virtual nodes (each >= 1)
     * @param capacityShares agent id to its capacity weight; normalized here
     * @throws IllegalArgumentException if the maps are empty, differ in agents, or hold a count {@code < 1} or a weight {@code <= 0}
     */
    public void setAgents(Map<String, Integer> virtualNodes, Map<String, Double> capacityShares) {
        if (virtualNodes == null || capacityShares == null || !virtualNodes.keySet().equals(capacityShares.keySet())) {
            throw new IllegalArgumentException("virtualNodes and capacityShares must name the same agents, was "
                    + virtualNodes + " and " + capacityShares);
        }
        SortedMap<String, Double> shares = VirtualNodeAllocation.shares(capacityShares);
        HashRing ring = HashRing.of(virtualNodes, config.hashFunction());
        lock.lock();
        try {
            install(ring, shares);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Installs virtual node counts computed elsewhere (another replica's evaluations) for the
     * current agents: the ring becomes {@code HashRing.of(virtualNodes, hash)}, the capacity
     * weights stay, and, unlike {@link #setAgents(Map, Map)}, the history, the window and the move
     * guard are kept, so a replica that later evaluates on its own goes on from there. The
     * smoothing restarts (earlier reports describe another ring), as after a move. All or nothing.
     * O(v log v).
     *
     * @return true if the ring changed, false if the counts were those of the current ring
     * @throws IllegalArgumentException if the counts name other agents than the current ones, or hold a count {@code < 1}
     * @throws IllegalStateException    before {@link #setAgents}
     */
    public boolean installVirtualNodes(Map<String, Integer> virtualNodes) {
        lock.lock();
        try {
            Topology t = topology;
            if (t == null) {
                throw new IllegalStateException("no agents yet: call setAgents first");
            }
            if (virtualNodes == null || !virtualNodes.keySet().equals(t.ring.agents())) {
                throw new IllegalArgumentException("virtualNodes must name the agents " + t.ring.agents() + ", was "
                        + virtualNodes);
            }
            if (t.ring.virtualNodes().equals(virtualNodes)) {
                return false;
            }
            topology = new Topology(HashRing.of(virtualNodes, config.hashFunction()), t.capacityShares);
            reports.restartSmoothing();
            return true;
        } finally {
            lock.unlock();
        }
    }


    private void changeAgents(SortedMap<String, Double> weights, boolean keepSurvivors) {
        lock.lock();
        try {
            Topology t = topology;
            SortedMap<String, Integer> counts = keepSurvivors && t != null
                    ? MembershipChange.virtualNodes(t.ring.virtualNodes(), weights, config.totalVirtualNodes())
                    : VirtualNodeAllocation.allocate(weights, config.totalVirtualNodes());
            install(HashRing.of(counts, config.hashFunction()), weights);
        } finally {
            lock.unlock();
        }
    }

    /** Publishes a new ring; cannot fail, so a membership change is all or nothing. Caller holds {@link #lock}. */
    private void install(HashRing ring, SortedMap<String, Double> weights) {
        reports.retain(ring.agents());
        topology = new Topology(ring, Collections.unmodifiableSortedMap(new TreeMap<>(weights)));
        window = new EvaluationWindow(ring.agents());
        lastEvaluation = null;
        guard.reset();
        reports.restartSmoothing();
    }

    /** The current ring; null before {@link #setAgents}. */
    public HashRing ring() {
        Topology t = topology;
        return t == null ? null : t.ring;
    }

    /** Agent id to its current number of virtual nodes, sorted by id; empty before {@link #setAgents}. */
    public SortedMap<String, Integer> virtualNodes() {
        Topology t = topology;
        return t == null ? Collections.emptySortedMap() : t.ring.virtualNodes();
    }

    /** Agent id to its capacity weight {@code e_i} (eq. 1, fractions summing to 1), sorted by id. */
    public SortedMap<String, Double> capacityShares() {
        Topology t = topology;
        return t == null ? Collections.emptySortedMap() : t.capacityShares;
    }

    /** S of the last evaluation (eqs. 4-5), a fraction; 0 before the first. */
    public double imbalanceIndex() {
        Evaluation e = lastEvaluation;
        return e == null ? 0 : e.imbalanceIndex();
    }

    /** The last evaluation since the agents were set, if any. */
    public Optional<Evaluation> lastEvaluation() {
        return Optional.ofNullable(lastEvaluation);
    }

    /** Virtual nodes moved since this instance was created. */
    public long reallocations() {
        return reallocations.get();
    }

    /** Requests recorded in the current window. */
    public long windowRequests() {
        EvaluationWindow w = window;
        return w == null ? 0 : w.recorded.get();
    }

    /**
     * Records a request whose key hashed to {@code position} ({@link HashRing#hash}): the position
     * joins the history, replacing the oldest once the history is full. Lock-free, O(1).
     *
     * @return true when this request completes a window of {@code evaluationWindow} requests: the
     *         caller should then call {@link #evaluate}
     */
    public boolean record(long position) {
        history.add(position);
        return countInWindow();
    }

    /**
     * Records a request without a key. It counts towards the window, not the history: keyless
     * requests are spread evenly whatever the ring, so no move of a virtual node can change them.
     * Lock-free, O(1).
     *
     * @return as {@link #record(long)}
     */
    public boolean recordWithoutKey() {
        return countInWindow();
    }

    /**
     * As {@link #record(long)} for the leader of {@code replicas} replicas that share one
     * allocation (each sees about 1/replicas of the requests): a window completes every
     * {@code max(1, evaluationWindow / replicas)} requests of this replica, so the leader evaluates
     * about every {@code evaluationWindow} requests of all, as one instance would. Lock-free, O(1).
     *
     * @param replicas the replicas sharing the allocation, >= 1 (values below 1 count as 1)
     */
    public boolean record(long position, int replicas) {
        history.add(position);
        return countInWindow(replicas);
    }

    /** As {@link #recordWithoutKey()} for the leader of {@code replicas} replicas ({@link #record(long, int)}). */
    public boolean recordWithoutKey(int replicas) {
        return countInWindow(replicas);
    }

    /**
     * Takes a keyed request another replica routed (its share of the traffic, handed to the leader
     * of a shared allocation): the position joins the history as {@link #record(long)}'s does, but
     * does not count towards the window, so the leader keeps its own cadence (every
     * {@code evaluationWindow / replicas} of its own requests, {@link #record(long, int)}) while
     * its evaluations replay every replica's keys. Never completes a window. Lock-free, O(1).
     */
    public void observe(long position) {
        history.add(position);
    }

    private boolean countInWindow() {
        return countInWindow(1);
    }

    private boolean countInWindow(int replicas) {
        EvaluationWindow w = window;
        return w != null && w.recorded.incrementAndGet() % Math.max(1, config.evaluationWindow() / Math.max(1, replicas)) == 0;
    }

    /**
     * Records a load report: the agent's CPU and memory utilization now. The window averages its
     * reports; an agent without one in the window keeps its last report, for at most
     * {@link AdaptiveVirtualNodesConfig#reportExpiry()}: at an evaluation, an agent whose latest
     * report is older counts as one that never reported (eq. 3 then uses the request share alone,
     * {@link LoadIndex}). A report from an agent that is not a member is ignored. Lock-free.
     *
     * @param cpu    fraction 0..1
     * @param memory fraction 0..1
     * @throws IllegalArgumentException if a value is NaN or outside [0, 1]
     */
    public void report(String agent, double cpu, double memory) {
        AgentUtilization utilization = new AgentUtilization(cpu, memory);
        EvaluationWindow w = window;
        if (w == null || !w.report(agent, utilization)) {
            return;
        }
        reports.latest(agent, utilization);
    }

    /**
     * Closes the current window and evaluates it ({@link Reallocation#evaluate}); if virtual nodes
     * move, the new ring replaces the current one atomically. Can be called at any time, also with
     * a partial window. Never waits: returns empty when another evaluation or agent change holds
     * the lock, or before {@link #setAgents}.
     */
    public Optional<Evaluation> evaluate() {
        return evaluate(true);
    }

    /**
     * As {@link #evaluate()}; with {@code install} false the moves are decided and counted (move
     * guard, {@link #reallocations()}) but the ring stays: the evaluation's ring
     * ({@link Evaluation#ring()}) is a proposal, for a replica whose ring comes from a shared
     * store and is changed by {@link #installVirtualNodes} once the proposal is written.
     */
    public Optional<Evaluation> evaluate(boolean install) {
        if (!lock.tryLock()) {
            return Optional.empty();
        }
        try {
            Topology t = topology;
            if (t == null) {
                return Optional.empty();
            }
            EvaluationWindow closed = window;
            window = new EvaluationWindow(t.ring.agents());
            WindowSnapshot snapshot = new WindowSnapshot(history.positions(), reports.smooth(closed.utilization(reports.current())));
            Evaluation evaluation = Reallocation.evaluate(t.ring, t.capacityShares, snapshot, config, guard::movesAllowed);
            guard.moved(evaluation.moves().size());
            if (!evaluation.moves().isEmpty()) {
                reallocations.addAndGet(evaluation.moves().size());
                if (install) {
                    topology = new Topology(evaluation.ring(), t.capacityShares);
                    reports.restartSmoothing();
                }
            }
            lastEvaluation = evaluation;
            return Optional.of(evaluation);
        } finally {
            lock.unlock();
        }
    }

    /** The phase of the move guard (hysteresis and cooldown, {@link MoveGuard}). */
    public MoveGuard.Phase guardPhase() {
        lock.lock();
        try {
            return guard.phase();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "AdaptiveVirtualNodes" + virtualNodes() + " S=" + imbalanceIndex() + " reallocations=" + reallocations();
    }

    private record Topology(HashRing ring, SortedMap<String, Double> capacityShares) {
    }
}
