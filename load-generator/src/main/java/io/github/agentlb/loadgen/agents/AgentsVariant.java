package io.github.agentlb.loadgen.agents;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.LeastRequestLB;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.demo.Strategies;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One balancer set-up of the agents scenario: a strategy with its key and load bound, and how many
 * proxy replicas share the agents. Every variant learns sessions from the agents' answers with
 * the same {@link #SESSION_SECRET}, so replicas route a session alike. Immutable.
 *
 * @param label    the name in tables, charts and files, e.g. {@code keys-bounded}
 * @param strategy the strategy's name in the demo proxy ({@code rr}, {@code lr}, {@code ch}, ...)
 * @param keyed    whether it routes by a key (a conversation's requests tend to one agent)
 * @param bounded  whether a load bound keeps keys off an agent above its share
 * @param replicas proxies over the same agents, conversations split by index, >= 1
 * @param factory  makes a new balancer (learned sessions are added by {@link #balancer()})
 */
public record AgentsVariant(String label, String strategy, boolean keyed, boolean bounded, int replicas,
                            Supplier<AgentLoadBalancerSupport> factory) {

    /** The shared secret that seals session ids, the same on every replica (at least 16 bytes). */
    public static final String SESSION_SECRET = "agents-scenario-session-secret";
    /** The balance factor of both bounded variants: an agent's share of recent requests at most 1.25 x the mean. */
    public static final double BALANCE_FACTOR = 1.25;
    /** The in-flight factor of {@link #IN_FLIGHT}: requests in flight at most 1.25 x the mean (KubeAI's). */
    public static final double IN_FLIGHT_FACTOR = 1.25;
    /** The key chain of the keyed agent variants: session header, prompt prefix, {@code user_id}. */
    public static final String KEYS = "session,prompt,user_id";
    /** The label of the agent keys with the share bound alone ({@link #BALANCE_FACTOR}). */
    public static final String SHARE_BOUNDED = "keys-bounded";
    /**
     * The label of the agent keys with both bounds, share and in flight ({@link #IN_FLIGHT_FACTOR},
     * KubeAI's rule, checked per request), run to show what the per-request check costs.
     */
    public static final String IN_FLIGHT = "keys-inflight";
    /**
     * The label of {@link #IN_FLIGHT} with the in-flight bound placing each conversation once
     * ({@code setKeepInFlightPlacement(true)}) instead of each request.
     */
    public static final String IN_FLIGHT_KEPT = "keys-inflight-kept";
    /**
     * The label of the variant the goal check reads and the two-replica run repeats: the one
     * docs/llm-agents.md recommends, {@link #IN_FLIGHT_KEPT}.
     */
    public static final String CHECKED = IN_FLIGHT_KEPT;

    public AgentsVariant {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(factory, "factory");
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1, was " + replicas);
        }
    }

    /** A new balancer of this variant with learned sessions on ({@link #SESSION_SECRET}). */
    public AgentLoadBalancerSupport balancer() {
        AgentLoadBalancerSupport balancer = factory.get();
        balancer.setLearnedSessions(LearnedSessions.custom().secret(SESSION_SECRET).build());
        return balancer;
    }

    /** The same variant with {@code n} replicas, labelled {@code <label> x<n>}. */
    public AgentsVariant withReplicas(int n) {
        return new AgentsVariant(label + " x" + n, strategy, keyed, bounded, n, factory);
    }

    /**
     * The variants run: round-robin and least request (no key), consistent hashing on
     * {@code user_id}, consistent hashing on the agent keys ({@value #KEYS}) without a bound, with the
     * share bound alone ({@link #SHARE_BOUNDED}, balance factor {@value #BALANCE_FACTOR}), with both
     * bounds ({@link #IN_FLIGHT}: share {@value #BALANCE_FACTOR}, in flight {@value #IN_FLIGHT_FACTOR}),
     * with both bounds and the in-flight placement kept ({@link #IN_FLIGHT_KEPT}), and that variant
     * again with two replicas.
     */
    public static List<AgentsVariant> standard() {
        AgentsVariant kept = new AgentsVariant(IN_FLIGHT_KEPT, Strategies.CONSISTENT_HASH, true, true, 1, () -> {
            ConsistentHashLB lb = new ConsistentHashLB();
            lb.setKeys(KEYS);
            lb.setBalanceFactor(BALANCE_FACTOR);
            lb.setInFlightFactor(IN_FLIGHT_FACTOR);
            lb.setKeepInFlightPlacement(true);
            return lb;
        });
        return List.of(
                new AgentsVariant("rr", Strategies.ROUND_ROBIN, false, false, 1, RoundRobinLB::new),
                new AgentsVariant("lr", Strategies.LEAST_REQUEST, false, false, 1, LeastRequestLB::new),
                new AgentsVariant("ch", Strategies.CONSISTENT_HASH, true, false, 1, ConsistentHashLB::new),
                new AgentsVariant("keys", Strategies.CONSISTENT_HASH, true, false, 1, () -> {
                    ConsistentHashLB lb = new ConsistentHashLB();
                    lb.setKeys(KEYS);
                    return lb;
                }),
                new AgentsVariant(SHARE_BOUNDED, Strategies.CONSISTENT_HASH, true, true, 1, () -> {
                    ConsistentHashLB lb = new ConsistentHashLB();
                    lb.setKeys(KEYS);
                    lb.setBalanceFactor(BALANCE_FACTOR);
                    return lb;
                }),
                new AgentsVariant(IN_FLIGHT, Strategies.CONSISTENT_HASH, true, true, 1, () -> {
                    ConsistentHashLB lb = new ConsistentHashLB();
                    lb.setKeys(KEYS);
                    lb.setBalanceFactor(BALANCE_FACTOR);
                    lb.setInFlightFactor(IN_FLIGHT_FACTOR);
                    return lb;
                }),
                kept,
                kept.withReplicas(2));
    }
}
