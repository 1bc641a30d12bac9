package io.github.agentlb.camel;

import io.github.agentlb.core.Durations;
import io.github.agentlb.core.health.ActiveHealthCheck;
import java.time.Duration;
import java.util.Objects;

/**
 * The knobs of active health checks, on every balancer: the JavaBean face of
 * {@link BalancerConfig#healthCheck()} (when a knob takes effect: {@link Configurable}; a running
 * balancer starts, re-times or stops its probes at the next probe of each agent).
 *
 * <h2>Active health checks</h2>
 * Off by default; {@link #setHealthCheckPath} turns them on. Every {@code healthCheckInterval}
 * (2 s, plus up to {@code healthCheckJitter}, 200 ms) each agent whose endpoint URI holds an
 * {@code http://} or {@code https://} address is asked {@code GET <scheme://host:port><path>}; the
 * status {@code healthCheckExpectedStatus} (200) within {@code healthCheckTimeout} (1 s) passes,
 * anything else fails. {@code healthCheckUnhealthyThreshold} (2) failures in a row mark the agent
 * down: no request goes to it, not even as the last agent left (all down: {@link NoAgentAvailableException}
 * at once), and, with {@code healthCheckEndCalls} (true), its calls whose answer has not begun are
 * ended: an idempotent one goes to another agent, any other fails (a streaming child's
 * {@link AttemptHooks#whenAgentDown}). {@code healthCheckHealthyThreshold} (2) passes in a row mark
 * it up again, which also ends a passive ejection. All probes run on one scheduler thread
 * ({@link HealthChecks}); marks are reported to the {@link HealthListener}s as ejections (for
 * {@code Duration.ZERO}) and re-admissions, and {@link RuntimeMembership#getEjectedAgents()} lists
 * agents marked down.
 */
public interface HealthCheckSettings extends Configurable {

    /** @return the active health checks in use ({@link ActiveHealthCheck#DISABLED} unless set) */
    default ActiveHealthCheck getHealthCheck() {
        return balancerConfig().healthCheck();
    }

    /** Sets the active health checks whole; {@link ActiveHealthCheck#DISABLED} turns them off. */
    default void setHealthCheck(ActiveHealthCheck healthCheck) {
        Objects.requireNonNull(healthCheck, "healthCheck");
        configure("healthCheck", healthCheck, d -> d.healthCheck(healthCheck));
    }

    /**
     * The probe's path, e.g. {@code /health}; setting it turns the checks on, {@code none} (or null)
     * off. An empty or blank value is refused, as any path not starting with {@code /}: left empty
     * by mistake it would turn hung-agent detection off unseen.
     */
    default void setHealthCheckPath(String path) {
        String value = path == null || path.equalsIgnoreCase("none") ? null : path;
        configure("healthCheckPath", path, d -> d.healthCheck(d.healthCheck().withPath(value)));
    }

    default String getHealthCheckPath() {
        return getHealthCheck().path();
    }

    /** The status that passes, 100..599, default 200. */
    default void setHealthCheckExpectedStatus(int status) {
        configure("healthCheckExpectedStatus", status, d -> d.healthCheck(d.healthCheck().withExpectedStatus(status)));
    }

    default int getHealthCheckExpectedStatus() {
        return getHealthCheck().expectedStatus();
    }

    /** Between the end of an agent's probe and the start of its next, > 0, default 2 s. */
    default void setHealthCheckInterval(Duration interval) {
        configure("healthCheckInterval", interval, d -> d.healthCheck(d.healthCheck().withInterval(interval)));
    }

    /** {@link #setHealthCheckInterval(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setHealthCheckInterval(String interval) {
        setHealthCheckInterval(Durations.parse("healthCheckInterval", interval));
    }

    default Duration getHealthCheckInterval() {
        return getHealthCheck().interval();
    }

    /** The largest random extra delay added to each interval, >= 0, default 200 ms. */
    default void setHealthCheckJitter(Duration jitter) {
        configure("healthCheckJitter", jitter, d -> d.healthCheck(d.healthCheck().withJitter(jitter)));
    }

    /** {@link #setHealthCheckJitter(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setHealthCheckJitter(String jitter) {
        setHealthCheckJitter(Durations.parse("healthCheckJitter", jitter));
    }

    default Duration getHealthCheckJitter() {
        return getHealthCheck().jitter();
    }

    /** How long a probe may take to its answer's status, > 0, default 1 s. */
    default void setHealthCheckTimeout(Duration timeout) {
        configure("healthCheckTimeout", timeout, d -> d.healthCheck(d.healthCheck().withTimeout(timeout)));
    }

    /** {@link #setHealthCheckTimeout(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setHealthCheckTimeout(String timeout) {
        setHealthCheckTimeout(Durations.parse("healthCheckTimeout", timeout));
    }

    default Duration getHealthCheckTimeout() {
        return getHealthCheck().timeout();
    }

    /** Failed probes in a row that mark an agent down, >= 1, default 2. */
    default void setHealthCheckUnhealthyThreshold(int threshold) {
        configure("healthCheckUnhealthyThreshold", threshold,
                d -> d.healthCheck(d.healthCheck().withUnhealthyThreshold(threshold)));
    }

    default int getHealthCheckUnhealthyThreshold() {
        return getHealthCheck().unhealthyThreshold();
    }

    /** Passed probes in a row that mark a down agent up, >= 1, default 2. */
    default void setHealthCheckHealthyThreshold(int threshold) {
        configure("healthCheckHealthyThreshold", threshold,
                d -> d.healthCheck(d.healthCheck().withHealthyThreshold(threshold)));
    }

    default int getHealthCheckHealthyThreshold() {
        return getHealthCheck().healthyThreshold();
    }

    /** Whether marking an agent down ends its calls whose answer has not begun, default true. */
    default void setHealthCheckEndCalls(boolean endCalls) {
        configure("healthCheckEndCalls", endCalls, d -> d.healthCheck(d.healthCheck().withEndCallsWhenDown(endCalls)));
    }

    default boolean isHealthCheckEndCalls() {
        return getHealthCheck().endCallsWhenDown();
    }
}
