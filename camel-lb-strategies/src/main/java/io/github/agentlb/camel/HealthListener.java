package io.github.agentlb.camel;

import java.time.Duration;

/**
 * Told when a balancer ejects an agent or re-admits it ({@link io.github.agentlb.core.health.OutlierDetector}),
 * for example by a metrics binder or a load test's timeline. Called on the request path of the
 * exchange whose attempt decided it: must be fast and not block. Default methods do nothing.
 */
public interface HealthListener {

    /**
     * @param agentId      the agent ejected
     * @param ejectionTime how long it stays ejected before its trial request
     */
    default void agentEjected(String agentId, Duration ejectionTime) {
    }

    /** @param agentId the agent re-admitted after a successful trial (or an answer while ejected), or marked up by health checks */
    default void agentReadmitted(String agentId) {
    }

    /**
     * One active health check of an agent ended ({@link HealthCheckSettings}); called on the
     * health checks' thread. A mark down is also told as {@link #agentEjected} with
     * {@link Duration#ZERO} (until marked up), a mark up as {@link #agentReadmitted}.
     *
     * @param agentId the agent probed
     * @param passed  whether it answered the expected status in time
     */
    default void agentProbed(String agentId, boolean passed) {
    }
}
