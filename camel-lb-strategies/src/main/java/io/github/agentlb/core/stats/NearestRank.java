package io.github.agentlb.core.stats;

import java.util.Arrays;

/**
 * The nearest-rank percentile of a sample (Hyndman and Fan's definition 1): the smallest value that
 * at least {@code percentile}% of the values do not exceed, the value of rank
 * {@code ceil(percentile / 100 x n)} in ascending order (at least rank 1).
 */
public final class NearestRank {

    private NearestRank() {
    }

    /**
     * @param values     the sample in its first {@code count} elements, in any order (not changed)
     * @param count      how many of {@code values} are the sample, 1..{@code values.length}
     * @param percentile 0..100
     * @return the percentile, one of the sample's values
     * @throws IllegalArgumentException if {@code count} is out of range
     */
    public static long of(long[] values, int count, double percentile) {
        if (count < 1 || count > values.length) {
            throw new IllegalArgumentException("count must be in 1.." + values.length + ", was " + count);
        }
        long[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percentile / 100 * count);
        return sorted[Math.max(0, Math.min(count, rank) - 1)];
    }
}
