package io.github.agentlb.camel;

import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.Iterator;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A strategy's decision for one exchange: the agents to try, preferred first, what to log about the
 * decision, and what the strategy wants back when the attempt completes. Made by a {@link Picker}
 * for one exchange and read by that exchange only: not thread-safe (its candidates are consumed).
 */
public final class Selection {

    private static final Supplier<String> NONE = () -> "";

    private final Iterator<String> candidates;
    private final Supplier<String> detail;
    private final double keyRank;
    private final long token;
    private final boolean hasToken;
    /** What the picker asked to be told when the exchange's attempts end ({@link #ended}), or null. */
    private Runnable onEnd;

    /**
     * @param candidates agent ids in the order to try them, each at most once; the first is the
     *                   choice, the rest the failover order. Consumed lazily, only as far as failures require.
     * @param detail     makes the extra text of the decision's log line (e.g. {@code user_id=42 hash=...});
     *                   called only when that line is logged. Client-supplied values in it go through
     *                   {@link DecisionLog#loggable}. Null for none.
     * @param keyRank    for a keyed exchange, a fraction in [0, 1) fixed by the key: an agent ramping up
     *                   at part f of its share keeps the keys with rank below f, so the same keys come
     *                   back to it as f grows; NaN for an exchange without key, thinned by count instead
     * @param token      what the strategy reads back in {@link Strategy#attemptCompleted} (avn: the key's
     *                   ring position)
     */
    public Selection(Iterator<String> candidates, Supplier<String> detail, double keyRank, long token) {
        this(candidates, detail, keyRank, token, true);
    }

    /** A selection without {@link #token()}. */
    public Selection(Iterator<String> candidates, Supplier<String> detail, double keyRank) {
        this(candidates, detail, keyRank, 0, false);
    }

    /** A selection of an exchange without key, without token. */
    public Selection(Iterator<String> candidates, Supplier<String> detail) {
        this(candidates, detail, Double.NaN, 0, false);
    }

    private Selection(Iterator<String> candidates, Supplier<String> detail, double keyRank, long token, boolean hasToken) {
        this.candidates = Objects.requireNonNull(candidates, "candidates");
        this.detail = detail == null ? NONE : detail;
        this.keyRank = keyRank;
        this.token = token;
        this.hasToken = hasToken;
    }

    /** A selection with no extra log detail. */
    public static Selection of(Iterator<String> candidates) {
        return new Selection(candidates, NONE);
    }

    public Iterator<String> candidates() {
        return candidates;
    }

    public Supplier<String> detail() {
        return detail;
    }

    public double keyRank() {
        return keyRank;
    }

    /** @return the token the picker gave; meaningful only when {@link #hasToken()} */
    public long token() {
        return token;
    }

    /** @return whether the picker gave a {@link #token()} */
    public boolean hasToken() {
        return hasToken;
    }

    /** Sets what {@link #ended} runs; by the picker that made this selection, before handing it on. */
    Selection onEnd(Runnable action) {
        this.onEnd = action;
        return this;
    }

    /** The exchange's attempts on this selection ended (answered, failed, or sent back to wait): once, by {@link Attempts}. */
    void ended() {
        Runnable action = onEnd;
        onEnd = null;
        if (action != null) {
            action.run();
        }
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
