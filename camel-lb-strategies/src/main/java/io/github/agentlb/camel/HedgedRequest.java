package io.github.agentlb.camel;

import io.github.agentlb.core.hedge.HedgePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.ExchangeHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One hedged request ({@link HedgingSettings}): its attempts run as {@link Attempts} of their own,
 * one per leg, each on its own copy of the exchange with its own hooks; this object joins them.
 * The first leg whose attempt produces an answer head that settles it (not busy, not an error
 * answer: those end their leg only) wins ({@link Leg#answered}), the others are cancelled, and the
 * client's exchange gets the winner's result, once. The hedges are tasks on the
 * balancer's timer, one delay apart; none starts later than the failover deadline after the
 * request's first attempt, which also bounds each leg's failovers.
 *
 * <p>Over 300 lines: the hedge timer, the winner's claim, the losers' cancellation, the legs' end
 * and the first leg's return to the queue all read and write the legs under one monitor.
 *
 * <p>Thread-safe: the legs' decisions are taken under this object's monitor (a few times per
 * request, never while a child runs); callbacks and cancellations run outside it.
 */
final class HedgedRequest {

    /** Exchange property of a leg's exchange copy: its {@link Leg}, which the hooks of the leg's attempts ({@link Attempt}) find. */
    static final String LEG_PROPERTY = "agentlb.hedgeLeg";
    private static final Logger LOG = LoggerFactory.getLogger(HedgedRequest.class);

    private final AttemptContext context;
    private final Exchange exchange;
    private final AsyncCallback callback;
    private final BalancerState state;
    private final SessionAffinity.Pin pin;
    private final HedgePolicy policy;
    /**
     * When the request's first attempt was sent, ns: the failover deadline counts from there for
     * hedges and for every leg's failovers alike.
     */
    private final long startNanos;
    /** Every leg so far, the first request's first; guarded by this. */
    private final List<Leg> legs = new ArrayList<>(2);
    /** The leg whose answer head came first; guarded by this. */
    private Leg winner;
    /** Whether the client's exchange has its result; guarded by this. */
    private boolean ended;

    private HedgedRequest(AttemptContext context, Exchange exchange, AsyncCallback callback, BalancerState state,
            SessionAffinity.Pin pin) {
        this.context = context;
        this.exchange = exchange;
        this.callback = callback;
        this.state = state;
        this.pin = pin;
        this.policy = state.config.hedging();
        this.startNanos = context.nanoTime();
    }

    /**
     * Whether {@code exchange} is hedged on {@code state}: hedging on, not pinned to an agent, and an
     * idempotent method or an {@code Idempotency-Key}.
     */
    static boolean hedges(BalancerState state, Exchange exchange, SessionAffinity.Pin pin) {
        if (!state.config.hedging().enabled() || pin != null && pin.agent() != null) {
            return false;
        }
        return state.config.failover().repeatable(exchange.getIn());
    }

    /**
     * Runs {@code exchange}'s first attempts on {@code selection} and hedges them when they are slow.
     *
     * @return as {@link org.apache.camel.AsyncProcessor#process}
     */
    static boolean run(AttemptContext context, Exchange exchange, AsyncCallback callback, BalancerState state,
            Selection selection, SessionAffinity.Pin pin) {
        HedgedRequest request = new HedgedRequest(context, exchange, callback, state, pin);
        Leg first = request.newLeg();
        if (new Attempts(context, first.exchange, first, state, selection, pin, request.startNanos).start()) {
            return true;
        }
        request.later();
        return false;
    }

    private synchronized Leg newLeg() {
        Leg leg = new Leg(legs.size(), ExchangeHelper.createCopy(exchange, true));
        leg.exchange.setProperty(LEG_PROPERTY, leg);
        legs.add(leg);
        return leg;
    }

    private void later() {
        context.later(this::hedge, context.hedgeDelay.delayNanos(policy), exchange);
    }

    /** The hedge delay is up: another leg, when no answer head came, one may be sent and the budget allows it. */
    private void hedge() {
        try {
            List<String> busy = new ArrayList<>(2);
            synchronized (this) {
                if (ended || winner != null || legs.size() > policy.maxHedges() || !context.runAllowed()) {
                    return;
                }
                legs.forEach(leg -> busy.add(leg.agent));
            }
            List<String> candidates = candidates(busy);
            if (candidates.isEmpty()) {
                LOG.debug("exchange {}: no agent left to hedge to", exchange.getExchangeId());
                return;
            }
            Duration deadline = state.config.failover().deadline();
            if (!deadline.isZero() && context.nanoTime() - startNanos >= deadline.toNanos()) {
                LOG.debug("exchange {}: no hedge, failoverDeadline reached", exchange.getExchangeId());
                return;
            }
            if (!context.retries.tryStartRetry(state.config.retryBudget())) {
                LOG.debug("exchange {}: hedge refused, retry budget spent", exchange.getExchangeId());
                return;
            }
            Leg leg;
            synchronized (this) {
                if (ended || winner != null) {
                    context.retries.retryEnded();
                    return;
                }
                leg = newLeg();
                leg.holdsRetry = true;
            }
            context.retries.hedgeSent();
            // The hedge is a retry of this request, not a request of its own: Attempts counts it as one.
            context.retries.requestEnded();
            new Attempts(context, leg.exchange, leg, state, Selection.of(candidates.iterator()), null, startNanos).start();
            if (leg.index < policy.maxHedges()) {
                later();
            }
        } catch (RuntimeException e) {
            LOG.debug("exchange {}: hedge failed", exchange.getExchangeId(), e);
        }
    }

    /**
     * The strategy's agents for another leg, without those of the legs so far, the ejected, those
     * drained or removed since the request began, those resting after a busy answer and those at
     * their in-flight limit, then the agents added since that pass the same screens: a hedge none of
     * them could take is not sent, nor counted.
     */
    private List<String> candidates(List<String> busy) {
        List<String> candidates = new ArrayList<>(2);
        int limit = state.config.flowControl().maxInFlightPerAgent();
        long now = context.nanoTime();
        for (Iterator<String> it = state.picker.select(exchange).candidates(); it.hasNext(); ) {
            String agent = it.next();
            if (hedgeable(agent, state.slot(agent), busy, now, limit)) {
                candidates.add(agent);
            }
        }
        // Then the agents added since the request began (drained or removed ones are not hedgeable): its attempts try them last.
        BalancerState current = context.currentState();
        if (current != state) {
            for (String agent : current.agentIds()) {
                if (state.slot(agent) == null && hedgeable(agent, current.slot(agent), busy, now, limit)) {
                    candidates.add(agent);
                }
            }
        }
        return candidates;
    }

    /** Whether a hedge may go to {@code agent}: not one of the request's, taking new requests, not ejected, resting or full. */
    private boolean hedgeable(String agent, AgentSlot slot, List<String> busy, long now, int limit) {
        return slot != null && slot.life.get() == AgentSlot.SERVING && !busy.contains(agent) && !state.detector.isEjected(agent)
                && !slot.resting(now) && !(limit > 0 && slot.inFlight.get() >= limit);
    }

    /**
     * An attempt of {@code leg} answered: whether it may answer the client. A failure, or a busy or
     * error answer, may (its leg fails over, or ends); the first success wins and cancels the other
     * legs; any answer of a leg that lost may not.
     */
    private boolean answered(Leg leg, boolean success) {
        List<Runnable> cancels = new ArrayList<>(1);
        List<String> slow = new ArrayList<>(1);
        String agent;
        long sentNanos;
        synchronized (this) {
            if (leg.lost) {
                return false;
            }
            if (!success || winner == leg) {
                return true;
            }
            winner = leg;
            agent = leg.agent;
            sentNanos = leg.sentNanos;
            for (Leg other : legs) {
                if (other != leg && other.running) {
                    other.lost = true;
                    if (other.onLost != null) {
                        cancels.add(other.onLost);
                        other.onLost = null;
                    }
                    if (other.index < leg.index && other.agent != null && !other.agent.equals(agent)) {
                        slow.add(other.agent);
                    }
                }
            }
        }
        if (policy.percentile() > 0 && agent != null) {
            context.hedgeDelay.record(agent, context.nanoTime() - sentNanos, policy.percentile());
        }
        if (leg.index > 0) {
            context.retries.hedgeWon();
        }
        for (String loser : slow) {
            Duration ejection = state.detector.onHedgeLost(loser, HedgePolicy.LOST_RACES_TO_EJECT);
            if (ejection != null) {
                context.listeners.ejected(context.strategyName, new AgentFailure(loser, "lost hedged requests",
                        AttemptOutcome.ANSWER_TIMED_OUT, null), ejection);
            }
        }
        cancels.forEach(Runnable::run);
        return true;
    }

    /** Registers what cancels {@code leg}'s call when another leg wins; runs it at once when it lost already. */
    private Runnable whenLost(Leg leg, Runnable end) {
        synchronized (this) {
            if (!leg.lost) {
                leg.onLost = end;
                return () -> {
                    synchronized (this) {
                        if (leg.onLost == end) {
                            leg.onLost = null;
                        }
                    }
                };
            }
        }
        end.run();
        return AttemptHooks.NOTHING;
    }

    /** {@code leg}'s attempts ended: the client's exchange ends with the winner, or with the last failure. */
    private void ended(Leg leg, boolean doneSync) {
        boolean finish = false;
        synchronized (this) {
            leg.running = false;
            if (!ended) {
                // A leg that ended on a busy or error answer (held back) claimed nothing: the last leg's result stands.
                finish = winner == leg || winner == null && legs.stream().noneMatch(l -> l.running);
                ended = finish;
            }
        }
        if (leg.holdsRetry) {
            context.retries.retryEnded();
            context.retries.requestStarted(); // undoes the request count its Attempts ended
        }
        if (finish) {
            Exchange result = leg.exchange;
            result.removeProperty(LEG_PROPERTY);
            ExchangeHelper.copyResults(exchange, result);
            exchange.removeProperty(LEG_PROPERTY);
            exchange.setProperty(AgentLb.AGENT_PROPERTY, result.getProperty(AgentLb.AGENT_PROPERTY));
            exchange.setProperty(AgentLb.STRATEGY_PROPERTY, context.strategyName);
            // Synchronous only when the first leg ended inside the caller's own call.
            callback.done(doneSync && leg.index == 0);
        }
    }

    /**
     * One leg of the request: the callback of its {@link Attempts}, and what its hooks and
     * attempts ask of the request. Thread-safe through the request's monitor.
     */
    final class Leg implements AsyncCallback, WaitsAgain {
        final int index;
        final Exchange exchange;
        /** Guarded by the request: the agent of the leg's attempt in flight, and when it was sent (ns). */
        private String agent;
        private long sentNanos;
        private boolean running = true;
        private boolean lost;
        private boolean holdsRetry;
        private Runnable onLost;

        private Leg(int index, Exchange exchange) {
            this.index = index;
            this.exchange = exchange;
        }

        /** The leg's next attempt goes to {@code agentId}, now. */
        void attempting(String agentId) {
            long now = context.nanoTime();
            synchronized (HedgedRequest.this) {
                sentNanos = now;
                agent = agentId;
            }
        }

        /**
         * The first leg, before any hedge, found no agent after a busy answer: the request goes back to
         * wait in the queue that let it through, if any, as an unhedged one would, and ends here unheard.
         */
        @Override
        public boolean waitAgain() {
            synchronized (HedgedRequest.this) {
                if (index != 0 || legs.size() != 1 || ended || winner != null) {
                    return false;
                }
                ended = true;
            }
            boolean waits = callback instanceof WaitsAgain again && again.waitAgain();
            if (!waits) {
                synchronized (HedgedRequest.this) {
                    ended = false;
                }
            }
            return waits;
        }

        /** Whether no other leg of this request runs: this leg's answer is the request's, whatever it is. */
        boolean alone() {
            synchronized (HedgedRequest.this) {
                return legs.stream().noneMatch(other -> other != this && other.running);
            }
        }

        /** Whether another leg of this request still runs with its attempt on {@code agentId}: a failover goes elsewhere. */
        boolean onAnotherLeg(String agentId) {
            synchronized (HedgedRequest.this) {
                for (Leg other : legs) {
                    if (other != this && other.running && agentId.equals(other.agent)) {
                        return true;
                    }
                }
                return false;
            }
        }

        /** As {@link HedgedRequest#answered}: whether this leg's answer may go to the client. */
        boolean answered(boolean success) {
            return HedgedRequest.this.answered(this, success);
        }

        /** As {@link #answered(boolean)}, for an attempt's result: a success when it {@linkplain AnswerRules#settles settles}. */
        boolean answered(Exchange attempt) {
            return answered(state.config.answers().settles(attempt));
        }

        /** As {@link AttemptHooks#whenHedgeLost}. */
        Runnable whenLost(Runnable end) {
            return HedgedRequest.this.whenLost(this, end);
        }

        @Override
        public void done(boolean doneSync) {
            ended(this, doneSync);
        }
    }
}
