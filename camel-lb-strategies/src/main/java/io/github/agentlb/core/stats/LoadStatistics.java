package io.github.agentlb.core.stats;

import java.util.Arrays;
import java.util.Collection;

/**
 * Summary statistics of a load distribution: requests (or utilization, or a load index) per
 * agent. The one place the project computes spread, variance and coefficient of variation; the
 * load generator's reports and the adaptive balancer's imbalance index both use it.
 *
 * <p>Variance is the population variance (divide by n): the agents are the whole fleet, not a
 * sample of it. Immutable and thread-safe.
 *
 * @param count  number of values (agents)
 * @param sum    sum of the values
 * @param min    smallest value
 * @param max    largest value
 * @param mean   arithmetic mean
 * @param variance population variance, {@code sum((x - mean)^2) / n}
 */
public record LoadStatistics(int count, double sum, double min, double max, double mean, double variance) {

    /**
     * Computes the statistics of {@code values}.
     *
     * @throws IllegalArgumentException if {@code values} is empty or holds NaN or an infinity
     */
    public static LoadStatistics of(double... values) {
        if (values == null || values.length == 0) {
            throw new IllegalArgumentException("values must not be empty, was " + Arrays.toString(values));
        }
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("values must be finite, was " + v);
            }
            sum += v;
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        double mean = sum / values.length;
        double squares = 0;
        for (double v : values) {
            squares += (v - mean) * (v - mean);
        }
        return new LoadStatistics(values.length, sum, min, max, mean, squares / values.length);
    }

    /** The statistics of {@code values} (for example requests per agent). */
    public static LoadStatistics of(Collection<? extends Number> values) {
        return of(values.stream().mapToDouble(Number::doubleValue).toArray());
    }

    /** Spread: {@code max - min}. */
    public double spread() {
        return max - min;
    }

    /** Population standard deviation, {@code sqrt(variance)}. */
    public double standardDeviation() {
        return Math.sqrt(variance);
    }

    /**
     * Coefficient of variation: standard deviation over mean, a fraction (0 = perfectly even);
     * 0 when the mean is 0.
     */
    public double coefficientOfVariation() {
        return mean == 0 ? 0 : standardDeviation() / mean;
    }

    /** Max over mean (1 = perfectly even), the figure Robinhood reports; 0 when the mean is 0. */
    public double maxOverMean() {
        return mean == 0 ? 0 : max / mean;
    }
}
