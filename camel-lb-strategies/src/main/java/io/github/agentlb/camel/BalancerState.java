package io.github.agentlb.camel;

import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.health.OutlierDetector;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything a request reads of its balancer, as one immutable snapshot: the members with their
 * names and weights, which are draining, which are ramping up, the strategy's {@link Picker},
 * outlier ejection and the failover policy. The balancer publishes a new one for each change
 * (membership, weight, drain, settings, a new ring or schedule learned by the strategy) through
 * one writer, and an exchange reads it once: a decision never mixes two states. Per-agent
 * counters (in flight, PID signals, decayed loads, ejection state) live outside and carry over.
 *
 * <p>Immutable and thread-safe; the collections are unmodifiable.
 */
public final class BalancerState {

    static final BalancerState EMPTY = new BalancerState(0, List.of(), List.of(), Map.of(), Map.of(), Set.of(),
            Map.of(), exchange -> Selection.of(java.util.Collections.emptyIterator()), null, FailoverPolicy.DEFAULT,
            AnswerRules.DEFAULT, SlowStart.DISABLED);

    private final long generation;
    private final List<String> members;
    private final List<String> serving;
    private final Map<String, AgentSlot> slots;
    private final Map<String, Double> weights;
    private final Set<String> draining;
    private final Map<String, Long> warmingSince;
    final Picker picker;
    final OutlierDetector detector;
    final FailoverPolicy policy;
    final AnswerRules answerRules;
    final SlowStart slowStart;

    BalancerState(long generation, List<String> members, List<String> serving, Map<String, AgentSlot> slots,
            Map<String, Double> weights, Set<String> draining, Map<String, Long> warmingSince, Picker picker,
            OutlierDetector detector, FailoverPolicy policy, AnswerRules answerRules, SlowStart slowStart) {
        this.generation = generation;
        this.members = members;
        this.serving = serving;
        this.slots = slots;
        this.weights = weights;
        this.draining = draining;
        this.warmingSince = warmingSince;
        this.picker = picker;
        this.detector = detector;
        this.policy = policy;
        this.answerRules = answerRules;
        this.slowStart = slowStart;
    }

    /** @return how many states the balancer published before this one: 0, 1, 2, ... */
    public long generation() {
        return generation;
    }

    /** @return every member, draining ones included, in child order */
    public List<String> members() {
        return members;
    }

    /** @return the members that take new requests (members less draining), in child order */
    public List<String> agentIds() {
        return serving;
    }

    /** @return the members draining: no new requests, those in flight finish */
    public Set<String> draining() {
        return draining;
    }

    /** @return member to its static weight (1 unless set) */
    public Map<String, Double> weights() {
        return weights;
    }

    /** @return member to when its slow start began (the balancer's clock, ns), for those ramping up */
    public Map<String, Long> warmingSince() {
        return warmingSince;
    }

    /** The picker of this state, for tests and tools. */
    public Picker picker() {
        return picker;
    }

    AgentSlot slot(String agentId) {
        return slots.get(agentId);
    }

    Map<String, AgentSlot> slots() {
        return slots;
    }

    /** The part of its share {@code agentId} keeps now (slow start); 1 when it does not ramp. */
    double warmupFactor(String agentId, long nowNanos) {
        if (warmingSince.isEmpty()) {
            return 1.0;
        }
        Long since = warmingSince.get(agentId);
        return since == null ? 1.0 : slowStart.factor(nowNanos - since);
    }

    @Override
    public String toString() {
        return "BalancerState{generation=" + generation + ", members=" + members
                + (draining.isEmpty() ? "" : ", draining=" + draining)
                + (warmingSince.isEmpty() ? "" : ", warming=" + warmingSince.keySet()) + "}";
    }
}
