package io.github.agentlb.camel;

import io.github.agentlb.core.health.OutlierDetector;
import io.github.agentlb.core.health.OutlierDetector.Admission;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
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
 * The attempts of one exchange: pick the next candidate (skipping ejected agents, which are tried
 * last), send a fresh copy, classify the outcome, feed outlier ejection, then fail over or
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
 * {@code callback.done(false)}. Scheduling every step, as before issue 9, cost two executor tasks,
 * their lambdas and an executor round trip per decision for nothing: the executor runs a task at
 * once on a thread that is not already running one.
 *
 * <h2>What a decision allocates</h2>
 * This object and one {@link Attempt} per attempt (the child's callback and, when the answer is
 * asynchronous, the executor's task), besides the exchange copy: no lambdas and no atomic boxes.
 * Most exchanges make one attempt: the first agent is a field, the set of agents tried and the
 * failure list are created at the first failover only.
 */
final class Attempts {

    private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);
    private static final VarHandle STATE;
    private static final int RUNNING = 0;
    private static final int DONE_SYNC = 1;
    private static final int DONE_ASYNC = 2;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Attempts.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AgentLoadBalancerSupport balancer;
    private final Exchange exchange;
    private final AsyncCallback callback;
    private final Membership.Members members;
    private final Selection selection;
    private final OutlierDetector detector;
    private final FailoverPolicy policy;
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
    /** {@link #RUNNING} until the callback is called, then how: read and set through {@link #STATE}. */
    @SuppressWarnings("unused")
    private volatile int state;

    Attempts(AgentLoadBalancerSupport balancer, Exchange exchange, AsyncCallback callback,
            Membership.Members members, Selection selection) {
        this.balancer = balancer;
        this.exchange = exchange;
        this.callback = callback;
        this.members = members;
        this.selection = selection;
        this.detector = balancer.detector();
        this.policy = balancer.getFailoverPolicy();
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
        return state == DONE_SYNC;
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
                        screen ? detector.ejected() : Set.of());
            } else {
                DecisionLog.failover(exchange, balancer.strategyName(), agent, failures.get(failures.size() - 1), trial);
            }
        }
        Exchange copy = ExchangeHelper.createCopy(exchange, true);
        for (String header : balancer.reportHeaders()) {
            copy.getIn().removeHeader(header);
        }
        long now = timed ? balancer.nanoTime() : 0L;
        if (laterTried == null) {
            startNanos = now;
        }
        Attempt attempt = new Attempt(this, agent, copy, sync, now);
        try {
            balancer.attemptStarted(agent, copy);
            members.byId().get(agent).process(copy, attempt);
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

    /** Hands the answer of {@code attempt} to the reactive executor of the calling thread. */
    void schedule(Attempt attempt) {
        exchange.getContext().getCamelContextExtension().getReactiveExecutor().schedule(attempt);
    }

    /** The next untried member: available ones in the strategy's order, then ejected ones (panic). */
    private String nextCandidate(boolean screen) {
        Iterator<String> candidates = selection.candidates();
        while (candidates.hasNext()) {
            String candidate = candidates.next();
            if (!members.byId().containsKey(candidate) || wasTried(candidate)) {
                continue;
            }
            if (screen && detector.admit(candidate) == Admission.EJECTED) {
                if (ejectedCandidates == null) {
                    ejectedCandidates = new LinkedHashSet<>();
                }
                ejectedCandidates.add(candidate);
                continue;
            }
            markTried(candidate);
            return candidate;
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
        Exchange attempt = done.exchange();
        long elapsedNanos = done.elapsedNanos();
        Exception failure = attempt.getException();
        AttemptOutcome outcome = FailureClassifier.classify(failure);
        try {
            balancer.attemptCompleted(agent, attempt, outcome, elapsedNanos);
        } catch (RuntimeException e) {
            LOG.debug("attemptCompleted failed for agent {}", agent, e);
        }
        balancer.listeners().attempt(balancer.strategyName(), agent, outcome, elapsedNanos);
        if (!outcome.isFailure()) {
            // A cancelled call says nothing of the agent: it neither re-admits nor ejects.
            if (outcome != AttemptOutcome.CANCELLED && detector.onSuccess(agent)) {
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
        ExchangeHelper.copyResults(exchange, attempt);
        exchange.setProperty(AgentLoadBalancerSupport.AGENT_PROPERTY, agent);
        exchange.setProperty(AgentLoadBalancerSupport.STRATEGY_PROPERTY, balancer.strategyName());
        done(sync);
    }

    private void giveUp(String why, boolean sync) {
        Set<String> ejected = detector.ejected();
        String message;
        if (triedCount() == 0) {
            message = "No agent available: the " + balancer.strategyName() + " balancer selected no agent";
        } else {
            message = "No agent available: " + triedCount() + " of " + members.ids().size() + " agents tried, each failed"
                    + why + ": " + failures.stream().map(AgentFailure::toString).collect(Collectors.joining(", "))
                    + (ejected.isEmpty() ? "" : "; ejected: " + String.join(", ", ejected));
        }
        Throwable last = failures.isEmpty() ? null : failures.get(failures.size() - 1).failure();
        exchange.setException(new NoAgentAvailableException(message, exchange, last, failures, ejected));
        done(sync);
    }

    private void fail(Throwable t, boolean sync) {
        if (state != RUNNING) {
            LOG.debug("Failure after exchange {} completed", exchange.getExchangeId(), t);
            return;
        }
        exchange.setException(t instanceof Exception e ? e
                : new CamelExchangeException("Balancer failed: " + t, exchange, t));
        done(sync);
    }

    private void done(boolean sync) {
        if (STATE.compareAndSet(this, RUNNING, sync ? DONE_SYNC : DONE_ASYNC)) {
            callback.done(sync);
        }
    }
}
