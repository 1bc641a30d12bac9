package io.github.agentlb.core.hedge;

import io.github.agentlb.core.stats.NearestRank;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hedge delay from recent first-byte times: per agent, a ring of its last {@value #WINDOW}
 * first-byte times (from the attempt's send to its answer head, ns); the delay is the lowest, over
 * the agents with at least {@value #MIN_SAMPLES} times, of their {@code p}-th percentile (nearest
 * rank), else the fixed delay.
 *
 * <h2>Why per agent, and the lowest</h2>
 * The paper's delay is the percentile latency a request is expected to have. Pooled over all
 * agents, one agent five times slower than the others (a third of the requests under round robin)
 * puts the pooled p97 inside its own times: its attempts then answer before their hedges do, the
 * times recorded keep the percentile there, and hedging never helps. The lowest per-agent
 * percentile is what a healthy agent is expected to take; a slow agent's attempts are hedged after
 * it, lose, and are ejected ({@code OutlierDetector}). An attempt that lost its hedge is cancelled
 * and records no time.
 *
 * <p>Cost: recording is O(1) under the agent's ring lock; every {@value #RECOMPUTE_EVERY} records
 * an agent's percentile is recomputed (a sort of at most {@value #WINDOW} times, O(w log w)), and
 * {@link #delayNanos} is one volatile read. Agents are kept by id (a few longs each) until
 * {@link #retain} forgets the ones gone. Thread-safe.
 */
public final class HedgeDelay {

    /** First-byte times kept per agent. */
    public static final int WINDOW = 1000;
    /** Times an agent needs before its percentile counts. */
    public static final int MIN_SAMPLES = 10;
    /** Records between two computations of an agent's percentile. */
    public static final int RECOMPUTE_EVERY = 20;

    private final Map<String, Ring> rings = new ConcurrentHashMap<>();
    /** The lowest percentile known, ns, and the percentile it is of; {@code nanos < 0}: none known. */
    private volatile Known known = new Known(Double.NaN, -1);

    private record Known(double percentile, long nanos) {
    }

    /**
     * Records an answer head of {@code agent} after {@code firstByteNanos} from its attempt's send.
     *
     * @param percentile the percentile the delay is taken at, in (0, 100)
     */
    public void record(String agent, long firstByteNanos, double percentile) {
        Ring ring = rings.computeIfAbsent(agent, a -> new Ring());
        if (ring.record(Math.max(0, firstByteNanos), percentile) || known.percentile() != percentile) {
            recompute(percentile);
        }
    }

    /**
     * The delay before a hedge under {@code policy}, ns: its fixed delay when its percentile is 0 or
     * no agent has {@value #MIN_SAMPLES} times yet, else the lowest agent percentile (class comment).
     */
    public long delayNanos(HedgePolicy policy) {
        Known now = known;
        if (policy.percentile() == 0) {
            return policy.delay().toNanos();
        }
        if (now.percentile() != policy.percentile()) {
            now = recompute(policy.percentile());
        }
        return now.nanos() < 0 ? policy.delay().toNanos() : now.nanos();
    }

    /** Forgets the agents not in {@code agents} (a balancer calls it when its agents change). */
    public void retain(Collection<String> agents) {
        if (rings.keySet().retainAll(agents)) {
            known = new Known(Double.NaN, -1);
        }
    }

    private Known recompute(double percentile) {
        long lowest = -1;
        for (Ring ring : rings.values()) {
            long p = ring.percentile(percentile);
            if (p >= 0 && (lowest < 0 || p < lowest)) {
                lowest = p;
            }
        }
        Known next = new Known(percentile, lowest);
        known = next;
        return next;
    }

    /** One agent's last {@value #WINDOW} first-byte times, and its percentile as last computed. */
    private static final class Ring {
        private final long[] times = new long[WINDOW];
        private int count;
        private int next;
        private int sinceComputed;
        private double computedAt = Double.NaN;
        private long computed = -1;

        /** @return whether the percentile was recomputed */
        synchronized boolean record(long nanos, double percentile) {
            times[next] = nanos;
            next = (next + 1) % WINDOW;
            count = Math.min(count + 1, WINDOW);
            if (count >= MIN_SAMPLES && (++sinceComputed >= RECOMPUTE_EVERY || count == MIN_SAMPLES)) {
                compute(percentile);
                return true;
            }
            return false;
        }

        /** @return the percentile as last computed at {@code percentile}, recomputed if it was at another; -1 with too few times */
        synchronized long percentile(double percentile) {
            if (count >= MIN_SAMPLES && computedAt != percentile) {
                compute(percentile);
            }
            return computed;
        }

        private void compute(double percentile) {
            computed = NearestRank.of(times, count, percentile);
            computedAt = percentile;
            sinceComputed = 0;
        }
    }
}
