package io.github.agentlb.core.retry;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.RelationException;
import java.time.Duration;

/**
 * Immutable configuration of the wait between failover attempts of one request: exponential
 * backoff with full jitter. The {@code n}-th failover that waits ({@code n = 1, 2, ...}) waits a
 * time drawn uniformly from {@code [0, min(maxInterval, baseInterval x 2^(n-1)))}: "full jitter"
 * (M. Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015), with the defaults
 * of Envoy's retry back-off ({@code base_interval} 25 ms, {@code max_interval} ten times that,
 * 250 ms). So the first failover waits below 25 ms, the second below 50 ms, the fifth and later
 * below 250 ms; a failover after a refused connection waits nothing (the balancer's rule, not this
 * record's: see {@code RetryBudgetSettings}).
 *
 * <p>The draws are seeded: {@link #delayNanos(int, long)} takes the {@code draw}-th output of
 * SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) seeded with {@link #seed()}, so a balancer that
 * counts its draws repeats its waits exactly for one seed. Stateless: O(1), no allocation.
 *
 * <p>{@link #DISABLED} (the default) waits nothing. A record: thread-safe. The relation
 * {@code maxInterval >= baseInterval} is checked by {@link #checkRelation()} (the balancer's
 * configuration calls it when built), so the two knobs can be set in either order.
 *
 * @param baseInterval the first failover's ceiling, &gt; 0 (25 ms)
 * @param maxInterval  the largest ceiling, &gt;= {@code baseInterval} (250 ms)
 * @param seed         seeds the draws
 * @param enabled      whether failovers wait at all
 */
public record RetryBackoff(Duration baseInterval, Duration maxInterval, long seed, boolean enabled) {

    /** Envoy's default {@code base_interval}: 25 ms. */
    public static final Duration DEFAULT_BASE_INTERVAL = Duration.ofMillis(25);
    /** Envoy's default {@code max_interval}: ten times the base interval, 250 ms. */
    public static final Duration DEFAULT_MAX_INTERVAL = Duration.ofMillis(250);
    /** The seed of the draws by default. */
    public static final long DEFAULT_SEED = 0x5DEECE66DL;
    /** Envoy's intervals, turned on. */
    public static final RetryBackoff ENVOY = new RetryBackoff(DEFAULT_BASE_INTERVAL, DEFAULT_MAX_INTERVAL, DEFAULT_SEED, true);
    /** No wait between failovers (the default); turned on, Envoy's intervals. */
    public static final RetryBackoff DISABLED = ENVOY.withEnabled(false);

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    /** @throws IllegalArgumentException naming the field and value when an interval is not &gt; 0 */
    public RetryBackoff {
        Check.positive("retryBackoffBaseInterval", baseInterval);
        Check.positive("retryBackoffMaxInterval", maxInterval);
    }

    /**
     * @return this backoff
     * @throws IllegalArgumentException naming both values when {@code maxInterval < baseInterval}
     */
    public RetryBackoff checkRelation() {
        if (maxInterval.compareTo(baseInterval) < 0) {
            throw new RelationException("retryBackoffMaxInterval", ">=", "retryBackoffBaseInterval", baseInterval,
                    maxInterval);
        }
        return this;
    }

    /**
     * The ceiling of the {@code n}-th wait: {@code min(maxInterval, baseInterval x 2^(n-1))}, ns; 0 when
     * disabled.
     *
     * @param n the failover's number among this request's waiting failovers, &gt;= 1
     * @throws IllegalArgumentException if {@code n < 1}
     */
    public long ceilingNanos(int n) {
        Check.atLeast("n", n, 1);
        if (!enabled) {
            return 0;
        }
        long base = baseInterval.toNanos();
        long max = maxInterval.toNanos();
        // base x 2^(n-1) overflows no sooner than it passes max when the shift stays below max's bits.
        int shift = Math.min(n - 1, 62);
        return base > max >> shift ? max : Math.min(max, base << shift);
    }

    /**
     * The {@code n}-th wait, ns: uniform in {@code [0, ceilingNanos(n))}, from the {@code draw}-th
     * output of SplitMix64 seeded with {@link #seed()}; 0 when disabled.
     *
     * @param n    the failover's number among this request's waiting failovers, &gt;= 1
     * @param draw which draw of the seed's sequence, e.g. a balancer's count of waits so far
     */
    public long delayNanos(int n, long draw) {
        long ceiling = ceilingNanos(n);
        if (ceiling == 0) {
            return 0;
        }
        long z = seed + (draw + 1) * GOLDEN_GAMMA;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (long) ((z >>> 11) * 0x1.0p-53 * ceiling);
    }

    /** @return a copy with another {@link #baseInterval()}, turned on */
    public RetryBackoff withBaseInterval(Duration value) {
        return new RetryBackoff(value, maxInterval, seed, true);
    }

    /** @return a copy with another {@link #maxInterval()}, turned on */
    public RetryBackoff withMaxInterval(Duration value) {
        return new RetryBackoff(baseInterval, value, seed, true);
    }

    /** @return a copy with another {@link #seed()} */
    public RetryBackoff withSeed(long value) {
        return new RetryBackoff(baseInterval, maxInterval, value, enabled);
    }

    /** @return a copy turned on or off */
    public RetryBackoff withEnabled(boolean value) {
        return new RetryBackoff(baseInterval, maxInterval, seed, value);
    }

    @Override
    public String toString() {
        return enabled ? "RetryBackoff[full jitter, " + baseInterval.toMillis() + " ms doubling to "
                + maxInterval.toMillis() + " ms, seed " + seed + "]" : "RetryBackoff[off]";
    }
}
