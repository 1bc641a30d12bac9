package io.github.agentlb.camel;

import io.github.agentlb.core.bounded.BoundedLoads;
import io.github.agentlb.core.health.OutlierDetector;
import io.github.agentlb.core.orca.LoadReport;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything a request reads of its balancer, as one immutable snapshot: the members with their
 * names and weights, which are draining, which are ramping up, the configuration, the strategy's
 * {@link Picker}, and the stores built from the configuration (outlier ejection, bounded loads,
 * learned sessions). The balancer's one writer publishes a new one for each change (membership,
 * weight, drain, knob, a new ring or schedule learned by the strategy), and an exchange reads it
 * once: a decision never mixes two states. Per-agent counters (in flight, rests, slow-start
 * offers, load reports; {@link AgentSlot}) and the stores' own counts live outside and carry over.
 *
 * <p>Immutable and thread-safe; the collections are unmodifiable.
 */
public final class BalancerState {

    static final BalancerState EMPTY = new BalancerState(0, List.of(), List.of(), Map.of(), Map.of(), Set.of(),
            Map.of(), BalancerConfig.DEFAULT, null, null, null,
            exchange -> Selection.of(java.util.Collections.emptyIterator()));

    private final long generation;
    private final List<String> members;
    private final List<String> serving;
    private final Map<String, AgentSlot> slots;
    private final Map<String, Double> weights;
    private final Set<String> draining;
    private final Map<String, Long> warmingSince;
    final BalancerConfig config;
    /** Outlier ejection of the members; null only in {@link #EMPTY}. */
    final OutlierDetector detector;
    /** Bounded loads of the serving agents, null while off. */
    final BoundedLoads boundedLoads;
    /** Learned sessions, null while off. */
    final SessionAffinity sessions;
    final Picker picker;

    BalancerState(long generation, List<String> members, List<String> serving, Map<String, AgentSlot> slots,
            Map<String, Double> weights, Set<String> draining, Map<String, Long> warmingSince, BalancerConfig config,
            OutlierDetector detector, BoundedLoads boundedLoads, SessionAffinity sessions, Picker picker) {
        this.generation = generation;
        this.members = members;
        this.serving = serving;
        this.slots = slots;
        this.weights = weights;
        this.draining = draining;
        this.warmingSince = warmingSince;
        this.config = config;
        this.detector = detector;
        this.boundedLoads = boundedLoads;
        this.sessions = sessions;
        this.picker = picker;
    }

