package io.github.agentlb.camel;

import io.github.agentlb.core.health.OutlierDetector.Admission;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.camel.Exchange;

/**
 * The order one exchange tries its agents in: the strategy's candidates as they come, each at most
 * once, but those resting after a busy answer skipped, those that slow start holds back, those a
 * fresh load report says are saturated (unless every agent is) and ejected ones tried only after
 * the others (panic); an agent at its {@link FlowControl#maxInFlightPerAgent()} limit is skipped
 * (it takes no new request), and the one chosen under a limit has its place reserved at once
 * ({@link AgentSlot#reserve}). Drain and removal are read as they are now, not as in that state:
 * an agent drained or removed since is not tried (no new request), unless the exchange's session is
 * pinned to it; when the state's agents are spent, an agent added since that takes requests is
 * tried (a retry or hedge is a new request). The part of an exchange's {@link Attempts} that chooses, its
 * superclass so that an exchange's attempts are one object (DecisionBenchmark: an object and its
 * fields less per decision); not thread-safe.
 *
 * <p>Most exchanges try one agent: the first is a field, and the sets are made at the first
 * agent passed over or the first failover only.
 *
 * <p>Over 300 lines: five screens over one order (rest, the in-flight bound, ejection, saturation,
 * slow start) that share the passed-over sets the exchange's answers and {@code Retry-After} read,
 * and the membership read live (drained, removed, added since) that every screen applies to.
 */
abstract sealed class CandidateScreen permits Attempts {

    /** The state the exchange started with (its attempts' hooks read it too). */
    final BalancerState state;
    final Selection selection;
    final AttemptContext context;
    private String firstTried;
    private Set<String> laterTried;
    private Set<String> ejected;
    private Set<String> heldBack;
    /** Serving agents passed over because a fresh load report says they are saturated. */
    private Set<String> saturated;
    /** Set when every agent that could take the exchange is saturated: the strategy's order then stands. */
    private boolean everySaturated;
    /** The slot of the candidate {@link #nextAgent} just chose in its first pass, else null. */
    private AgentSlot chosenSlot;
    /** The agents' in-flight limit for this exchange (0: none). */
    private final int limit;
    /** The candidates passed over because they rest after a busy answer or are at their in-flight limit. */
    private Set<String> restingSkipped;
    /** Whether the agent {@link #nextAgent} returned holds a place it reserved under the in-flight limit. */
    private boolean reserved;
    /** The clock's reading of this {@link #nextAgent}, {@link Attempts#UNSET} until {@link #now} reads it. */
    private long now;
    /** How many candidates the strategy's order gave so far. */
    private int offered;
    /** The leg of a hedged request this exchange is, else null: the agents of its other legs count as tried. */
    private final HedgedRequest.Leg leg;
    /** Whether the exchange's session or task is pinned to its one agent, which it then tries even while draining. */
    private final boolean pinned;

    /** @param exchange the exchange screened for: one that opens a long-lived stream is no load, held by no in-flight limit */
    CandidateScreen(BalancerState state, Selection selection, AttemptContext context, Exchange exchange, boolean pinned) {
        this.state = state;
        this.pinned = pinned;
        this.selection = selection;
        this.context = context;
        int perAgent = state.config.flowControl().maxInFlightPerAgent();
        this.limit = perAgent > 0 && AgentSlot.opensStream(exchange.getIn()) ? 0 : perAgent;
        this.leg = exchange.hasProperties() ? exchange.getProperty(HedgedRequest.LEG_PROPERTY, HedgedRequest.Leg.class) : null;
    }

