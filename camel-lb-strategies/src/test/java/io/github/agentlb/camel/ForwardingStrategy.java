package io.github.agentlb.camel;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;

/** A strategy that does what {@code delegate} does, for tests that change one hook of a real strategy. */
class ForwardingStrategy implements Strategy {

    private final Strategy delegate;

    ForwardingStrategy(Strategy delegate) {
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public Picker newPicker(BalancerState state) {
        return delegate.newPicker(state);
    }

    @Override
    public void check(BalancerConfig config, List<String> serving, Map<String, Double> weights) {
        delegate.check(config, serving, weights);
    }

    @Override
    public void configure(BalancerConfig config) {
        delegate.configure(config);
    }

    @Override
    public void agentsChanged(List<String> agentIds) {
        delegate.agentsChanged(agentIds);
    }

    @Override
    public void attach(StrategyContext context) {
        delegate.attach(context);
    }

    @Override
    public void start() throws Exception {
        delegate.start();
    }

    @Override
    public void stop() throws Exception {
        delegate.stop();
    }

    @Override
    public void attemptStarted(String agentId, Exchange attempt) {
        delegate.attemptStarted(agentId, attempt);
    }

    @Override
    public void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos,
            Selection selection) {
        delegate.attemptCompleted(agentId, attempt, outcome, elapsedNanos, selection);
    }

    @Override
    public boolean needsAttemptTimes() {
        return delegate.needsAttemptTimes();
    }

    @Override
    public void agentReadmitted(String agentId) {
        delegate.agentReadmitted(agentId);
    }

    @Override
    public Collection<String> reportHeaders() {
        return delegate.reportHeaders();
    }

    @Override
    public Map<String, Map<String, Double>> agentMetrics() {
        return delegate.agentMetrics();
    }

    @Override
    public Map<String, Double> balancerMetrics() {
        return delegate.balancerMetrics();
    }
}
