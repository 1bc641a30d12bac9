package io.github.agentlb.camel;

import io.github.agentlb.core.health.OutlierDetector;
import io.github.agentlb.core.health.OutlierDetector.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * finish. Each step runs on Camel's reactive executor inside one guard: whatever throws fails the
 * exchange, and the callback runs exactly once. Not thread-safe; steps run one after another.
 */
final class Attempts {

    private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);

    private final AgentLoadBalancerSupport balancer;
    private final Exchange exchange;
    private final AsyncCallback callback;
    private final Membership.Members members;
    private final Selection selection;
    private final OutlierDetector detector;
    private final FailoverPolicy policy;
    private final long startNanos;
    // Most exchanges make one attempt: the first agent is a field, the set and the failure list
    // are created at the first failover only.
    private String firstTried;
    private Set<String> laterTried;
    private List<AgentFailure> failures = List.of();
    private final AtomicBoolean finished = new AtomicBoolean();
    private Set<String> ejectedCandidates;

    Attempts(AgentLoadBalancerSupport balancer, Exchange exchange, AsyncCallback callback,
            Membership.Members members, Selection selection) {
        this.balancer = balancer;
        this.exchange = exchange;
        this.callback = callback;
        this.members = members;
        this.selection = selection;
        this.detector = balancer.detector();
        this.policy = balancer.getFailoverPolicy();
        this.startNanos = balancer.nanoTime();
    }

    /** Schedules the first attempt. */
    void start() {
        schedule(this::next);
    }

    private void schedule(Runnable step) {
        exchange.getContext().getCamelContextExtension().getReactiveExecutor().schedule(() -> guarded(step));
    }

    private void guarded(Runnable step) {
        try {
            step.run();
        } catch (Throwable t) {
            fail(t);
        }
    }

    private void next() {
        boolean screen = detector.hasEjections();
        String agent = nextCandidate(screen);
        if (agent == null) {
            giveUp("");
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
        Exchange attempt = ExchangeHelper.createCopy(exchange, true);
        for (String header : balancer.reportHeaders()) {
            attempt.getIn().removeHeader(header);
        }
        long start = balancer.nanoTime();
        AtomicBoolean answered = new AtomicBoolean();
        try {
            balancer.attemptStarted(agent, attempt);
            members.byId().get(agent).process(attempt, doneSync -> {
                if (answered.compareAndSet(false, true)) {
                    long elapsed = balancer.nanoTime() - start;
                    if (doneSync) {
                        // Already on this step's thread: no second hop through the executor.
                        guarded(() -> completed(agent, attempt, elapsed));
                    } else {
                        schedule(() -> completed(agent, attempt, elapsed));
                    }
                }
            });
        } catch (RuntimeException e) {
            if (answered.compareAndSet(false, true)) {
                attempt.setException(e);
                completed(agent, attempt, balancer.nanoTime() - start);
            }
        }
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

    private void completed(String agent, Exchange attempt, long elapsedNanos) {
        Exception failure = attempt.getException();
        AttemptOutcome outcome = FailureClassifier.classify(failure);
        try {
            balancer.attemptCompleted(agent, attempt, outcome, elapsedNanos);
        } catch (RuntimeException e) {
            LOG.debug("attemptCompleted failed for agent {}", agent, e);
        }
        balancer.listeners().attempt(balancer.strategyName(), agent, outcome, elapsedNanos);
        if (!outcome.isFailure()) {
            if (detector.onSuccess(agent)) {
                balancer.agentReadmitted(agent);
                balancer.listeners().readmitted(balancer.strategyName(), agent);
            }
            finish(agent, attempt);
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
            finish(agent, attempt);
        } else if (!policy.allowsAnother(triedCount() - 1, balancer.nanoTime() - startNanos)) {
            giveUp(limitReached());
        } else {
            next();
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
    private void finish(String agent, Exchange attempt) {
        ExchangeHelper.copyResults(exchange, attempt);
        exchange.setProperty(AgentLoadBalancerSupport.AGENT_PROPERTY, agent);
        exchange.setProperty(AgentLoadBalancerSupport.STRATEGY_PROPERTY, balancer.strategyName());
        done();
    }

    private void giveUp(String why) {
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
        done();
    }

    private void fail(Throwable t) {
        if (finished.get()) {
            LOG.debug("Failure after exchange {} completed", exchange.getExchangeId(), t);
            return;
        }
        exchange.setException(t instanceof Exception e ? e
                : new CamelExchangeException("Balancer failed: " + t, exchange, t));
        done();
    }

    private void done() {
        if (finished.compareAndSet(false, true)) {
            callback.done(false);
        }
    }
}
