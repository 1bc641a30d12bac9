package io.github.agentlb.core.health;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.RelationException;
import java.time.Duration;

/**
 * Immutable configuration of passive outlier ejection ({@link OutlierDetector}), validated when
 * built: every setter of the {@link Builder} throws {@link IllegalArgumentException} naming the
 * field and the bad value.
 *
 * <p>The knobs are those of nginx's upstream module ({@code max_fails}, {@code fail_timeout}) and
 * Envoy's outlier detection ({@code consecutive_gateway_failure}, {@code base_ejection_time},
 * {@code max_ejection_time}, {@code max_ejection_percent}):
 * <ul>
 *   <li>{@link #consecutiveFailures()}: an agent whose attempts fail this many times in a row
 *       (connection refused, connect or answer timeout, reset, closed without answer; an HTTP
 *       error answer is an answer and does not count) is ejected. Default 1, as nginx's
 *       {@code max_fails=1}.</li>
 *   <li>{@link #baseEjectionTime()}: the first ejection lasts this long; each further ejection of
 *       the same agent doubles it, up to {@link #maxEjectionTime()}. Default 10 s (nginx's
 *       {@code fail_timeout}) and 300 s (Envoy's {@code max_ejection_time}). Every
 *       {@code baseEjectionTime} an agent stays healthy forgets one doubling, as Envoy does.</li>
 *   <li>{@link #consecutiveErrorAnswers()}: an agent that answers this many error answers in a
 *       row (a 5xx of the balancer's error statuses, while it accepts connections: a gray
 *       failure) is ejected too. Default 5, as Envoy's {@code consecutive_5xx}; 0 turns it off.
 *       Counted apart from failures to answer; any other answer resets it.</li>
 *   <li>{@link #maxEjectedShare()}: at most {@code floor(share x agents)} agents are ejected at
 *       once, and never the last one: fraction 0..1, default 1.0 (all but one).</li>
 * </ul>
 * When its time is up an ejected agent is re-admitted on trial: the next request that would go
 * to it is sent (exactly one at a time); success re-admits it, failure ejects it again for the
 * doubled time. An answer to a request sent to it while it was ejected (its trial, or as the
 * last agent left) re-admits it; an answer to a request sent before the ejection does not.
 *
 * <p>{@link #disabled()} turns ejection off; failover still happens per request. A record, so
 * thread-safe.
 *
 * @param consecutiveFailures     consecutive failed attempts that eject an agent, >= 1
 * @param consecutiveErrorAnswers error answers in a row that eject an agent, >= 0; 0 when error answers never eject
 * @param baseEjectionTime        the first ejection's length, > 0
 * @param maxEjectionTime         the cap on an ejection's length, >= {@code baseEjectionTime}
 * @param maxEjectedShare         the largest share of agents ejected at once, fraction 0..1
 */
