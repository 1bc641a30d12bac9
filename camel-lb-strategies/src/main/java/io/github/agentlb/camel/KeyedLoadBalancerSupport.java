package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.bounded.BoundedLoad;
import io.github.agentlb.core.bounded.BoundedLoads;
import io.github.agentlb.core.bounded.Placement;
import io.github.agentlb.core.bounded.RingWalk;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.select.RoundRobin;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.support.builder.ExpressionBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared part of the strategies that route by a key (consistent hashing, adaptive virtual
 * nodes): the key is a Camel {@link Expression}, header {@value #DEFAULT_KEY_HEADER} by default.
 * A missing or blank key is not an error: such exchanges are spread round-robin, with a DEBUG
 * log.
 *
 * <p>Bounded loads (off by default): with {@link #setBoundedLoad} or {@link #setBalanceFactor},
 * an agent above c x the mean share of recent requests passes on the share of its cold keys
 * with the lowest hash ranks to the next agent of the ring walk, and heavy keys stay home (see
 * {@link BoundedLoads}); the ring is unchanged, and balancer replicas move nearly the same keys.
 * Each attempt sent counts as load ({@link #attemptStarted}); the agents follow membership
 * changes; the decision log line gains {@code bounded=<HOME|OVERFLOW|STICKY|RETURNED|HELD|DIVERTED>}.
 * With {@link #setInFlightFactor} (KubeAI's bound) an agent over f x the mean requests in flight
 * also passes the request on; the counts are the balancer's own per-agent in-flight counters, read
 * without a lock.
 *
 * <p>Keys: {@link #setKeyHeader} for one header, {@link #setKeys} for a chain such as
 * {@code session,prompt,user_id} ({@link AgentKeys}), or any expression through the builder.
 * Thread-safe.
 *
 * <p>Over 300 lines: the key (expression, header, key chain), the two load bounds and their JavaBean knobs, and the keyed picker's part that reads them, each a few lines with its contract.
 */
public abstract class KeyedLoadBalancerSupport extends AgentLoadBalancerSupport {

    /** The header read as the key by default. */
    public static final String DEFAULT_KEY_HEADER = "user_id";

    private static final Logger LOG = LoggerFactory.getLogger(KeyedLoadBalancerSupport.class);

    private final RoundRobin keylessRotation = new RoundRobin();
    private final Settings<KeyedLoadBalancerSupport> keySettings = new Settings<>(this::isRunning);
    private volatile Expression key;
    private volatile String keyName;
    private volatile BoundedLoads boundedLoads;
    /** {@link #setKeepInFlightPlacement}'s last value, for when bounded loads come on. */
    private volatile boolean keepInFlightPlacementWhileOff;

    /**
     * @param key     evaluates an exchange's key as a String
     * @param keyName labels the key in decision logs, e.g. {@code user_id}
     */
    protected KeyedLoadBalancerSupport(Expression key, String keyName) {
        this(key, keyName, BoundedLoad.disabled());
    }

    /**
     * @param key         evaluates an exchange's key as a String
     * @param keyName     labels the key in decision logs, e.g. {@code user_id}
     * @param boundedLoad the load bound, or {@link BoundedLoad#disabled()}
     */
    protected KeyedLoadBalancerSupport(Expression key, String keyName, BoundedLoad boundedLoad) {
        this.key = Objects.requireNonNull(key, "key");
        this.keyName = keyName;
        setBoundedLoad(boundedLoad);
    }

    /** @return the load bound in use ({@link BoundedLoad#disabled()} unless set) */
    public BoundedLoad getBoundedLoad() {
        BoundedLoads current = boundedLoads;
        return current == null ? BoundedLoad.disabled() : current.config();
    }

    /**
     * Sets the load bound; {@link BoundedLoad#disabled()} turns it off. Takes effect for the next
     * exchange and starts afresh: recent loads and overflowed keys are forgotten.
     */
    public void setBoundedLoad(BoundedLoad boundedLoad) {
        Objects.requireNonNull(boundedLoad, "boundedLoad");
        BoundedLoads fresh = null;
        if (boundedLoad.isEnabled()) {
            fresh = new BoundedLoads(boundedLoad, this::nanoTime);
            fresh.setAgents(getAgentIds());
        }
        boundedLoads = fresh;
        settingsChanged();
    }

    /**
     * Sets the balance factor c of the load bound (HAProxy's {@code hash-balance-factor} / 100),
     * keeping its other settings, or the defaults of {@link BoundedLoad} if it was off; 0 turns it
     * off, as {@code hash-balance-factor 0}.
     *
     * @throws IllegalArgumentException if neither 0 nor > 1, or not above the return factor
     */
    public void setBalanceFactor(double balanceFactor) {
        if (balanceFactor == 0) {
            setBoundedLoad(BoundedLoad.disabled());
            return;
        }
        BoundedLoad current = getBoundedLoad();
        BoundedLoad.Builder builder = current.isEnabled() ? current.toBuilder() : fromOff();
        setBoundedLoad(builder.balanceFactor(balanceFactor).build());
    }

    /** The defaults of {@link BoundedLoad} with what was set while bounded loads were off. */
    private BoundedLoad.Builder fromOff() {
        return BoundedLoad.custom().keepInFlightPlacement(keepInFlightPlacementWhileOff);
    }

    /**
     * Sets f of the in-flight bound ({@link BoundedLoad#inFlightFactor()}; KubeAI's 1.25 is
     * {@link BoundedLoad#KUBEAI_IN_FLIGHT_FACTOR}), keeping the bound's other settings, or the
     * defaults of {@link BoundedLoad} if it was off (so the share bound comes on with c = 1.25);
     * 0 turns the in-flight bound off and leaves the share bound as it is. Takes effect as
     * {@link #setBoundedLoad}.
     *
     * @throws IllegalArgumentException if neither 0 nor finite and >= 1
     */
    public void setInFlightFactor(double inFlightFactor) {
        BoundedLoad current = getBoundedLoad();
        if (inFlightFactor == 0 && !current.isEnabled()) {
            return;
        }
        BoundedLoad.Builder builder = current.isEnabled() ? current.toBuilder() : fromOff();
        setBoundedLoad(builder.inFlightFactor(inFlightFactor).build());
    }

    /** @return f of the in-flight bound, or 0 while it is off */
    public double getInFlightFactor() {
        return getBoundedLoad().boundsInFlight() ? getBoundedLoad().inFlightFactor() : 0;
    }

    /**
     * Whether the in-flight bound places a key's session rather than each request: the key keeps
     * the agent it was placed on while its requests keep coming at most the decay time apart
     * ({@link BoundedLoad#keepInFlightPlacement()}; false: per request, as KubeAI). For keys whose
     * agent holds their state, such as a conversation's cached prompt. Kept with the bound's other
     * settings; takes effect as {@link #setBoundedLoad}; does nothing while the in-flight bound is
     * off, and turns no bound on: set while bounded loads are off, it is kept for when
     * {@link #setInFlightFactor} or {@link #setBalanceFactor} turns them on, in any order.
     */
    public void setKeepInFlightPlacement(boolean keep) {
        keepInFlightPlacementWhileOff = keep;
        BoundedLoad current = getBoundedLoad();
        if (current.isEnabled()) {
            setBoundedLoad(current.toBuilder().keepInFlightPlacement(keep).build());
        }
    }

    public boolean isKeepInFlightPlacement() {
        BoundedLoad current = getBoundedLoad();
        return current.isEnabled() ? current.keepInFlightPlacement() : keepInFlightPlacementWhileOff;
    }

    /** @return the balance factor c, or 0 while bounded loads are off */
    public double getBalanceFactor() {
        BoundedLoad current = getBoundedLoad();
        return current.isEnabled() ? current.balanceFactor() : 0;
    }

    /** The bounded-load state (agent loads, remembered keys), or null while off; for metrics and tests. */
    public BoundedLoads boundedLoads() {
        return boundedLoads;
    }

    /**
     * What a keyed picker decides with, captured when it is built: the key, its name in logs,
     * the load bound and the keyless rotation. Immutable; the bound's loads are per-agent state
     * outside the balancer's state.
     */
    protected final Keyed keyed() {
        return new Keyed(key, keyName, boundedLoads, keylessRotation, this::inFlightNow);
    }

    /**
     * Each agent's requests in flight, read from the state of now (one volatile read) and the
     * agents' own counters ({@link AgentSlot#inFlight}), plus the requests waiting in its queue by a
     * fresh ORCA report ({@link #reportedWaiting}); an agent not in the state counts 0.
     */
    private ToIntFunction<String> inFlightNow() {
        BalancerState state = balancerState();
        return agent -> {
            AgentSlot slot = state.slot(agent);
            return slot == null ? 0 : slot.inFlight.get() + (int) Math.round(reportedWaiting(agent));
        };
    }

    /** The key part of a keyed strategy's picker; see {@link #keyed()}. Thread-safe. */
    protected static final class Keyed {
        private final Expression key;
        private final String keyName;
        private final BoundedLoads bounded;
        private final RoundRobin keylessRotation;
        private final Supplier<ToIntFunction<String>> inFlight;

        Keyed(Expression key, String keyName, BoundedLoads bounded, RoundRobin keylessRotation,
                Supplier<ToIntFunction<String>> inFlight) {
            this.key = key;
            this.keyName = keyName;
            this.bounded = bounded;
            this.keylessRotation = keylessRotation;
            this.inFlight = inFlight;
        }

        /** The exchange's key, or null when it is missing or blank. */
        public String keyOf(Exchange exchange) {
            String value = key.evaluate(exchange, String.class);
            return value == null || value.isBlank() ? null : value;
        }

        /** The label of the key in logs. */
        public String keyName() {
            return keyName;
        }

        /** The selection for an exchange without a key: the next agent in rotation, then the others. */
        public Selection keyless(Exchange exchange, List<String> agentIds) {
            LOG.debug("No {} on exchange {}: spreading it round-robin", keyName, exchange.getExchangeId());
            return new Selection(RoundRobinLB.rotationFrom(keylessRotation.next(agentIds.size()), agentIds),
                    () -> keyName + "=<none>");
        }

        /**
         * A picker on {@code ring}: an exchange without a key (or any while the ring is null, there
         * being no agents) goes {@link #keyless round-robin}; a keyed one walks the ring from its
         * key's hash ({@link #ringSelection}), logged as {@code <key name>=<key> hash=<position>}
         * followed by {@code moreDetail} of the position.
         *
         * @param placed     told each keyed exchange's ring position before its selection is made
         * @param moreDetail the strategy's own log detail of a position, {@code ""} for none
         */
        Picker ringPicker(HashRing ring, List<String> agentIds, ObjLongConsumer<Exchange> placed,
                LongFunction<String> moreDetail) {
            return exchange -> {
                String value = keyOf(exchange);
                if (ring == null || value == null) {
                    return keyless(exchange, agentIds);
                }
                long position = ring.hash(value);
                placed.accept(exchange, position);
                return ringSelection(value, position, ring.agentsClockwise(position), () -> keyName + "="
                        + DecisionLog.loggable(value) + " hash=" + Long.toUnsignedString(position)
                        + moreDetail.apply(position));
            };
        }

        /**
         * The selection of a keyed exchange: the ring walk as it is, or, with bounded loads on, the
         * walk's agent under the bound first and the rest of the walk after it.
         *
         * @param value     the exchange's key
         * @param position  the key's ring position
         * @param clockwise the ring walk from {@code position}, the ring owner first
         * @param detail    the strategy's log detail
         */
        public Selection ringSelection(String value, long position, Iterator<String> clockwise, Supplier<String> detail) {
            double rank = Selection.rankOf(position);
            if (bounded == null) {
                return new Selection(clockwise, detail, rank);
            }
            RingWalk walk = new RingWalk(clockwise);
            Placement placement = bounded.place(value, position, walk,
                    bounded.config().boundsInFlight() ? inFlight.get() : BoundedLoads.NOTHING_IN_FLIGHT);
            return new Selection(walk.startingWith(placement.agent()), () -> detail.get() + " bounded=" + placement.kind(), rank);
        }
    }

    /** Bounded loads follow the membership here, not on the request path. */
    @Override
    void agentsChanging(List<String> serving, List<String> members) {
        super.agentsChanging(serving, members);
        BoundedLoads bounded = boundedLoads;
        if (bounded != null) {
            bounded.setAgents(serving);
        }
    }

    /** Counts the attempt as load of {@code agentId} for bounded loads. */
    @Override
    protected void attemptStarted(String agentId, Exchange attempt) {
        BoundedLoads bounded = boundedLoads;
        if (bounded != null) {
            bounded.recordSent(agentId);
        }
    }

    /**
     * Keys exchanges by this header (JavaBean form of {@link KeyedBuilder#keyHeader}); applied,
     * and checked not blank, when the balancer starts.
     */
    public void setKeyHeader(String keyHeader) {
        keySettings.put("keyHeader", keyHeader,
                lb -> lb.useKey(ExpressionBuilder.headerExpression(Check.notBlank("keyHeader", keyHeader)), keyHeader));
    }

    /**
     * Keys exchanges by a chain of keys, the first present one winning (JavaBean form of
     * {@code key(AgentKeys.parse(keys), keys)}): a comma list of {@code session} (headers
     * {@code Mcp-Session-Id}, {@code X-Session-Id}), {@code prompt} (the prompt prefix of a JSON
     * body, {@link io.github.agentlb.core.key.PromptPrefix#ofDefaults()}), {@code header:<name>} or a
     * bare header name, e.g. {@code session,prompt,user_id}; see {@link AgentKeys}. Applied, and
     * checked, when the balancer starts: an unknown part fails the start with an
     * {@link IllegalArgumentException} naming {@code keys} and the part.
     */
    public void setKeys(String keys) {
        keySettings.put("keys", keys, lb -> lb.useKey(AgentKeys.parse(keys), keys.strip()));
    }

    /** @return the key chain set by {@link #setKeys}, else the key's name (e.g. {@code user_id}) */
    public String getKeys() {
        return keySettings.get("keys", keyName);
    }

    /** @return the key header (or the key's name when keyed by another expression) */
    public String getKeyHeader() {
        return keySettings.get("keyHeader", keyName);
    }

    @Override
    protected void applySettings() {
        super.applySettings();
        keySettings.applyTo(this);
    }

    private void useKey(Expression expression, String name) {
        if (getCamelContext() != null) {
            expression.init(getCamelContext());
        }
        key = expression;
        keyName = name;
        settingsChanged();
    }

    @Override
    protected void doInit() throws Exception {
        super.doInit();
        if (getCamelContext() != null) {
            key.init(getCamelContext());
        }
    }

    /**
     * The key part of a builder: {@link #keyHeader} or {@link #key}. Not thread-safe.
     *
     * @param <B> the concrete builder
     */
    public abstract static class KeyedBuilder<B extends KeyedBuilder<B>> {
        Expression key = ExpressionBuilder.headerExpression(DEFAULT_KEY_HEADER);
        String keyName = DEFAULT_KEY_HEADER;
        BoundedLoad boundedLoad = BoundedLoad.disabled();

        KeyedBuilder() {
        }

        /**
         * Keys exchanges by this header.
         *
         * @throws IllegalArgumentException if {@code header} is null or blank
         */
        public B keyHeader(String header) {
            Check.notBlank("keyHeader", header);
            return key(ExpressionBuilder.headerExpression(header), header);
        }

        /** Keys exchanges by {@code expression}; {@code name} labels the key in logs. */
        public B key(Expression expression, String name) {
            this.key = Objects.requireNonNull(expression, "key");
            this.keyName = name == null || name.isBlank() ? "key" : name;
            return self();
        }

        /** Bounds each agent's share of recent requests ({@link BoundedLoad}); off by default. */
        public B boundedLoad(BoundedLoad boundedLoad) {
            this.boundedLoad = Objects.requireNonNull(boundedLoad, "boundedLoad");
            return self();
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }
    }
}
