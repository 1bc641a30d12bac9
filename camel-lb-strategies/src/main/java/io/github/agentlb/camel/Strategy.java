package io.github.agentlb.camel;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;

/**
 * How a balancer picks agents: the one part that differs between {@code rr}, {@code lr},
 * {@code pid}, {@code ch} and {@code avn}. Everything else (members, failover, outlier ejection,
 * slow start, drains, sessions, load reports, listeners, the Camel face) is the balancer's, the same
 * for every strategy ({@link AgentLoadBalancerSupport}).
 *
 * <p>The balancer's one writer calls {@link #configure}, {@link #agentsChanged} and
 * {@link #newPicker} under its lock, one after another, for each new state; a hook that throws
 * rejects the change, so it must change nothing first. {@link #newPicker} captures what it decides
 * with (a ring, a rotation, a schedule) so that a decision reads one state only. The attempt hooks
 * run on the request path, on any thread, concurrently: they must be fast, thread-safe and not
 * block. A strategy instance serves one balancer.
 */
public interface Strategy {

    /** @return the short name for logs and metrics, e.g. {@code rr} or {@code ch} */
    String name();

    /**
     * Builds the picker of a new state: called by the writer for each change, before requests see
     * the state. Ids the picker returns that are not serving agents of the state are skipped; so
     * are repeated ids.
     *
     * @param state the new state, every part but its picker: serving agents ({@link BalancerState#agentIds()},
     *              possibly none), weights, configuration
     */
    Picker newPicker(BalancerState state);

    /**
     * Called first for each new state, before every other hook and before any store is rebuilt:
     * refuses a configuration and weights the strategy cannot serve (a ring too large), so that the
     * change is refused and nothing changes.
     *
     * @param config  the new state's configuration
     * @param serving the serving agents' ids, in member order
     * @param weights static weights by id; an agent absent has {@link io.github.agentlb.core.fleet.AgentSpec#DEFAULT_WEIGHT}
     * @throws IllegalArgumentException naming the knob and the value
     */
    default void check(BalancerConfig config, List<String> serving, Map<String, Double> weights) {
    }

    /**
     * Called before {@link #newPicker} when the configuration changed (also at the first state),
     * for strategies that build learned state from their part of it.
     */
    default void configure(BalancerConfig config) {
    }

    /**
     * Called when the set of serving agents changes (including the first child added, a drain and
     * at start), before requests see the new state and before {@link #newPicker}. Strategies with
     * learned per-agent state follow the membership here.
     *
     * @param agentIds the new serving agent ids in child order; possibly empty
     */
    default void agentsChanged(List<String> agentIds) {
    }

    /** Called once, when the balancer is made, with what the strategy may use of it (a new picker, its clock, ...). */
    default void attach(StrategyContext context) {
    }

    /** Called when the balancer starts (its CamelContext is set then). */
    default void start() throws Exception {
    }

    /** Called when the balancer stops. */
    default void stop() throws Exception {
    }

    /** Called just before an attempt is sent to {@code agentId}. */
    default void attemptStarted(String agentId, Exchange attempt) {
    }

    /**
     * Called when an attempt on {@code agentId} has completed, before the failover decision:
     * strategies read load reports from an answer here and count failures as load.
     *
     * @param outcome      how the attempt ended
     * @param elapsedNanos the time the attempt took, ns; 0 unless {@link #needsAttemptTimes()}
     * @param selection    the exchange's selection, with the {@link Selection#token() token} its picker gave
     */
    default void attemptCompleted(String agentId, Exchange attempt, AttemptOutcome outcome, long elapsedNanos,
            Selection selection) {
    }

    /** @return whether {@link #attemptCompleted} reads the attempt's time (the clock is read only then, or for listeners) */
    default boolean needsAttemptTimes() {
        return false;
    }

    /** Called when outlier ejection re-admits {@code agentId} (its trial answered): restart it from neutral. */
    default void agentReadmitted(String agentId) {
    }

    /**
     * The headers an agent reports load in (e.g. {@code X-Agent-Utilization}): removed from each
     * attempt before it is sent, so only the agent's own answer can carry them.
     */
    default Collection<String> reportHeaders() {
        return List.of();
    }

    /** Per-agent figures for metrics: a name (e.g. {@code weight}) to agent id to its value; a cheap snapshot. */
    default Map<String, Map<String, Double>> agentMetrics() {
        return Map.of();
    }

    /** Balancer-wide figures for metrics (e.g. {@code imbalance.index}). */
    default Map<String, Double> balancerMetrics() {
        return Map.of();
    }
}