public record OutlierEjection(int consecutiveFailures, int consecutiveErrorAnswers, Duration baseEjectionTime,
                              Duration maxEjectionTime, double maxEjectedShare) {

    /** Default consecutive failures that eject an agent: 1, as nginx's {@code max_fails}. */
    public static final int DEFAULT_CONSECUTIVE_FAILURES = 1;
    /** Default consecutive error answers that eject an agent: 5, as Envoy's {@code consecutive_5xx}. */
    public static final int DEFAULT_CONSECUTIVE_ERROR_ANSWERS = 5;
    /** Default first ejection time: 10 s, as nginx's {@code fail_timeout}. */
    public static final Duration DEFAULT_BASE_EJECTION_TIME = Duration.ofSeconds(10);
    /** Default longest ejection time: 300 s, as Envoy's {@code max_ejection_time}. */
    public static final Duration DEFAULT_MAX_EJECTION_TIME = Duration.ofSeconds(300);
    /** Default largest share of agents ejected at once: 1.0 (all but the last one). */
    public static final double DEFAULT_MAX_EJECTED_SHARE = 1.0;

    private static final OutlierEjection DEFAULTS = custom().build();
    private static final OutlierEjection DISABLED = custom().maxEjectedShare(0).build();

    /**
     * Checks every value by the {@link Builder}'s setter of the same name, then that
     * {@code maxEjectionTime >= baseEjectionTime}.
     *
     * @throws IllegalArgumentException naming the field and the bad value
     */
    public OutlierEjection {
        custom().consecutiveFailures(consecutiveFailures).consecutiveErrorAnswers(consecutiveErrorAnswers)
                .baseEjectionTime(baseEjectionTime).maxEjectionTime(maxEjectionTime).maxEjectedShare(maxEjectedShare);
        if (maxEjectionTime.compareTo(baseEjectionTime) < 0) {
            throw new RelationException("maxEjectionTime", ">=", "baseEjectionTime", baseEjectionTime, maxEjectionTime);
        }
    }

    /** @return a builder initialised with the defaults */
    public static Builder custom() {
        return new Builder();
    }

    /** @return the default configuration: 1 failure ejects for 10 s, doubling up to 300 s */
    public static OutlierEjection ofDefaults() {
        return DEFAULTS;
    }

    /** @return a configuration that never ejects ({@code maxEjectedShare = 0}) */
    public static OutlierEjection disabled() {
        return DISABLED;
    }

    /** @return whether any agent can be ejected at all */
    public boolean isEnabled() {
        return maxEjectedShare > 0;
    }

    /**
     * The most agents that may be ejected at once out of {@code agents}:
     * {@code min(agents - 1, floor(maxEjectedShare x agents))}, never negative.
     */
    public int maxEjected(int agents) {
        return Math.max(0, Math.min(agents - 1, (int) Math.floor(maxEjectedShare * agents + 1e-9)));
    }

    /** @return a builder holding this configuration */
    public Builder toBuilder() {
        return custom().consecutiveFailures(consecutiveFailures).consecutiveErrorAnswers(consecutiveErrorAnswers)
                .baseEjectionTime(baseEjectionTime).maxEjectionTime(maxEjectionTime).maxEjectedShare(maxEjectedShare);
    }

    /** Builds an {@link OutlierEjection}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private int consecutiveFailures = DEFAULT_CONSECUTIVE_FAILURES;
        private int consecutiveErrorAnswers = DEFAULT_CONSECUTIVE_ERROR_ANSWERS;
        private Duration baseEjectionTime = DEFAULT_BASE_EJECTION_TIME;
        private Duration maxEjectionTime = DEFAULT_MAX_EJECTION_TIME;
        private double maxEjectedShare = DEFAULT_MAX_EJECTED_SHARE;

        private Builder() {
        }

        /** @throws IllegalArgumentException if {@code consecutiveFailures < 1} */
        public Builder consecutiveFailures(int consecutiveFailures) {
            this.consecutiveFailures = Check.atLeast("consecutiveFailures", consecutiveFailures, 1);
            return this;
        }

        /** @throws IllegalArgumentException if {@code consecutiveErrorAnswers < 0} (0 turns it off) */
        public Builder consecutiveErrorAnswers(int consecutiveErrorAnswers) {
            this.consecutiveErrorAnswers = Check.atLeast("consecutiveErrorAnswers", consecutiveErrorAnswers, 0);
            return this;
        }

        /** @throws IllegalArgumentException if null, zero or negative */
        public Builder baseEjectionTime(Duration baseEjectionTime) {
            this.baseEjectionTime = Check.positive("baseEjectionTime", baseEjectionTime);
            return this;
        }

        /** Must be >= {@code baseEjectionTime} when built. @throws IllegalArgumentException if null, zero or negative */
        public Builder maxEjectionTime(Duration maxEjectionTime) {
            this.maxEjectionTime = Check.positive("maxEjectionTime", maxEjectionTime);
            return this;
        }

        /** @throws IllegalArgumentException if not in 0..1 */
        public Builder maxEjectedShare(double maxEjectedShare) {
            this.maxEjectedShare = Check.fraction("maxEjectedShare", maxEjectedShare);
            return this;
        }

        /** @throws IllegalArgumentException if {@code maxEjectionTime < baseEjectionTime} */
        public OutlierEjection build() {
            return new OutlierEjection(consecutiveFailures, consecutiveErrorAnswers, baseEjectionTime, maxEjectionTime,
                    maxEjectedShare);
        }
    }
}
