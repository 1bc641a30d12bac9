package io.github.agentlb.core.orca;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.Objects;

/**
 * When a load report marks an agent as saturated, after the saturation detector of the Kubernetes
 * Gateway API inference extension ({@code pkg/epp/saturationdetector}): an agent whose fresh
 * report says more than {@link #queueDepth()} requests wait in its queue, or more than
 * {@link #kvCacheUsage()} of its KV cache is in use, has no room for a new request. Defaults are
 * the extension's: {@value #DEFAULT_QUEUE_DEPTH} requests, {@value #DEFAULT_KV_CACHE_USAGE}, and
 * a report older than {@link #DEFAULT_STALENESS} (200 ms, its
 * {@code DefaultMetricsStalenessThreshold}, chosen there slightly above a 50 ms refresh) says
 * nothing.
 *
 * <p>Where this differs from the extension, on purpose: a stale or missing report marks the agent
 * as <em>not</em> saturated (the extension counts a stale pod as without capacity). Here reports
 * come only with answers, so an agent kept off by its last report would never answer again: once
 * its report is {@link #staleness()} old, it gets a request, and so a new report.
 *
 * <p>A metric the report does not carry does not count: a report with only
 * {@code kv_cache_usage_perc} is judged by that alone. {@link #disabled()} marks no agent.
 *
 * @param enabled      whether reports mark agents as saturated at all
 * @param queueDepth   requests waiting ({@code num_requests_waiting}) above which an agent is
 *                     saturated, >= 0
 * @param kvCacheUsage KV cache in use ({@code kv_cache_usage_perc}), fraction in [0, 1], above
 *                     which an agent is saturated
 * @param staleness    age, > 0, beyond which a report says nothing (also for other uses of
 *                     reports that need them fresh)
 */
public record Saturation(boolean enabled, int queueDepth, double kvCacheUsage, Duration staleness) {

    /** The extension's {@code DefaultQueueDepthThreshold}: 5 requests waiting. */
    public static final int DEFAULT_QUEUE_DEPTH = 5;
    /** The extension's {@code DefaultKVCacheUtilThreshold}: 0.8 of the KV cache. */
    public static final double DEFAULT_KV_CACHE_USAGE = 0.8;
    /** The extension's {@code DefaultMetricsStalenessThreshold}: 200 ms. */
    public static final Duration DEFAULT_STALENESS = Duration.ofMillis(200);

    private static final Saturation DEFAULTS = custom().build();
    private static final Saturation DISABLED = custom().enabled(false).build();

    /**
     * @throws IllegalArgumentException naming the field and value, if one is out of range
     * @throws NullPointerException     if {@code staleness} is null
     */
    public Saturation {
        Objects.requireNonNull(staleness, "staleness");
        Check.atLeast("queueDepth", queueDepth, 0);
        Check.fraction("kvCacheUsage", kvCacheUsage);
        Check.positive("staleness", staleness);
    }

    /** @return the extension's defaults: 5 waiting, 0.8 of the KV cache, reports fresh for 200 ms */
    public static Saturation ofDefaults() {
        return DEFAULTS;
    }

    /** @return a configuration that marks no agent (the default thresholds kept, for {@link #staleness()}) */
    public static Saturation disabled() {
        return DISABLED;
    }

    /** @return a builder starting from the defaults */
    public static Builder custom() {
        return new Builder();
    }

    /** @return a builder starting from this configuration */
    public Builder toBuilder() {
        return new Builder().enabled(enabled).queueDepth(queueDepth).kvCacheUsage(kvCacheUsage).staleness(staleness);
    }

    /**
     * Whether {@code report}, received {@code ageNanos} ago, marks its agent as saturated: enabled,
     * at most {@link #staleness()} old, and more requests waiting than {@link #queueDepth()} or
     * more KV cache in use than {@link #kvCacheUsage()}.
     *
     * @param report   the agent's latest report; null for none
     * @param ageNanos the report's age, ns (>= 0)
     */
    public boolean isSaturated(LoadReport report, long ageNanos) {
        if (!enabled || report == null || !isFresh(ageNanos)) {
            return false;
        }
        return report.requestsWaiting() > queueDepth || report.kvCacheUsage() > kvCacheUsage;
    }

    /**
     * How many times {@link #staleness()} a report may be old and still say, for the question
     * whether every agent is saturated, that its agent was: reports come with answers, so an agent
     * that answered a moment ago has none fresh, and one user's requests would otherwise rotate over
     * agents all saturated, each sent on to the one whose report had just gone stale.
     */
    public static final int LAST_KNOWN_STALENESS_FACTOR = 5;

    /**
     * Whether {@code report}, received {@code ageNanos} ago, said its agent was saturated and is at
     * most {@value #LAST_KNOWN_STALENESS_FACTOR} x {@link #staleness()} old: the last known state, for
     * the question whether every agent is saturated (a report past the staleness passes no agent over).
     */
    public boolean wasSaturated(LoadReport report, long ageNanos) {
        return isSaturated(report, 0) && ageNanos <= LAST_KNOWN_STALENESS_FACTOR * staleness.toNanos();
    }

    /** @return whether a report {@code ageNanos} old is at most {@link #staleness()} old */
    public boolean isFresh(long ageNanos) {
        return ageNanos <= staleness.toNanos();
    }

    /** Builds a {@link Saturation}; each setter checks its value at once. Not thread-safe. */
    public static final class Builder {
        private boolean enabled = true;
        private int queueDepth = DEFAULT_QUEUE_DEPTH;
        private double kvCacheUsage = DEFAULT_KV_CACHE_USAGE;
        private Duration staleness = DEFAULT_STALENESS;

        private Builder() {
        }

        /** Whether reports mark agents as saturated; default true. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** @throws IllegalArgumentException if negative */
        public Builder queueDepth(int queueDepth) {
            this.queueDepth = Check.atLeast("queueDepth", queueDepth, 0);
            return this;
        }

        /** @throws IllegalArgumentException if not in [0, 1] */
        public Builder kvCacheUsage(double kvCacheUsage) {
            this.kvCacheUsage = Check.fraction("kvCacheUsage", kvCacheUsage);
            return this;
        }

        /** @throws IllegalArgumentException if null, zero or negative */
        public Builder staleness(Duration staleness) {
            this.staleness = Check.positive("staleness", staleness);
            return this;
        }

        public Saturation build() {
            return new Saturation(enabled, queueDepth, kvCacheUsage, staleness);
        }
    }
}