    /** This state with the strategy's picker, built from this state. */
    BalancerState withPicker(Picker value) {
        return new BalancerState(generation, members, serving, slots, weights, draining, warmingSince, config,
                detector, boundedLoads, sessions, value);
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

    /** @return the configuration of this state */
    public BalancerConfig config() {
        return config;
    }

    /** @return the bounded-load store of this state (agent loads, remembered keys), or null while bounded loads are off */
    public BoundedLoads boundedLoads() {
        return boundedLoads;
    }

    /** The picker of this state, for tests and tools; null in the view a strategy builds its picker from. */
    public Picker picker() {
        return picker;
    }

    /** @return requests in flight to {@code agentId} through this balancer now; 0 for no member */
    public int inFlight(String agentId) {
        AgentSlot slot = slots.get(agentId);
        return slot == null ? 0 : slot.inFlight.get();
    }

    /** @return long-lived streams open on {@code agentId} through this balancer now, not in {@link #inFlight}; 0 for no member */
    public int streams(String agentId) {
        AgentSlot slot = slots.get(agentId);
        return slot == null ? 0 : slot.streams.get();
    }

    /**
     * The latest load report of {@code agentId} if it arrived at most the saturation's staleness
     * ago (200 ms by default), else null: for strategies that weigh agents by reported load. O(1).
     *
     * @param nowNanos the balancer's clock now
     */
    public LoadReport freshLoadReport(String agentId, long nowNanos) {
        AgentSlot slot = slots.get(agentId);
        AgentSlot.ReceivedReport latest = slot == null ? null : slot.loadReport.get();
        return latest != null && config.saturation().isFresh(nowNanos - latest.atNanos()) ? latest.report() : null;
    }

    /**
     * The requests at {@code agentId} that this balancer's in-flight count does not see, by its
     * fresh load report ({@link LoadReport#requestsBeyond}: with {@code num_requests_running}
     * reported, the agent's running and waiting requests less this balancer's own; else
     * {@code num_requests_waiting}), 0 without a fresh report: the requests of other balancers,
     * such as the other replicas in front of the same agents. O(1).
     */
    public double reportedBeyondOwn(String agentId, long nowNanos) {
        AgentSlot slot = slots.get(agentId);
        AgentSlot.ReceivedReport latest = slot == null ? null : slot.loadReport.get();
        return latest != null && config.saturation().isFresh(nowNanos - latest.atNanos()) ? latest.beyondOwn() : 0;
    }

    /** @return whether {@code agentId} has sent a load report at all (no clock read) */
    boolean hasReported(String agentId) {
        AgentSlot slot = slots.get(agentId);
        return slot != null && slot.loadReport.get() != null;
    }

    AgentSlot slot(String agentId) {
        return slots.get(agentId);
    }

    /**
     * The places free for new requests under an in-flight limit of {@code limit} per agent, at
     * {@code now} (ns): {@code limit} less its requests in flight (hedges included, streams not) for
     * each agent that can take a request ({@link #openAgents}), and one for each whose ejection time
     * is up and that has a place (its trial). Requests on agents that cannot take one (resting,
     * ejected, on trial, drained) take no other agent's place. When no agent can take a request,
     * every serving agent's free places: a request let through then meets the attempts' own answer
     * (a busy agent's 429, an ejected agent tried). O(agents).
     */
    int freePlaces(long now, int limit) {
        boolean ejections = detector.hasEjections();
        int open = 0;
        int serving = 0;
        boolean any = false;
        for (String agent : agentIds()) {
            AgentSlot slot = slot(agent);
            if (slot == null) {
                continue;
            }
            int free = Math.max(0, limit - slot.inFlight.get());
            serving += free;
            if (slot.resting(now)) {
                continue;
            }
            if (!(ejections && detector.isEjected(agent))) {
                open += free;
                any = true;
            } else if (detector.ejectionOver(agent)) {
                open += Math.min(1, free);
                any = true;
            }
        }
        return any ? open : serving;
    }

    /** The serving agents that can take a request at {@code now} (ns): neither resting after a busy answer nor ejected or marked down; O(agents). */
    int openAgents(long now) {
        return countAgents(now, false);
    }

    /** The serving agents, not resting, whose ejection time is up at {@code now} (ns): each can take one request, its trial; O(agents). */
    int trialsDue(long now) {
        return detector.hasEjections() ? countAgents(now, true) : 0;
    }

    private int countAgents(long now, boolean trials) {
        boolean ejections = detector.hasEjections();
        int count = 0;
        for (String agent : agentIds()) {
            AgentSlot slot = slot(agent);
            if (slot != null && !slot.resting(now)
                    && (trials ? detector.ejectionOver(agent) : !(ejections && detector.isEjected(agent)))) {
                count++;
            }
        }
        return count;
    }

    /**
     * When the next serving agent that cannot take a request now may take one again by time alone:
     * the earliest end, after {@code now} (ns), of a rest after a busy answer (or of its trial's
     * wait) or of an ejection (a mark down or an ejection's trial ends by an event instead);
     * {@code Long.MAX_VALUE} when none. O(agents).
     */
    long nextOpeningNanos(long now) {
        long next = Long.MAX_VALUE;
        boolean ejections = detector.hasEjections();
        for (String agent : agentIds()) {
            AgentSlot slot = slot(agent);
            if (slot != null) {
                next = earlier(next, slot.restUntil.get(), now);
                next = earlier(next, slot.trialUntil.get(), now);
            }
            if (ejections && !detector.isMarkedDown(agent)) {
                long left = detector.remainingNanos(agent);
                next = earlier(next, left > 0 ? now + left : 0, now);
            }
        }
        return next;
    }

    /** {@code at} when it is set (not 0), after {@code now} and before {@code next}; else {@code next}. */
    private static long earlier(long next, long at, long now) {
        return at != 0 && at - now > 0 && (next == Long.MAX_VALUE || at - next < 0) ? at : next;
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
        return since == null ? 1.0 : config.slowStart().factor(nowNanos - since);
    }

    @Override
    public String toString() {
        return "BalancerState{generation=" + generation + ", members=" + members
                + (draining.isEmpty() ? "" : ", draining=" + draining)
                + (warmingSince.isEmpty() ? "" : ", warming=" + warmingSince.keySet()) + "}";
    }
}
