package io.github.agentlb.core.pid;

import java.util.Arrays;

/**
 * Keeps {@link PidWeights}' weights relative: mean 1, each within [min, max]. Stateless.
 */
final class WeightNormalization {

    private WeightNormalization() {
    }

    /**
     * Replaces unusable weights by the mean of the usable ones, then scales and clamps so that
     * the mean is 1 and every weight lies in [min, max]. The scale is found by bisection:
     * mean(clamp(s * w)) grows monotonically in s from min to max, and min <= 1 <= max.
     */
    static void normalize(double[] w, double min, double max) {
        int n = w.length;
        double sum = 0;
        int usable = 0;
        for (double v : w) {
            if (v > 0 && Double.isFinite(v)) {
                sum += v;
                usable++;
            }
        }
        if (usable == 0 || !Double.isFinite(sum)) {
            Arrays.fill(w, 1.0);
            return;
        }
        double mean = sum / usable;
        double smallest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            if (!(w[i] > 0 && Double.isFinite(w[i]))) {
                w[i] = mean;
            }
            w[i] /= mean;
            smallest = Math.min(smallest, w[i]);
        }
        double lo = 0;
        double hi = max / smallest;
        for (int iter = 0; iter < 100; iter++) {
            double mid = (lo + hi) / 2;
            if (clampedMean(w, mid, min, max) < 1) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        for (int i = 0; i < n; i++) {
            w[i] = Math.max(min, Math.min(max, w[i] * hi));
        }
    }

    private static double clampedMean(double[] w, double scale, double min, double max) {
        double sum = 0;
        for (double v : w) {
            sum += Math.max(min, Math.min(max, v * scale));
        }
        return sum / w.length;
    }
}