    /**
     * The next untried serving agent: available ones in the strategy's order, then those that
     * slow start held back, then saturated ones, then ejected ones.
     *
     * @param screen whether some agent is ejected (read once per attempt)
     * @return the agent, or null when none is left
     */
    final String nextAgent(boolean screen) {
        Iterator<String> candidates = selection.candidates();
        boolean warming = !state.warmingSince().isEmpty();
        long trialNanos = state.config.answers().defaultRest().toNanos();
        boolean resting = context.anyResting(trialNanos);
        boolean gating = !everySaturated && state.config.saturation().enabled();
        now = Attempts.UNSET;
        reserved = false;
        while (candidates.hasNext()) {
            String candidate = candidates.next();
            offered++;
            // Pickers give serving agents only (no draining one); an id of no member is skipped, and so is
            // an agent drained or removed since the state was read (an exchange pinned to it excepted).
            AgentSlot slot = state.slot(candidate);
            if (slot == null || wasTried(candidate) || !pinned && slot.life.get() != AgentSlot.SERVING) {
                continue;
            }
            if (resting && slot.restingOrTrial(now(), trialNanos) || limit > 0 && slot.inFlight.get() >= limit) {
                restingSkipped = add(restingSkipped, candidate);
                continue;
            }
            if (screen && state.detector.admit(candidate) == Admission.EJECTED) {
                if (!state.detector.isMarkedDown(candidate)) {
                    // Marked down by health checks: never tried, not even as the last agent left.
                    ejected = add(ejected, candidate);
                }
                continue;
            }
            if (gating && slot.loadReport.get() != null && LoadReporting.saturated(slot, now(), state.config)) {
                if (saturated == null && everyAgentSaturated(screen)) {
                    // Passing them all over would hand every exchange to the strategy's first pick.
                    everySaturated = true;
                    gating = false;
                } else {
                    saturated = add(saturated, candidate);
                    continue;
                }
            }
            if (warming && !keptBySlowStart(candidate, slot, now())) {
                heldBack = add(heldBack, candidate);
                continue;
            }
            if (limit > 0 && !slot.reserve(limit)) {
                restingSkipped = add(restingSkipped, candidate); // its last place went to another exchange since the check above
                continue;
            }
            reserved = limit > 0;
            markTried(candidate);
            chosenSlot = slot;
            return candidate;
        }
        chosenSlot = null;
        String added = pinned ? null : addedSince(screen);
        if (added != null) {
            return added;
        }
        String later = firstUntried(heldBack, limit);
        later = later != null ? later : firstUntried(saturated, limit);
        return later != null ? later : firstUntried(ejected, limit);
    }

    /**
     * An agent added since the exchange read its state that takes requests now (not draining, not
     * ejected when {@code screen}, a place free under the in-flight limit), in the current state's
     * order, else null: what a retry or hedge tries once the agents of the state it read are spent.
     * Added since: not a serving member of that state with the same child (so never offered by its
     * picker): new, back from a drain, or moved to another child.
     */
    private String addedSince(boolean screen) {
        BalancerState current = context.currentState();
        if (current == state) {
            return null;
        }
        for (String agent : current.agentIds()) {
            AgentSlot slot = current.slot(agent);
            if (slot == null || state.slot(agent) == slot && !state.draining().contains(agent)
                    || slot.life.get() != AgentSlot.SERVING || wasTried(agent)
                    || screen && state.detector.admit(agent) == Admission.EJECTED || limit > 0 && !slot.reserve(limit)) {
                continue;
            }
            reserved = limit > 0;
            markTried(agent);
            chosenSlot = slot;
            return agent;
        }
        return null;
    }

    /** The clock, read once per {@link #nextAgent} and only when a rest, a report or a ramp needs it. */
    private long now() {
        if (now == Attempts.UNSET) {
            now = context.nanoTime(); // a clock that reads Long.MIN_VALUE is only read again
        }
        return now;
    }

    /** The slot of the agent {@link #nextAgent} returned; null when it returned none. */
    AgentSlot chosenSlot() {
        return chosenSlot;
    }

    /** @return the agents the saturation gate passed over so far, for the decision log */
    Set<String> saturated() {
        return saturated == null ? Set.of() : saturated;
    }

    /**
     * @return whether the strategy's order, read to its end, gave one agent only (a handle's ring
     *         owner, the one member): its busy answer is the client's, not a reason to wait again
     */
    boolean offeredOne() {
        return offered == 1 && !selection.candidates().hasNext();
    }

    /** @return whether an agent was passed over because it rests after a busy answer or is at its in-flight limit, and not tried since */
    boolean restingSkipped() {
        return restingSkipped != null && !restingSkipped.isEmpty();
    }

    /**
     * @return the one agent passed over as resting or full when it alone was (a session's or a
     *         handle's agent, or the last one the others' failures left), else null
     */
    String onlyRestingSkipped() {
        return restingSkipped != null && restingSkipped.size() == 1 ? restingSkipped.iterator().next() : null;
    }

    /**
     * The exception for an exchange every agent of which rests or is full: unavailable when each
     * agent passed over rests after a 503 (an outage, not rate limiting), else busy; the exchange's
     * {@code Retry-After} set ({@link #retryAfterSeconds}).
     */
    AgentsBusyException busy(Exchange exchange) {
        long retryAfterSeconds = retryAfterSeconds(context.nanoTime());
        exchange.getMessage().setHeader(AnswerRules.RETRY_AFTER, Long.toString(retryAfterSeconds));
        boolean unavailable = restingSkipped();
        for (String agent : restingSkipped == null ? Set.<String>of() : restingSkipped) {
            AgentSlot slot = state.slot(agent);
            unavailable &= slot != null && slot.restUntil.get() != 0 && slot.restStatus.get() == 503;
        }
        return AgentsBusyException.resting(exchange, retryAfterSeconds, onlyRestingSkipped(), unavailable);
    }

