package io.github.agentlb.core.fleet;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.Objects;

/**
 * Slow start: an agent that joins, or comes back after outlier ejection, receives a growing part
 * of the traffic its strategy would give it, over a window, so a cold agent (empty caches, a JIT
 * not yet warm, a model not yet loaded) is not flooded at once. After Envoy's
 * {@code slow_start_config}: at time t after the agent joined, the part kept is
 * <pre>  f(t) = max(minWeightShare, (t / window)^(1 / aggression))   for t &lt; window, else 1</pre>
 * (Envoy scales the weight by the same factor). Aggression 1 ramps linearly; above 1 the agent
 * gets more early. The rest goes to the strategy's next candidate, so the other agents keep
 * their relative shares. Immutable and thread-safe.
 *
 * @param window         how long the ramp lasts; {@link Duration#ZERO} turns slow start off
 * @param aggression     the ramp's curvature, finite and &gt; 0; 1 is linear
 * @param minWeightShare the smallest part kept while ramping, a fraction in (0, 1]
 */
public record SlowStart(Duration window, double aggression, double minWeightShare) {

    /**
     * Off: every agent gets its whole share at once (the library's default). A window set on it
     * alone ramps linearly with Envoy's default least share, 10% ({@code min_weight_percent}).
     */
    public static final SlowStart DISABLED = new SlowStart(Duration.ZERO, 1.0, 0.1);
    /** The ramp the demo proxy uses: 30 s, linear, at least 10% (Envoy's default minimum share). */
    public static final SlowStart DEMO = new SlowStart(Duration.ofSeconds(30), 1.0, 0.1);

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public SlowStart {
        Objects.requireNonNull(window, "window");
        Check.nonNegative("slowStartWindow", window);
        Check.finitePositive("slowStartAggression", aggression);
        if (!(minWeightShare > 0 && minWeightShare <= 1)) {
            throw new IllegalArgumentException("slowStartMinWeightShare must be in (0, 1], was " + minWeightShare);
        }
    }

    /** @return whether agents ramp up at all (the window is not zero) */
    public boolean isEnabled() {
        return !window.isZero();
    }

    /**
     * The part of its share an agent keeps {@code elapsedNanos} after it joined.
     *
     * @param elapsedNanos time since the agent joined, ns; negative counts as 0
     * @return f(t) in [minWeightShare, 1]; 1 when disabled or the window is over
     */
    public double factor(long elapsedNanos) {
        long windowNanos = window.toNanos();
        if (windowNanos == 0 || elapsedNanos >= windowNanos) {
            return 1.0;
        }
        double timeFactor = Math.max(0L, elapsedNanos) / (double) windowNanos;
        return Math.max(minWeightShare, Math.pow(timeFactor, 1.0 / aggression));
    }

    /** @return a copy with another window */
    public SlowStart withWindow(Duration value) {
        return new SlowStart(value, aggression, minWeightShare);
    }

    /** @return a copy with another aggression */
    public SlowStart withAggression(double value) {
        return new SlowStart(window, value, minWeightShare);
    }

    /** @return a copy with another minimum share */
    public SlowStart withMinWeightShare(double value) {
        return new SlowStart(window, aggression, value);
    }
}
