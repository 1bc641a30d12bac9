package io.github.agentlb.camel;

import io.github.agentlb.core.health.OutlierDetector;
import io.github.agentlb.core.health.OutlierDetector.Admission;
import io.github.agentlb.core.orca.LoadReports;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;
import org.apache.camel.support.ExchangeHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts of one exchange: pick the next candidate (skipping saturated and ejected agents,
 * which are tried last), send a fresh copy, classify the outcome, feed outlier ejection, then fail over or
 * finish. Every step runs inside one guard: whatever throws fails the exchange, and the callback
 * runs exactly once. Not thread-safe; steps run one after another.
 *
 * <h2>Where the steps run</h2>
 * The first attempt is sent on the caller's thread, as Camel's own {@code RoundRobinLoadBalancer}
 * sends its child, and an answer given synchronously ({@code doneSync}) is handled at once on that
 * thread, failover included: when every step was synchronous the exchange completes with
 * {@code callback.done(true)} and {@link #start} returns {@code true}, so the route goes on without
 * a hop through Camel's reactive executor. An asynchronous answer is handled from the reactive
 * executor of the thread that gave it, and the exchange then completes with
 * {@code callback.done(false)}. Scheduling every step before, cost two executor tasks,
 * their lambdas and an executor round trip per decision for nothing: the executor runs a task at
 * once on a thread that is not already running one.
 *
 * <h2>What a decision allocates</h2>
 * This object and one {@link Attempt} per attempt (the child's callback and, when the answer is
 * asynchronous, the executor's task), besides the exchange copy: no lambdas and no atomic boxes.
 * Most exchanges make one attempt: the first agent is a field, the set of agents tried and the
 * failure list are created at the first failover only.
 *
 * <h2>Hooks</h2>
 * Each attempt's copy carries this object as its {@link AttemptHooks}, answered from the state and
 * the learned sessions the exchange started with, for a child that streams the answer.
 *
 * <p>Over 300 lines: one state machine (choose, send, classify, rest, eject, fail over or finish)
 * whose steps share the exchange's fields; split, each piece would pass them all around.
 */
final class Attempts implements AttemptHooks {

    private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);
    private static final VarHandle COMPLETION;
    private static final int RUNNING = 0;
    private static final int DONE_SYNC = 1;
    private static final int DONE_ASYNC = 2;

    static {
        try {
            COMPLETION = MethodHandles.lookup().findVarHandle(Attempts.class, "completion", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AgentLoadBalancerSupport balancer;
    private final Exchange exchange;
    private final AsyncCallback callback;
    private final BalancerState state;
    private final Selection selection;
    private final OutlierDetector detector;
    private final FailoverPolicy policy;
    /** Learned sessions, null while off. */
    private final SessionAffinity affinity;
    /** Where the exchange's session takes it, null when it has none. */
    private final SessionAffinity.Pin pin;
    /**
     * Whether anyone reads attempt times: an attempt listener, a strategy that overrides
     * {@code attemptCompleted}, or a failover deadline. When no one does, the clock is not read
     * (two reads a decision otherwise, as much as a tenth of a decision's cost in DecisionBenchmark).
     */
    private final boolean timed;
    /** When the first attempt was sent, ns: the failover deadline counts from there. */
    private long startNanos;
    private String firstTried;
    private Set<String> laterTried;
    private List<AgentFailure> failures = List.of();
    private Set<String> ejectedCandidates;
    private Set<String> heldBack;
    /** Serving agents passed over because a fresh load report says they are saturated; tried after the others. */
    private Set<String> saturatedCandidates;
    /** Set when every agent that could take the exchange is saturated: the strategy's order then stands. */
    private boolean everySaturated;
    /** The slot of the candidate {@link #nextCandidate} just chose in its first pass, else null. */
    private AgentSlot chosenSlot;
    /** The last busy answer of this exchange, if any: the client's answer when no agent is left. */
    private Attempt lastBusy;
    /** Whether a candidate was passed over because it rests after a busy answer. */
    private boolean restingSkipped;
    /** The agent of the attempt in flight: the one {@link #clientValue} seals into session ids. */
    private String current;
    /** {@link #RUNNING} until the callback is called, then how: read and set through {@link #COMPLETION}. */
    @SuppressWarnings("unused")
    private volatile int completion;

    Attempts(AgentLoadBalancerSupport balancer, Exchange exchange, AsyncCallback callback,
            BalancerState state, Selection selection, SessionAffinity affinity, SessionAffinity.Pin pin) {
        this.balancer = balancer;
        this.exchange = exchange;
        this.callback = callback;
        this.state = state;
        this.selection = selection;
        this.detector = state.detector;
        this.policy = state.policy;
        this.affinity = affinity;
        this.pin = pin;
        this.timed = balancer.timesAttempts(policy);
    }

    /**
     * Sends the first attempt from the caller's thread.
     *
     * @return {@code true} when the exchange has completed synchronously (the callback was called
     *     with {@code true}); {@code false} when it completes, or has completed, with {@code false}
     */
    boolean start() {
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
        boolean screen = detector.hasEjections();
        String agent = nextCandidate(screen);
        if (agent == null) {
            giveUp("", sync);
            return;
        }
        boolean trial = screen && detector.isEjected(agent);
        if (DecisionLog.enabled()) {
            if (failures.isEmpty()) {
                DecisionLog.decision(exchange, balancer.strategyName(), agent, trial, selection.detail().get(),
                        screen ? detector.ejected() : Set.of(),
                        saturatedCandidates == null ? Set.of() : saturatedCandidates);
            } else {
                DecisionLog.failover(exchange, balancer.strategyName(), agent, failures.get(failures.size() - 1), trial);
            }
        }
        Exchange copy = ExchangeHelper.createCopy(exchange, true);
        for (String header : balancer.reportHeaders()) {
            copy.getIn().removeHeader(header);
        }
        balancer.loadReporting().prepare(copy);
        if (pin != null) {
            affinity.restore(copy.getIn(), pin);
        }
        copy.setProperty(AttemptHooks.PROPERTY, this);
        current = agent;
        long now = timed ? balancer.nanoTime() : 0L;
        if (laterTried == null) {
            startNanos = now;
        }
        AgentSlot slot = chosenSlot != null ? chosenSlot : state.slot(agent);
        Attempt attempt = new Attempt(this, agent, slot, copy, sync, now, trial);
        slot.inFlight.incrementAndGet();
        try {
            balancer.attemptStarted(agent, copy);
            slot.child.process(copy, attempt);
        } catch (RuntimeException e) {
            if (attempt.answer()) {
                copy.setException(e);
                completed(attempt, sync);
            }
        }
        attempt.sent();
    }

    /** The answer of {@code attempt}, handled on the thread that calls this. */
    void answered(Attempt attempt, boolean sync) {
        try {
            completed(attempt, sync);
        } catch (Throwable t) {
            fail(t, sync);
        }
    }

    /** Whether {@code type} or a superclass below {@link AgentLoadBalancerSupport} overrides its {@code attemptCompleted}. */
    static boolean overridesAttemptCompleted(Class<?> type) {
        for (Class<?> c = type; c != null && c != AgentLoadBalancerSupport.class; c = c.getSuperclass()) {
            try {
                c.getDeclaredMethod("attemptCompleted", String.class, Exchange.class, AttemptOutcome.class, long.class);
                return true;
            } catch (NoSuchMethodException e) {
                // not declared here: look further up
            }
        }
        return false;
    }

    /** The time since {@code startNanos}, ns; 0 when nobody reads attempt times ({@link #timed}). */
    long elapsedSince(long startNanos) {
        return timed ? balancer.nanoTime() - startNanos : 0L;
    }

    /** Hands the handling of an asynchronous answer to the reactive executor of the calling thread. */
    void schedule(Runnable answered) {
        exchange.getContext().getCamelContextExtension().getReactiveExecutor().schedule(answered);
    }

    /**
     * The next untried serving agent: available ones in the strategy's order, then those that
     * slow start held back, then those a fresh load report says are saturated (unless every agent
     * is: then the strategy's order stands), then ejected ones (panic).
     */
    private String nextCandidate(boolean screen) {
        Iterator<String> candidates = selection.candidates();
        boolean warming = !state.warmingSince().isEmpty();
        boolean resting = balancer.anyResting();
        boolean gating = !everySaturated && balancer.loadReporting().gating();
        long now = warming || resting || gating ? balancer.nanoTime() : 0L;
        while (candidates.hasNext()) {
            String candidate = candidates.next();
            // Pickers give serving agents only (no draining one); an id of no member is skipped.
            AgentSlot slot = state.slot(candidate);
            if (slot == null || wasTried(candidate)) {
                continue;
            }
            if (resting && slot.restUntil != 0 && slot.restUntil - now > 0) {
                restingSkipped = true;
                continue;
            }
            if (screen && detector.admit(candidate) == Admission.EJECTED) {
                if (ejectedCandidates == null) {
                    ejectedCandidates = new LinkedHashSet<>();
                }
                ejectedCandidates.add(candidate);
                continue;
            }
            if (gating && balancer.loadReporting().saturated(slot, now)) {
                if (saturatedCandidates == null && everyAgentSaturated(screen, now)) {
                    // Passing them all over would hand every exchange to the strategy's first pick.
                    everySaturated = true;
                    gating = false;
                } else {
                    if (saturatedCandidates == null) {
                        saturatedCandidates = new LinkedHashSet<>();
                    }
                    saturatedCandidates.add(candidate);
                    continue;
                }
            }
            if (warming && !keptBySlowStart(candidate, now)) {
                if (heldBack == null) {
                    heldBack = new LinkedHashSet<>();
                }
                heldBack.add(candidate);
                continue;
            }
            markTried(candidate);
            chosenSlot = slot;
            return candidate;
        }
        chosenSlot = null;
        if (heldBack != null) {
            for (String candidate : heldBack) {
                if (!wasTried(candidate)) {
                    markTried(candidate);
                    return candidate;
                }
            }
        }
        if (saturatedCandidates != null) {
            for (String candidate : saturatedCandidates) {
                if (!wasTried(candidate)) {
                    markTried(candidate);
                    return candidate;
                }
            }
        }
        if (ejectedCandidates != null) {
            for (String candidate : ejectedCandidates) {
                if (!wasTried(candidate)) {
                    markTried(candidate);
                    return candidate;
                }
            }
        }
        return null;
    }

    /**
     * Whether every serving agent that is neither resting nor ejected has a fresh report that says
     * it is saturated (O(agents); asked once per exchange, when the gate first meets a saturated one).
     */
    private boolean everyAgentSaturated(boolean screen, long now) {
        for (String agent : state.agentIds()) {
            AgentSlot slot = state.slot(agent);
            boolean out = slot == null || slot.restUntil != 0 && slot.restUntil - now > 0
                    || screen && detector.isEjected(agent);
            if (!out && !balancer.loadReporting().saturated(slot, now)) {
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
    private boolean keptBySlowStart(String candidate, long now) {
        double factor = state.warmupFactor(candidate, now);
        if (factor >= 1.0) {
            return true;
        }
        double rank = selection.keyRank();
        return Double.isNaN(rank) ? state.slot(candidate).keepOffered(factor) : rank < factor;
    }

    private boolean wasTried(String agent) {
        return agent.equals(firstTried) || laterTried != null && laterTried.contains(agent);
    }

    private void markTried(String agent) {
        if (firstTried == null) {
            firstTried = agent;
        } else {
            if (laterTried == null) {
                laterTried = new HashSet<>(4);
            }
            laterTried.add(agent);
        }
    }

    private int triedCount() {
        return firstTried == null ? 0 : 1 + (laterTried == null ? 0 : laterTried.size());
    }

    private void completed(Attempt done, boolean sync) {
        String agent = done.agent();
        AgentSlot slot = done.slot();
        if (slot.inFlight.decrementAndGet() == 0 && (slot.removed || slot.draining)) {
            balancer.writer().lastRequestEnded(agent, slot);
        }
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
                outcome = state.answerRules.classify(status, retryAfter);
            }
        }
        balancer.loadReporting().read(agent, slot, attempt, outcome);
        try {
            balancer.attemptCompleted(agent, attempt, outcome, elapsedNanos);
        } catch (RuntimeException e) {
            LOG.debug("attemptCompleted failed for agent {}", agent, e);
        }
        balancer.listeners().attempt(balancer.strategyName(), agent, outcome, elapsedNanos);
        if (outcome == AttemptOutcome.BUSY) {
            busy(done, status, retryAfter, sync);
            return;
        }
        if (outcome == AttemptOutcome.ERROR_ANSWER) {
            Duration ejection = detector.onErrorAnswer(agent);
            if (ejection != null) {
                balancer.listeners().ejected(balancer.strategyName(),
                        new AgentFailure(agent, "error answer " + status, outcome, null), ejection);
            }
            finish(agent, attempt, sync);
            return;
        }
        if (!outcome.isFailure()) {
            // A cancelled call says nothing of the agent: it neither re-admits nor ejects.
            if (outcome != AttemptOutcome.CANCELLED && detector.onSuccess(agent, done.sentWhileEjected())) {
                balancer.writer().rampUp(agent);
                balancer.agentReadmitted(agent);
                balancer.listeners().readmitted(balancer.strategyName(), agent);
            }
            finish(agent, attempt, sync);
            return;
        }
        AgentFailure agentFailure = new AgentFailure(agent, AgentFailure.reasonOf(failure), outcome, failure);
        if (failures.isEmpty()) {
            failures = new ArrayList<>(2);
        }
        failures.add(agentFailure);
        Duration ejection = detector.onFailure(agent);
        if (ejection != null) {
            balancer.listeners().ejected(balancer.strategyName(), agentFailure, ejection);
        }
        if (!balancer.isRunAllowed() || !policy.mayFailOver(outcome, method())) {
            finish(agent, attempt, sync);
        } else if (!policy.allowsAnother(triedCount() - 1, balancer.nanoTime() - startNanos)) {
            giveUp(limitReached(), sync);
        } else {
            next(sync);
        }
    }

    /**
     * A busy answer: the agent rests, and the request goes to another agent when that is safe
     * ({@link AnswerRules}); else, or when no agent is left, the client gets the busy answer with
     * the shortest rest left among the agents as its {@code Retry-After}.
     */
    private void busy(Attempt done, int status, Object retryAfter, boolean sync) {
        Duration rest = state.answerRules.restOf(retryAfter, balancer.epochMillis());
        long until = balancer.nanoTime() + rest.toNanos();
        done.slot().restUntil = until;
        balancer.resting(until);
        DecisionLog.busy(balancer.strategyName(), done.agent(), status, rest);
        lastBusy = done;
        if (failures.isEmpty()) {
            failures = new ArrayList<>(2);
        }
        failures.add(new AgentFailure(done.agent(), "busy " + status, AttemptOutcome.BUSY, null));
        if (balancer.isRunAllowed() && state.answerRules.busyMayFailOver(status, method(), policy)
                && policy.allowsAnother(triedCount() - 1, balancer.nanoTime() - startNanos)) {
            next(sync);
        } else {
            finishBusy(sync);
        }
    }

    /** Ends the exchange with the last busy answer, its {@code Retry-After} the shortest rest left, whole seconds. */
    private void finishBusy(boolean sync) {
        Exchange answer = lastBusy.exchange();
        answer.getMessage().setHeader(AnswerRules.RETRY_AFTER, Long.toString(shortestRestSeconds()));
        finish(lastBusy.agent(), answer, sync);
    }

    /** The shortest rest left among the serving agents that rest, in whole seconds rounded up, at least 1. */
    private long shortestRestSeconds() {
        long now = balancer.nanoTime();
        long shortest = Long.MAX_VALUE;
        for (String agent : state.agentIds()) {
            AgentSlot slot = state.slot(agent);
            long left = slot == null || slot.restUntil == 0 ? 0 : slot.restUntil - now;
            if (left > 0) {
                shortest = Math.min(shortest, left);
            }
        }
        if (shortest == Long.MAX_VALUE) {
            return 1;
        }
        return Math.max(1, (shortest + 999_999_999L) / 1_000_000_000L);
    }

    private String method() {
        return exchange.getIn().getHeader(Exchange.HTTP_METHOD, String.class);
    }

    private String limitReached() {
        return policy.maximumFailoverAttempts() >= 0 && triedCount() - 1 >= policy.maximumFailoverAttempts()
                ? " (maximumFailoverAttempts=" + policy.maximumFailoverAttempts() + ")"
                : " (failoverDeadline=" + policy.deadline().toMillis() + " ms)";
    }

    /** Ends the exchange with the attempt's outcome: an answer, or a failure not to be retried. */
    private void finish(String agent, Exchange attempt, boolean sync) {
        if (affinity != null && attempt.getException() == null) {
            affinity.learned(agent, attempt.getMessage());
        }
        ExchangeHelper.copyResults(exchange, attempt);
        exchange.removeProperty(AttemptHooks.PROPERTY);
        exchange.setProperty(AgentLoadBalancerSupport.AGENT_PROPERTY, agent);
        exchange.setProperty(AgentLoadBalancerSupport.STRATEGY_PROPERTY, balancer.strategyName());
        done(sync);
    }

    private void giveUp(String why, boolean sync) {
        if (lastBusy != null) {
            finishBusy(sync);
            return;
        }
        if (restingSkipped) {
            long seconds = shortestRestSeconds();
            exchange.getMessage().setHeader(AnswerRules.RETRY_AFTER, Long.toString(seconds));
            exchange.setException(new AgentsBusyException("Every agent is busy: retry after " + seconds + " s", exchange, seconds));
            done(sync);
            return;
        }
        Set<String> ejected = detector.ejected();
        String message;
        if (triedCount() == 0) {
            message = "No agent available: the " + balancer.strategyName() + " balancer selected no agent";
        } else {
            message = "No agent available: " + triedCount() + " of " + state.agentIds().size() + " agents tried, each failed"
                    + why + ": " + failures.stream().map(AgentFailure::toString).collect(Collectors.joining(", "))
                    + (ejected.isEmpty() ? "" : "; ejected: " + String.join(", ", ejected));
        }
        Throwable last = failures.isEmpty() ? null : failures.get(failures.size() - 1).failure();
        exchange.setException(new NoAgentAvailableException(message, exchange, last, failures, ejected));
        done(sync);
    }

    @Override
    public Collection<String> requestHeaders() {
        return affinity == null ? NONE.requestHeaders() : List.of(LoadReports.FORMAT_HEADER, affinity.settings().header());
    }

    @Override
    public boolean isBusy(int status, String retryAfter) {
        return state.answerRules.isBusy(status, retryAfter);
    }

    @Override
    public String clientValue(String header, String value) {
        return affinity != null && affinity.settings().header().equalsIgnoreCase(header) ? affinity.clientId(current, value) : value;
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
        if (COMPLETION.compareAndSet(this, RUNNING, sync ? DONE_SYNC : DONE_ASYNC)) {
            callback.done(sync);
        }
    }
}