    /**
     * The {@code Retry-After} for this exchange: the shortest rest left among the agents it tried or
     * passed over (those it may go to), whole seconds rounded up, at least 1; 1 when none of them
     * rests (at its in-flight limit only). Agents it may not go to (another's session or handle)
     * do not shorten it. O(agents tried or passed over).
     *
     * @param now the clock's reading, nanoseconds
     */
    long retryAfterSeconds(long now) {
        long shortest = Long.MAX_VALUE;
        if (firstTried != null) {
            shortest = restLeft(firstTried, now, shortest);
        }
        for (Set<String> agents : Arrays.asList(laterTried, restingSkipped)) {
            if (agents != null) {
                for (String agent : agents) {
                    shortest = restLeft(agent, now, shortest);
                }
            }
        }
        return shortest == Long.MAX_VALUE ? 1 : Math.max(1, (shortest + 999_999_999L) / 1_000_000_000L);
    }

    /** The smaller of {@code shortest} and {@code agent}'s rest left at {@code now} when it rests, nanoseconds. */
    private long restLeft(String agent, long now, long shortest) {
        AgentSlot slot = state.slot(agent);
        long until = slot == null ? 0 : slot.restUntil.get();
        return until != 0 && until - now > 0 ? Math.min(shortest, until - now) : shortest;
    }

    /** @return the leg of a hedged request this exchange is, else null */
    final HedgedRequest.Leg leg() {
        return leg;
    }

    /** @return how many agents were tried */
    int triedCount() {
        return firstTried == null ? 0 : 1 + (laterTried == null ? 0 : laterTried.size());
    }

    /** @return whether no agent was tried before this one: the next attempt is the first */
    boolean firstAttempt() {
        return laterTried == null;
    }

    /** The first untried agent of {@code agents} with a place under {@code limit} (reserved; 0: none). */
    private String firstUntried(Set<String> agents, int limit) {
        if (agents != null) {
            for (String candidate : agents) {
                if (!wasTried(candidate)) {
                    if (limit > 0 && !state.slot(candidate).reserve(limit)) {
                        restingSkipped = add(restingSkipped, candidate);
                        continue;
                    }
                    reserved = limit > 0;
                    markTried(candidate);
                    chosenSlot = state.slot(candidate);
                    return candidate;
                }
            }
        }
        return null;
    }

    /** @return whether the agent {@link #nextAgent} returned holds a place it reserved: {@link AgentSlot#sent(Exchange, boolean)} */
    boolean reserved() {
        return reserved;
    }

    /**
     * Whether every serving agent that is neither resting nor ejected was saturated by its last
     * report, up to a few times the staleness old ({@link LoadReporting#wasSaturated}; O(agents);
     * asked once per exchange, when the gate first meets a saturated one).
     */
    private boolean everyAgentSaturated(boolean screen) {
        for (String agent : state.agentIds()) {
            AgentSlot slot = state.slot(agent);
            boolean out = slot == null || slot.resting(now()) || screen && state.detector.isEjected(agent);
            if (!out && !LoadReporting.wasSaturated(slot, now(), state.config)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether an agent that ramps up keeps this exchange: a keyed exchange when its key's rank is
     * below the agent's part f of its share (the same keys as f grows), any other by count
     * ({@link AgentSlot#keepOffered}).
     */
    private boolean keptBySlowStart(String candidate, AgentSlot slot, long now) {
        double factor = state.warmupFactor(candidate, now);
        if (factor >= 1.0) {
            return true;
        }
        double rank = selection.keyRank();
        return Double.isNaN(rank) ? slot.keepOffered(factor) : rank < factor;
    }

    private boolean wasTried(String agent) {
        return agent.equals(firstTried) || laterTried != null && laterTried.contains(agent)
                || leg != null && leg.onAnotherLeg(agent);
    }

    private void markTried(String agent) {
        if (restingSkipped != null) {
            restingSkipped.remove(agent); // passed over before, tried now: not one it could not go to
        }
        if (firstTried == null) {
            firstTried = agent;
        } else {
            if (laterTried == null) {
                laterTried = new HashSet<>(4);
            }
            laterTried.add(agent);
        }
    }

    private static Set<String> add(Set<String> set, String agent) {
        Set<String> result = set == null ? new LinkedHashSet<>() : set;
        result.add(agent);
        return result;
    }
}
