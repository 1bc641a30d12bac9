package io.github.agentlb.core.bounded;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Immutable configuration of consistent hashing with bounded loads ({@link BoundedLoads}), after
 * Mirrokni, Thorup and Zadimoghaddam, <i>Consistent Hashing with Bounded Loads</i> (SODA 2018),
 * the scheme HAProxy ({@code hash-balance-factor}) and Envoy ({@code hash_balance_factor}) ship.
 * Validated when built: each setter of the {@link Builder} throws {@link IllegalArgumentException}
 * naming the field and the bad value.
 *
 * <ul>
 *   <li>{@link #balanceFactor()} c: no agent keeps more than c x the mean load (the paper's
 *       capacity {@code ceil(c x mean)} per request under the plain rule; by the estimated shares
 *       under the rank rule). Default 1.25, as HAProxy's {@code hash-balance-factor 125};
 *       must be finite and > 1.</li>
 *   <li>{@link #returnFactor()} c_low: keys that left an agent come back only as far as the agent
 *       stays at or below {@code c_low x mean} (hysteresis). Default 1.0 (the mean); must be
 *       finite, > 0 and below c.</li>
 *   <li>{@link #decayTime()} tau: the load is the count of recent requests sent to each agent,
 *       each weighing {@code e^(-age/tau)}: about the requests of the last tau. Default 10 s.</li>
 *   <li>{@link #maxKeys()}: the keys remembered (recent rate, previous agent), least recently
 *       seen evicted first. Default 10,000 (about 2 MB).</li>
 *   <li>{@link #overflowOrder()}: where overflow goes, the ring's next agent clockwise (the paper,
 *       HAProxy) or an order seeded by the key's hash (Envoy).</li>
 *   <li>{@link #rankRule()}: true (default) is the rank rule of {@link BoundedLoads}: which keys
 *       leave an agent follows from the keys' hashes and the agents' shares, so keys do not flap
 *       and replicas agree, and heavy keys are never split; false is the plain rule of the paper,
 *       decided per request.</li>
 *   <li>{@link #inFlightFactor()} f: a second bound, on requests in flight now rather than on
 *       recent shares (KubeAI's {@code PrefixHash}): an agent takes a request only while its
 *       requests in flight plus this one stay within {@code f x (total in flight + 1) / n}, n the
 *       agents, and always when nothing is in flight. Checked after the share bound chose an
 *       agent, per request; an agent over it passes the request to the next agent of the overflow
 *       order within it, and keeps it when none is. 0 (default) turns it off; else finite and
 *       >= 1 (KubeAI's {@code meanLoadFactor} 125 is 1.25).</li>
 *   <li>{@link #keepInFlightPlacement()}: false (default) checks the in-flight bound per request,
 *       as KubeAI does; true checks it per session: a key is placed by it once and its later
 *       requests go to that agent unchecked while they keep coming at most {@link #decayTime()}
 *       apart (placed afresh after a longer pause or when the agent leaves, each agent counting
 *       the larger of its requests in flight and its active sessions): for keys whose
 *       requests find state on their agent (a conversation's cached prompt), which per-request
 *       diversion spends on every move. A request of the key while another of it is in flight
 *       (as its caller counts them: {@link BoundedLoads#requestStarted}) is checked per request
 *       from that agent: a conversation's turns do not overlap. A key's placement goes with its entry
 *       ({@link #maxKeys()}) and is this balancer's own: replicas place a key each by their own
 *       counts.</li>
 * </ul>
 *
 * <p>{@link #disabled()} turns bounded loads off: the ring alone decides. A record, so thread-safe;
 * {@link #toString()} names the in-flight bound only when it is on, and a disabled configuration
 * only as {@code BoundedLoad[disabled]}.
 *
 * @param enabled               whether the bound applies at all ({@link #isEnabled()}); {@link Builder#build()}
 *                              gives true, {@link #disabled()} false
 * @param balanceFactor         c, finite and > 1
 * @param returnFactor          c_low, finite, in (0, c)
 * @param decayTime             tau of the decayed request count, > 0
 * @param maxKeys               the most keys remembered, >= 1
 * @param overflowOrder         where overflow goes, not null
 * @param rankRule              whether the rank rule (with hysteresis) applies rather than the plain per-request rule
 * @param inFlightFactor        f of the in-flight bound, finite and >= 1, or 0 when that bound is off
 * @param keepInFlightPlacement whether a key keeps the agent the in-flight bound placed it on while that agent has
 *                              room
 */
public record BoundedLoad(boolean enabled, double balanceFactor, double returnFactor, Duration decayTime, int maxKeys,
                          OverflowOrder overflowOrder, boolean rankRule, double inFlightFactor,
                          boolean keepInFlightPlacement) {

    /** Where a key goes when its home agent is full. */
    public enum OverflowOrder {
        /** The next agents clockwise on the ring, as in the paper and HAProxy. */
        CLOCKWISE,
        /** The other agents in an order seeded by the key's hash, as Envoy. */
        KEY_SEEDED
    }

    /** Default balance factor: 1.25, as HAProxy's {@code hash-balance-factor 125}. */
    public static final double DEFAULT_BALANCE_FACTOR = 1.25;
    /** Default return factor: 1.0, keys that left come back only as far as home stays at the mean. */
    public static final double DEFAULT_RETURN_FACTOR = 1.0;
    /** Default decay time constant of the load measure: 10 s. */
    public static final Duration DEFAULT_DECAY_TIME = Duration.ofSeconds(10);
    /** Default number of keys remembered: 10,000. */
    public static final int DEFAULT_MAX_KEYS = 10_000;
    /** Default in-flight factor: 0, the in-flight bound off. */
    public static final double DEFAULT_IN_FLIGHT_FACTOR = 0;
    /** KubeAI's in-flight factor ({@code meanLoadFactor: 125}), a good value to turn the in-flight bound on with. */
    public static final double KUBEAI_IN_FLIGHT_FACTOR = 1.25;

    private static final BoundedLoad DISABLED = custom().build(false);

    /**
     * Checks every value by the {@link Builder}'s setter of the same name, then that
     * {@code returnFactor < balanceFactor}.
     *
     * @throws IllegalArgumentException naming the field and the bad value
     * @throws NullPointerException     if {@code overflowOrder} is null
     */
    public BoundedLoad {
        custom().balanceFactor(balanceFactor).returnFactor(returnFactor).decayTime(decayTime).maxKeys(maxKeys)
                .overflowOrder(overflowOrder).inFlightFactor(inFlightFactor);
        if (returnFactor >= balanceFactor) {
            throw new IllegalArgumentException("returnFactor must be < balanceFactor (" + balanceFactor
                    + "), was " + returnFactor);
        }
    }

    /** @return a builder initialised with the defaults (enabled) */
    public static Builder custom() {
        return new Builder();
    }

    /** @return bounded loads with every default: c = 1.25, c_low = 1.0, tau = 10 s, rank rule, clockwise */
    public static BoundedLoad ofDefaults() {
        return custom().build();
    }

    /** @return bounded loads off */
    public static BoundedLoad disabled() {
        return DISABLED;
    }

    /** @return whether the bound applies at all */
    public boolean isEnabled() {
        return enabled;
    }


    /** @return whether the in-flight bound applies */
    public boolean boundsInFlight() {
        return enabled && inFlightFactor > 0;
    }

    /**
     * @return this configuration with another {@link #keepInFlightPlacement()}, on or off as it is: a
     *     bound that is off keeps it for when it comes on
     */
    public BoundedLoad withKeepInFlightPlacement(boolean keep) {
        return new BoundedLoad(enabled, balanceFactor, returnFactor, decayTime, maxKeys, overflowOrder, rankRule,
                inFlightFactor, keep);
    }

    /** @return a builder holding this configuration (enabled) */
    public Builder toBuilder() {
        return custom().balanceFactor(balanceFactor).returnFactor(returnFactor).decayTime(decayTime)
                .maxKeys(maxKeys).overflowOrder(overflowOrder).rankRule(rankRule).inFlightFactor(inFlightFactor)
                .keepInFlightPlacement(keepInFlightPlacement);
    }

    @Override
    public String toString() {
        if (!enabled) {
            return "BoundedLoad[disabled]";
        }
        return String.format(Locale.ROOT, "BoundedLoad[balanceFactor=%s, returnFactor=%s, decayTime=%s, maxKeys=%d,"
                + " overflowOrder=%s, rankRule=%s%s]", balanceFactor, returnFactor, decayTime, maxKeys, overflowOrder, rankRule,
                inFlightFactor > 0 ? ", inFlightFactor=" + inFlightFactor + (keepInFlightPlacement ? ", kept" : "") : "");
    }

    /** Builds a {@link BoundedLoad}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private double balanceFactor = DEFAULT_BALANCE_FACTOR;
        private double returnFactor = DEFAULT_RETURN_FACTOR;
        private Duration decayTime = DEFAULT_DECAY_TIME;
        private int maxKeys = DEFAULT_MAX_KEYS;
        private OverflowOrder overflowOrder = OverflowOrder.CLOCKWISE;
        private boolean rankRule = true;
        private double inFlightFactor = DEFAULT_IN_FLIGHT_FACTOR;
        private boolean keepInFlightPlacement;

        private Builder() {
        }

        /** @throws IllegalArgumentException if not finite and > 1 */
        public Builder balanceFactor(double balanceFactor) {
            this.balanceFactor = Check.finiteAbove("balanceFactor", balanceFactor, 1);
            return this;
        }

        /** Must be below {@code balanceFactor} when built. @throws IllegalArgumentException if not finite and > 0 */
        public Builder returnFactor(double returnFactor) {
            this.returnFactor = Check.finitePositive("returnFactor", returnFactor);
            return this;
        }

        /** @throws IllegalArgumentException if null, zero or negative */
        public Builder decayTime(Duration decayTime) {
            this.decayTime = Check.positive("decayTime", decayTime);
            return this;
        }

        /** @throws IllegalArgumentException if {@code maxKeys < 1} */
        public Builder maxKeys(int maxKeys) {
            this.maxKeys = Check.atLeast("maxKeys", maxKeys, 1);
            return this;
        }

        /** Where overflow goes. */
        public Builder overflowOrder(OverflowOrder overflowOrder) {
            this.overflowOrder = Objects.requireNonNull(overflowOrder, "overflowOrder");
            return this;
        }

        /** True (default) for the rank rule; false gives the paper's plain per-request rule (no ranks, no hysteresis). */
        public Builder rankRule(boolean rankRule) {
            this.rankRule = rankRule;
            return this;
        }


        /**
         * f of the in-flight bound; 0 turns it off.
         *
         * @throws IllegalArgumentException if neither 0 nor finite and >= 1
         */
        public Builder inFlightFactor(double inFlightFactor) {
            if (inFlightFactor != 0 && !(inFlightFactor >= 1 && inFlightFactor < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("inFlightFactor must be 0 (off) or finite and >= 1, was " + inFlightFactor);
            }
            this.inFlightFactor = inFlightFactor;
            return this;
        }

        /** Whether a key keeps the agent the in-flight bound placed it on while that agent has room; false by default. */
        public Builder keepInFlightPlacement(boolean keep) {
            this.keepInFlightPlacement = keep;
            return this;
        }

        /** @throws IllegalArgumentException if {@code returnFactor >= balanceFactor} */
        public BoundedLoad build() {
            return build(true);
        }

        private BoundedLoad build(boolean enabled) {
            return new BoundedLoad(enabled, balanceFactor, returnFactor, decayTime, maxKeys, overflowOrder, rankRule,
                    inFlightFactor, keepInFlightPlacement);
        }
    }
}
