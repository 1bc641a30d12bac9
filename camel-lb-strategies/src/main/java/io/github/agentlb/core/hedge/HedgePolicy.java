package io.github.agentlb.core.hedge;

import io.github.agentlb.core.Check;
import java.time.Duration;

/**
 * Immutable configuration of hedged requests ("The Tail at Scale", J. Dean and L. A. Barroso,
 * CACM 56(2), 2013: "defer sending a secondary request until the first request has been
 * outstanding for more than the 95th-percentile expected latency"): when an idempotent request has
 * no answer head after the hedge delay, the same request goes to another agent, at most
 * {@link #maxHedges()} times, and the first answer head wins.
 *
 * <p>The delay is {@link #delay()} when {@link #percentile()} is 0, else the {@code percentile}-th
 * percentile of recent first-byte times ({@link HedgeDelay}), with {@link #delay()} as long as too
 * few times are known. The default percentile is 97, not the paper's 95: about
 * {@code (100 - percentile)%} of requests to healthy agents are hedged, so p97 keeps the extra
 * agent requests near 3%, leaving room under a 5% budget for the hedges of a slow agent's requests
 * until it is ejected and for its trials after; p95 would spend the whole 5% on healthy agents.
 *
 * <p>{@link #DISABLED} (the default) sends no hedge. A record: thread-safe.
 *
 * @param enabled    whether idempotent requests are hedged at all
 * @param delay      the fixed hedge delay, and the delay while too few first-byte times are known, &gt; 0 (1 s)
 * @param percentile the percentile of recent first-byte times used as the delay, 0 for always {@code delay},
 *                   else in (0, 100) (97)
 * @param maxHedges  hedges at most per request, in 1..10 (1)
 */
public record HedgePolicy(boolean enabled, Duration delay, double percentile, int maxHedges) {

    /** The fixed delay, and the delay until enough first-byte times are known: 1 s. */
    public static final Duration DEFAULT_DELAY = Duration.ofSeconds(1);
    /** The percentile of recent first-byte times hedged after: 97 (see the class comment). */
    public static final double DEFAULT_PERCENTILE = 97;
    /** Hedges per request at most: 1, a second agent. */
    public static final int DEFAULT_MAX_HEDGES = 1;
    /**
     * Hedged races an agent loses in a row, with no answer from it in between, that eject it: 3. One
     * lost race says little (an agent alike whose answer time spreads wide loses one now and then);
     * an agent slower than the others loses every race it is in. One lost on trial ejects it again.
     */
    public static final int LOST_RACES_TO_EJECT = 3;
    /** The largest {@link #maxHedges()} allowed. */
    public static final int MAX_HEDGES_LIMIT = 10;
    /** No hedging (the default); turned on, the defaults above. */
    public static final HedgePolicy DISABLED = new HedgePolicy(false, DEFAULT_DELAY, DEFAULT_PERCENTILE, DEFAULT_MAX_HEDGES);

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public HedgePolicy {
        Check.positive("hedgeDelay", delay);
        if (!(percentile == 0 || percentile > 0 && percentile < 100)) {
            throw new IllegalArgumentException("hedgePercentile must be 0 or in (0, 100), was " + percentile);
        }
        Check.inRange("maxHedges", maxHedges, 1, MAX_HEDGES_LIMIT);
    }

    /** @return a copy turned on or off */
    public HedgePolicy withEnabled(boolean value) {
        return new HedgePolicy(value, delay, percentile, maxHedges);
    }

    /** @return a copy with another {@link #delay()}, turned on */
    public HedgePolicy withDelay(Duration value) {
        return new HedgePolicy(true, value, percentile, maxHedges);
    }

    /** @return a copy with another {@link #percentile()}, turned on */
    public HedgePolicy withPercentile(double value) {
        return new HedgePolicy(true, delay, value, maxHedges);
    }

    /** @return a copy with another {@link #maxHedges()}, turned on */
    public HedgePolicy withMaxHedges(int value) {
        return new HedgePolicy(true, delay, percentile, value);
    }

    @Override
    public String toString() {
        return !enabled ? "HedgePolicy[off]" : "HedgePolicy[" + (percentile == 0 ? "after " + delay.toMillis() + " ms"
                : "after p" + percentile + " of first-byte times (" + delay.toMillis() + " ms until known)")
                + ", at most " + maxHedges + "]";
    }
}
