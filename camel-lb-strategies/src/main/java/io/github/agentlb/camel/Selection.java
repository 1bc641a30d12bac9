package io.github.agentlb.camel;

import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.Iterator;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A strategy's decision for one exchange: the agents to try, preferred first, and what to log
 * about the decision.
 *
 * @param candidates agent ids in the order to try them, each at most once; the first is the choice,
 *                   the rest the failover order. Consumed lazily, only as far as failures require.
 * @param detail     makes the extra text of the decision's log line (for example
 *                   {@code user_id=42 hash=...}); called only when that line is logged, so the
 *                   request path builds no log text while the decision log is off. Client-supplied
 *                   values in it go through {@code AgentLoadBalancerSupport.loggable}.
 * @param keyRank    for a keyed exchange, a fraction in [0, 1) fixed by the key (not by the ring
 *                   position alone): an agent ramping up at part f of its share keeps the keys
 *                   with rank below f, so the same keys come back to it as f grows; NaN for an
 *                   exchange without key, thinned by count instead
 */
public record Selection(Iterator<String> candidates, Supplier<String> detail, double keyRank) {

    private static final Supplier<String> NONE = () -> "";

    public Selection {
        Objects.requireNonNull(candidates, "candidates");
        detail = detail == null ? NONE : detail;
    }

    /** A selection of an exchange without key. */
    public Selection(Iterator<String> candidates, Supplier<String> detail) {
        this(candidates, detail, Double.NaN);
    }

    /** A selection with no extra log detail. */
    public static Selection of(Iterator<String> candidates) {
        return new Selection(candidates, NONE);
    }

    /**
     * The rank of a key at ring position {@code position}: its bits mixed (MurmurHash3's
     * {@code fmix64}) into a fraction in [0, 1), so keys next to each other on the ring rank
     * independently.
     */
    public static double rankOf(long position) {
        return (HashAlgorithm.fmix64(position) >>> 11) * 0x1.0p-53;
    }
}
