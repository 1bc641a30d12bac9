package io.github.agentlb.core.health;

import io.github.agentlb.core.Check;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Random;

/**
 * Immutable configuration of active health checks ({@link HealthCheckStates}), after Envoy's HTTP
 * health checker and HAProxy's {@code check}: every {@link #interval()} (plus a random
 * {@link #jitter()}) each agent is asked {@code GET} {@link #path()}; an answer with
 * {@link #expectedStatus()} within {@link #timeout()} passes, anything else (another status, no
 * answer in time, a refused connection) fails. {@link #unhealthyThreshold()} failed probes in a
 * row mark an agent down (HAProxy's {@code fall}, Envoy's {@code unhealthy_threshold}),
 * {@link #healthyThreshold()} passed probes in a row mark it up again ({@code rise},
 * {@code healthy_threshold}). Agents start up. With {@link #endCallsWhenDown()}, marking an agent
 * down ends its calls whose answer has not begun (HAProxy's {@code on-marked-down shutdown-sessions}).
 *
 * <p>{@link #DISABLED} (no {@link #path()}) is off, the default. Each {@code with*} validates and
 * throws {@link IllegalArgumentException} naming the field and value. A record: thread-safe.
 *
 * @param path               the probe's path and query, starting with {@code /}; null when off
 * @param expectedStatus     the HTTP status that passes, 100..599 (default 200)
 * @param interval           between the end of one probe of an agent and the start of its next, &gt;= 1 ms (2 s)
 * @param jitter             a random extra delay in [0, jitter) added to each interval, &gt;= 0 (200 ms)
 * @param timeout            how long a probe may take, to the answer's status, &gt; 0 (1 s)
 * @param unhealthyThreshold failed probes in a row that mark an agent down, &gt;= 1 (2)
 * @param healthyThreshold   passed probes in a row that mark a down agent up, &gt;= 1 (2)
 * @param endCallsWhenDown   whether marking an agent down ends its calls still waiting for an answer (true)
 */
