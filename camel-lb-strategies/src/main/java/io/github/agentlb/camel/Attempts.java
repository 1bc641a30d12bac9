package io.github.agentlb.camel;

import io.github.agentlb.core.retry.RetryBackoff;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;
import org.apache.camel.support.ExchangeHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts of one exchange: pick the next candidate ({@link CandidateScreen}), send a fresh copy, classify the outcome, feed outlier ejection, then fail over or
 * finish. Every step runs inside one guard: whatever throws fails the exchange, and the callback
 * runs exactly once (by this run, or, when the exchange waits again in its balancer's queue, by
 * the next). Not thread-safe; steps run one after another.
 *
 * <h2>Where the steps run</h2>
 * The first attempt is sent on the caller's thread, as Camel's own {@code RoundRobinLoadBalancer}
 * sends its child, and an answer given synchronously ({@code doneSync}) is handled at once on that
 * thread, failover included: when every step was synchronous the exchange completes with
 * {@code callback.done(true)} and {@link #start} returns {@code true}, so the route goes on without
 * a hop through Camel's reactive executor. An asynchronous answer is handled from the reactive
 * executor of the thread that gave it, and the exchange then completes with
 * {@code callback.done(false)}, as does one whose failover waited on the {@link AttemptTimer}.
 *
 * <h2>What a decision allocates</h2>
 * This object (its {@link CandidateScreen} part included) and one {@link Attempt} per attempt
 * (the child's callback, the hooks its copy carries for a child that streams the answer, and, for
 * an asynchronous answer, the executor's task), besides the exchange copy: no lambdas (but a backoff's task), no atomic boxes, and a failure list made
 * at the first failover only.
 *
 * <p>Over 300 lines: one state machine (choose, send, classify, rest, eject, fail over or finish)
 * whose steps share the exchange's fields; split, each piece would pass them all around. It knows
 * its balancer only through its {@link AttemptContext} and the state it read.
 */
final class Attempts extends CandidateScreen {

    private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);
    private static final VarHandle COMPLETION;
    private static final int RUNNING = 0;
    private static final int DONE_SYNC = 1;
    private static final int DONE_ASYNC = 2;
    static final long UNSET = Long.MIN_VALUE;

    static {
        try {
            COMPLETION = MethodHandles.lookup().findVarHandle(Attempts.class, "completion", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The client's exchange; its attempts' hooks read it. */
    final Exchange exchange;
    private final AsyncCallback callback;
    /** Where the exchange's session takes it, null when it has none. */
    private final SessionAffinity.Pin pin;
    /** Whether anyone reads attempt times ({@link AttemptContext#timesAttempts}): when no one does, the clock is not read. */
    private final boolean timed;
    /** When the first attempt was sent, ns, the failover deadline counting from there; a hedged request's legs' is given. */
    private long startNanos;
    private List<AgentFailure> failures = List.of();
    /** The last busy answer of this exchange, if any: the client's answer when no agent is left. */
    private Attempt lastBusy;
    /** The failovers of this exchange that waited out a backoff so far. */
    private int waits;
    /** Whether the attempt in flight holds one of the retry budget's retries in flight. */
    private boolean retryHeld;
    /** {@link #RUNNING} until the callback is called, then how: read and set through {@link #COMPLETION}. */
    @SuppressWarnings("unused")
    private volatile int completion;

    /** @param startNanos when the request's first attempt was sent (a hedged request's), else {@link #UNSET}: this run's first */
    Attempts(AttemptContext context, Exchange exchange, AsyncCallback callback, BalancerState state,
            Selection selection, SessionAffinity.Pin pin, long startNanos) {
        super(state, selection, context, exchange, pin != null && pin.agent() != null);
        this.startNanos = startNanos;
        this.exchange = exchange;
        this.callback = callback;
        this.pin = pin;
        this.timed = context.timesAttempts(policy());
    }

    /**
     * Sends the first attempt from the caller's thread.
     *
     * @return {@code true} when the exchange has completed synchronously (the callback was called
     *     with {@code true}); {@code false} when it completes, or has completed, with {@code false}
     */
    boolean start() {
        context.retries.requestStarted();
        try {
            next(true);
        } catch (Throwable t) {
            fail(t, true);
        }
        return completion == DONE_SYNC;
    }

    /**
     * Sends the next attempt; a failover runs on the thread that handled the failed answer.
     *
     * @param sync whether every step so far ran on the caller's thread inside {@link #start}
     */
    private void next(boolean sync) {
        boolean ejections = state.detector.hasEjections();
        String agent = nextAgent(ejections);
        if (agent == null) {
            if (!failures.isEmpty()) {
                context.retries.retryNotSent(); // the failover retry() counted goes to no agent: no retry
            }
            // Busy, resting or full, no other can take it: it waits again, once, unless its agent alone may serve it,
            // or an attempt failed (let through again, it would go back to the agents that failed: every agent once).
            boolean oneAgent = pin != null && pin.agent() != null || offeredOne();
            if ((lastBusy != null || restingSkipped()) && !oneAgent && failures.stream().noneMatch(f -> f.outcome().isFailure())
                    && callback instanceof WaitsAgain again && again.waitAgain()) {
                done(false, false);
            } else {
                giveUp("", sync);
            }
            return;
        }
        boolean trial = ejections && state.detector.isEjected(agent);
        if (DecisionLog.enabled()) {
            DecisionLog.attempt(exchange, context.strategyName, agent, trial, failures, selection,
                    ejections ? state.detector.ejected() : Set.of(), saturated());
        }
        Exchange copy = ExchangeHelper.createCopy(exchange, true);
        for (String header : context.droppedHeaders) {
            copy.getIn().removeHeader(header);
        }
        LoadReporting.prepare(copy, state.config.reportFormat());
        if (pin != null) {
            state.sessions.restore(copy.getIn(), pin);
        }
        HedgedRequest.Leg leg = leg();
        if (leg != null) {
            leg.attempting(agent);
        }
        long now = timed ? context.nanoTime() : 0L;
        if (firstAttempt() && startNanos == UNSET) {
            startNanos = now;
        }
        AgentSlot slot = chosenSlot();
        // Counted before the hooks are set: a copy without properties then has no queue permit to look up.
        if (!slot.sent(copy, reserved())) {
            next(sync); // removed since the state was read (its child perhaps stopped): as if not offered
            return;
        }
        Attempt attempt = new Attempt(this, agent, slot, copy, sync, now, trial, state.detector.generation());
        OwnProperties.set(copy, AttemptHooks.PROPERTY, SessionAttemptHooks.of(attempt, state.sessions, exchange, pin, agent));
        try {
            if (state.boundedLoads != null) {
                state.boundedLoads.recordSent(agent);
            }
            context.strategy.attemptStarted(agent, copy);
            slot.child.process(copy, attempt);
        } catch (RuntimeException e) {
            if (attempt.answer()) {
                copy.setException(e);
                completed(attempt, sync);
            }
        }
        attempt.sent();
    }

    /** The failover rules of the state the exchange started with. */
    private FailoverPolicy policy() {
        return state.config.failover();
    }

    /** The answer of {@code attempt}, handled on the thread that calls this. */
    void answered(Attempt attempt, boolean sync) {
        try {
            completed(attempt, sync);
        } catch (Throwable t) {
            attempt.reported(); // never hold a drain back on a failure of this handling
            fail(t, sync);
        }
    }

    /** The time since {@code startNanos}, ns; 0 when nobody reads attempt times ({@link #timed}). */
    long elapsedSince(long startNanos) {
        return timed ? context.nanoTime() - startNanos : 0L;
    }

    /** Hands the handling of an asynchronous answer to the reactive executor of the calling thread. */
    void schedule(Runnable answered) {
        exchange.getContext().getCamelContextExtension().getReactiveExecutor().schedule(answered);
    }

    private void completed(Attempt done, boolean sync) {
        releaseRetry();
        String agent = done.agent();
        AgentSlot slot = done.slot();
        done.leavePlace();
        Exchange attempt = done.exchange();
        long elapsedNanos = done.elapsedNanos();
        Exception failure = attempt.getException();
        AttemptOutcome outcome = FailureClassifier.classify(failure);
        int status = 0;
        Object retryAfter = null;
        if (outcome == AttemptOutcome.SUCCESS) {
            status = AnswerRules.statusOf(attempt.getMessage());
            if (status >= 429) {
                retryAfter = status == 429 || status == 503 ? attempt.getMessage().getHeader(AnswerRules.RETRY_AFTER) : null;
                outcome = state.config.answers().classify(status, retryAfter);
            }
        }
        try {
            LoadReporting.read(agent, slot, attempt, outcome, state.config.reportFormat(), context.nanoClock);
            try {
                context.strategy.attemptCompleted(agent, attempt, outcome, elapsedNanos, selection);
            } catch (RuntimeException e) {
                LOG.debug("attemptCompleted failed for agent {}", agent, e);
            }
            context.listeners.attempt(context.strategyName, agent, outcome, elapsedNanos);
        } finally {
            done.reported(); // a draining agent whose last request this was leaves after it was timed
        }
        Duration errorEjection = outcome == AttemptOutcome.ERROR_ANSWER ? state.detector.onErrorAnswer(agent, done.generation()) : null;
        if (errorEjection != null) {
            context.listeners.ejected(context.strategyName, new AgentFailure(agent, "error answer " + status, outcome, null), errorEjection);
        }
        // An answer re-admits (a trial answered busy too: alive, it rests); a cancelled call or an error answer says nothing.
        boolean answered = outcome == AttemptOutcome.BUSY ? done.sentWhileEjected()
                : !outcome.isFailure() && outcome != AttemptOutcome.CANCELLED && outcome != AttemptOutcome.ERROR_ANSWER;
        if (answered && state.detector.onSuccess(agent, done.sentWhileEjected())) {
            context.readmitted(agent);
        }
        if (outcome == AttemptOutcome.BUSY || state.config.answers().restsAgent(status)) {
            busy(done, status, retryAfter, sync); // a 503 without Retry-After too: an error answer that also rests the agent
            return;
        }
        if (!outcome.isFailure() || outcome == AttemptOutcome.ERROR_ANSWER) {
            finish(agent, attempt, sync);
            return;
        }
        AgentFailure agentFailure = new AgentFailure(agent, AgentFailure.reasonOf(failure), outcome, failure);
        addFailure(agentFailure);
        // A marked-down agent is out until marked up: its failures (calls the mark-down ended) eject it no more;
        // nor does a call sent before the agent's last ejection, re-admission or mark (OutlierDetector#generation).
        Duration ejection = state.detector.isMarkedDown(agent) ? null : state.detector.onFailure(agent, done.generation());
        if (ejection != null) {
            context.listeners.ejected(context.strategyName, agentFailure, ejection);
        }
        if (!context.runAllowed() || !policy().mayFailOver(outcome, policy().repeatable(exchange.getIn()))) {
            finish(agent, attempt, sync);
        } else if (!policy().allowsAnother(triedCount() - 1, context.nanoTime() - startNanos)) {
            giveUp(policy().limitReached(triedCount() - 1), sync);
        } else {
            // Ended by its agent's mark-down (the balancer's decision, not chance): free of the retry budget.
            retry(sync, outcome != AttemptOutcome.FAILED_BEFORE_SEND && !state.detector.isMarkedDown(agent));
        }
    }

    /**
     * Sends the next attempt when it is free (the agent never saw the request) or the budget has room,
     * else gives up. A budgeted one first waits its backoff on the timer (no thread held, counted in
     * flight), unless the wait would pass the failover deadline: then it gives up as at the deadline.
     */
    private void retry(boolean sync, boolean budgeted) {
        RetryBackoff backoff = state.config.retryBackoff();
        long wait = budgeted && backoff.enabled() ? backoff.delayNanos(++waits, context.timer.nextDraw()) : 0;
        if (wait > 0 && !policy().allowsAnother(triedCount() - 1, context.nanoTime() - startNanos + wait)) {
            giveUp(policy().limitReached(triedCount() - 1), sync);
            return;
        }
        retryHeld = budgeted && context.retries.tryStartRetry(state.config.retryBudget());
        if (!retryHeld && (budgeted || !context.retries.freeRetry())) {
            giveUp(" (retry budget spent: " + context.retries.retries() + " retries in flight)", sync);
        } else if (wait > 0) {
            context.later(this::afterBackoff, wait, exchange);
        } else {
            next(sync);
        }
    }

    /** The failover attempt after its backoff, on the timer's thread. */
    private void afterBackoff() {
        try {
            if (context.runAllowed()) {
                next(false);
            } else {
                context.retries.retryNotSent();
                giveUp(" (the balancer stopped)", false);
            }
        } catch (Throwable t) {
            fail(t, false);
        }
    }

    private void releaseRetry() {
        if (retryHeld) {
            retryHeld = false;
            context.retries.retryEnded();
        }
    }

    private void addFailure(AgentFailure failure) {
        if (failures.isEmpty()) {
            failures = new ArrayList<>(2);
        }
        failures.add(failure);
    }

    /**
     * A busy (or unavailable: {@link AnswerRules#restsAgent}) answer: the agent rests, and the request goes to another agent
     * when that is safe ({@link AnswerRules}); else, or when no agent is left, the client gets the busy answer with
     * the shortest rest left among the agents as its {@code Retry-After}.
     */
    private void busy(Attempt done, int status, Object retryAfter, boolean sync) {
        AnswerRules rules = state.config.answers();
        Duration rest = rules.restOf(retryAfter, context.epochMillis());
        long until = context.nanoTime() + rest.toNanos();
        done.slot().rest(until, status);
        context.resting(until);
        DecisionLog.busy(context.strategyName, done.agent(), status, rest);
        if (done.headPassed()) {
            // Already on its way to the client as it came (a streamed body cannot be sent again): its answer.
            finish(done.agent(), done.exchange(), sync);
            return;
        }
        lastBusy = done;
        boolean unavailable = retryAfter == null && status == 503;
        addFailure(new AgentFailure(done.agent(), (unavailable ? "unavailable " : "busy ") + status, unavailable ? AttemptOutcome.ERROR_ANSWER : AttemptOutcome.BUSY, null));
        if (context.runAllowed() && rules.busyMayFailOver(status, policy().repeatable(exchange.getIn()), policy())
                && policy().allowsAnother(triedCount() - 1, context.nanoTime() - startNanos)) {
            retry(sync, true);
        } else {
            finishBusy(sync);
        }
    }

    /** Ends the exchange with the last busy answer, its {@code Retry-After} the shortest rest left of the agents it may go to, whole seconds. */
    private void finishBusy(boolean sync) {
        Exchange answer = lastBusy.exchange();
        answer.getMessage().setHeader(AnswerRules.RETRY_AFTER, Long.toString(retryAfterSeconds(context.nanoTime())));
        finish(lastBusy.agent(), answer, sync);
    }

    /** Ends the exchange with the attempt's outcome: an answer, or a failure not to be retried. */
    private void finish(String agent, Exchange attempt, boolean sync) {
        if (state.sessions != null) {
            state.sessions.ended(agent, attempt, exchange.getIn(), pin);
        }
        OwnProperties.remove(attempt, AttemptHooks.PROPERTY);
        ExchangeHelper.copyResults(exchange, attempt);
        OwnProperties.set(exchange, AgentLb.AGENT_PROPERTY, agent);
        OwnProperties.set(exchange, AgentLb.STRATEGY_PROPERTY, context.strategyName);
        done(sync);
    }

    private void giveUp(String why, boolean sync) {
        if (lastBusy != null) {
            finishBusy(sync);
            return;
        }
        NoAgentAvailableException none = restingSkipped() ? busy(exchange) : NoAgentAvailableException.afterAttempts(
                exchange, context.strategyName, triedCount(), state.agentIds().size(), why, failures, state.detector, pin);
        DecisionLog.none(exchange, context.strategyName, none);
        exchange.setException(none);
        done(sync);
    }

    private void fail(Throwable t, boolean sync) {
        if (completion != RUNNING) {
            LOG.debug("Failure after exchange {} completed", exchange.getExchangeId(), t);
            return;
        }
        exchange.setException(t instanceof Exception e ? e
                : new CamelExchangeException("Balancer failed: " + t, exchange, t));
        done(sync);
    }

    private void done(boolean sync) {
        done(sync, true);
    }

    /** Ends this run once; {@code tell}: whether it calls the callback (not when the exchange waits again in the queue). */
    private void done(boolean sync, boolean tell) {
        if (COMPLETION.compareAndSet(this, RUNNING, sync ? DONE_SYNC : DONE_ASYNC)) {
            if (exchange.getException() != null) {
                AnswerRules.dropClientEchoes(exchange);
            }
            selection.ended();
            releaseRetry();
            context.retries.requestEnded();
            if (tell) {
                callback.done(sync);
            }
        }
    }
}