public record ActiveHealthCheck(String path, int expectedStatus, Duration interval, Duration jitter, Duration timeout,
                                int unhealthyThreshold, int healthyThreshold, boolean endCallsWhenDown) {

    /** Default expected status: 200, as Envoy's. */
    public static final int DEFAULT_EXPECTED_STATUS = 200;
    /** Default interval: 2 s, as HAProxy's {@code inter}. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(2);
    /** Default jitter: 200 ms, so that many balancers do not probe in step. */
    public static final Duration DEFAULT_JITTER = Duration.ofMillis(200);
    /** Default probe timeout: 1 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
    /** Default failed probes in a row that mark an agent down: 2. */
    public static final int DEFAULT_UNHEALTHY_THRESHOLD = 2;
    /** Default passed probes in a row that mark an agent up: 2, as HAProxy's {@code rise}. */
    public static final int DEFAULT_HEALTHY_THRESHOLD = 2;
    /** Off: no path, the other fields at their defaults. */
    public static final ActiveHealthCheck DISABLED = new ActiveHealthCheck(null, DEFAULT_EXPECTED_STATUS,
            DEFAULT_INTERVAL, DEFAULT_JITTER, DEFAULT_TIMEOUT, DEFAULT_UNHEALTHY_THRESHOLD, DEFAULT_HEALTHY_THRESHOLD, true);

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public ActiveHealthCheck {
        if (path != null && (path.isBlank() || path.charAt(0) != '/' || path.chars().anyMatch(c -> c <= ' ' || c >= 127))) {
            throw new IllegalArgumentException("healthCheckPath must start with / and hold printable ASCII only, was '" + path + "'");
        }
        if (path != null && !isUriPath(path)) {
            // Else no agent's health address could be made: none would be probed, unseen.
            throw new IllegalArgumentException("healthCheckPath must be a URI path (and query), characters outside it"
                    + " percent-encoded (%7C for |), was '" + path + "'");
        }
        Check.inRange("healthCheckExpectedStatus", expectedStatus, 100, 599);
        Check.period("healthCheckInterval", interval);
        Check.nonNegative("healthCheckJitter", jitter);
        Check.positive("healthCheckTimeout", timeout);
        Check.atLeast("healthCheckUnhealthyThreshold", unhealthyThreshold, 1);
        Check.atLeast("healthCheckHealthyThreshold", healthyThreshold, 1);
    }

    /** Whether {@code path} is a URI path, a query allowed, no fragment (RFC 3986, as {@link URI} parses it). */
    private static boolean isUriPath(String path) {
        try {
            return new URI("http://agent" + path).getRawFragment() == null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** The defaults, probing {@code path}. */
    public static ActiveHealthCheck of(String path) {
        return DISABLED.withPath(path);
    }

    /** @return whether probes run: a path is set */
    public boolean isEnabled() {
        return path != null;
    }

    /** @return whether probes run and marking an agent down ends its calls waiting for an answer */
    public boolean endsCalls() {
        return path != null && endCallsWhenDown;
    }

    /**
     * The delay before an agent's next probe, ns: the interval plus a uniform draw in [0, jitter).
     *
     * @param random the seeded source of the draw
     */
    public long nextDelayNanos(Random random) {
        long jitterNanos = jitter.toNanos();
        long delay = interval.toNanos() + (jitterNanos == 0 ? 0 : (long) (random.nextDouble() * jitterNanos));
        return delay < 0 ? Long.MAX_VALUE : delay; // an interval near the longest time, plus its jitter: never a wrap

    }

    /** @return a copy probing {@code value}; null turns the checks off */
    public ActiveHealthCheck withPath(String value) {
        return new ActiveHealthCheck(value, expectedStatus, interval, jitter, timeout, unhealthyThreshold, healthyThreshold, endCallsWhenDown);
    }

    /** @return a copy with another {@link #expectedStatus()} */
    public ActiveHealthCheck withExpectedStatus(int value) {
        return new ActiveHealthCheck(path, value, interval, jitter, timeout, unhealthyThreshold, healthyThreshold, endCallsWhenDown);
    }

    /** @return a copy with another {@link #interval()} */
    public ActiveHealthCheck withInterval(Duration value) {
        return new ActiveHealthCheck(path, expectedStatus, value, jitter, timeout, unhealthyThreshold, healthyThreshold, endCallsWhenDown);
    }

    /** @return a copy with another {@link #jitter()} */
    public ActiveHealthCheck withJitter(Duration value) {
        return new ActiveHealthCheck(path, expectedStatus, interval, value, timeout, unhealthyThreshold, healthyThreshold, endCallsWhenDown);
    }

    /** @return a copy with another {@link #timeout()} */
    public ActiveHealthCheck withTimeout(Duration value) {
        return new ActiveHealthCheck(path, expectedStatus, interval, jitter, value, unhealthyThreshold, healthyThreshold, endCallsWhenDown);
    }

    /** @return a copy with another {@link #unhealthyThreshold()} */
    public ActiveHealthCheck withUnhealthyThreshold(int value) {
        return new ActiveHealthCheck(path, expectedStatus, interval, jitter, timeout, value, healthyThreshold, endCallsWhenDown);
    }

    /** @return a copy with another {@link #healthyThreshold()} */
    public ActiveHealthCheck withHealthyThreshold(int value) {
        return new ActiveHealthCheck(path, expectedStatus, interval, jitter, timeout, unhealthyThreshold, value, endCallsWhenDown);
    }

    /** @return a copy with another {@link #endCallsWhenDown()} */
    public ActiveHealthCheck withEndCallsWhenDown(boolean value) {
        return new ActiveHealthCheck(path, expectedStatus, interval, jitter, timeout, unhealthyThreshold, healthyThreshold, value);
    }
}
