package io.github.agentlb.camel;

import io.github.agentlb.core.bounded.BoundedLoad;
import io.github.agentlb.core.bounded.BoundedLoads;
import java.util.Objects;
import org.apache.camel.Expression;

/**
 * The knobs of the strategies that route by a key ({@code ch}, {@code avn}): the key
 * ({@link BalancerConfig#key()}) and the load bound ({@link BalancerConfig#boundedLoad()}); when a
 * knob takes effect: {@link Configurable}.
 *
 * <p>The key is a Camel {@link Expression}, header {@value BalancerConfig.Key#DEFAULT_HEADER} by
 * default; {@link #setKeyHeader} for one header, {@link #setKeys} for a chain such as
 * {@code session,prompt,user_id} ({@link AgentKeys}), {@link #setKey} for any expression. A missing
 * or blank key is not an error: such exchanges are spread round-robin, with a DEBUG log.
 *
 * <p>Bounded loads (off by default): with {@link #setBoundedLoad} or {@link #setBalanceFactor}, an
 * agent above c x the mean share of recent requests passes on the share of its cold keys with the
 * lowest hash ranks to the next agent of the ring walk, and heavy keys stay home (see
 * {@link BoundedLoads}); the ring is unchanged, and balancer replicas move nearly the same keys.
 * Each attempt sent counts as load; the decision log line gains
 * {@code bounded=<HOME|OVERFLOW|STICKY|RETURNED|HELD|DIVERTED>}. With {@link #setInFlightFactor}
 * (KubeAI's bound) an agent over f x the mean requests in flight also passes the request on. A key
 * of a {@code mcp-param:} part (a stateful server's handle) is never passed on by either bound: it
 * goes to its ring owner, where its state is, and counts as load there
 * ({@link BoundedLoads#placeStateful}). A new load bound starts afresh: recent loads and overflowed
 * keys are forgotten.
 */
public interface KeySettings extends Configurable {

    /** Keys exchanges by {@code expression}; {@code name} labels the key in logs and {@link #getKeys()}. */
    default void setKey(Expression expression, String name) {
        BalancerConfig.Key key = new BalancerConfig.Key(expression, name);
        configure("key", name, d -> d.key(key));
    }

    /** Keys exchanges by this header. @throws IllegalArgumentException if blank, or if {@link #setKeys} was set too */
    default void setKeyHeader(String keyHeader) {
        BalancerConfig.Key key = BalancerConfig.Key.header(keyHeader);
        if (wasSet("keys")) {
            throw bothSet(getKeys(), keyHeader);
        }
        configure("keyHeader", keyHeader, d -> d.key(key));
    }

    /** @return the key's name: the header, the key chain set by {@link #setKeys}, or the name given with {@link #setKey} */
    default String getKeyHeader() {
        return balancerConfig().key().name();
    }

    /**
     * Keys exchanges by a chain of keys, the first present one winning: a comma list of
     * {@code session} (headers {@code Mcp-Session-Id}, {@code X-Session-Id}), {@code prompt} (the
     * prompt prefix of a JSON body, {@link io.github.agentlb.core.key.PromptPrefix#ofDefaults()}),
     * {@code header:<name>} or a bare header name, e.g. {@code session,prompt,user_id}; or the
     * headers an MCP client of revision 2026-07-28 mirrors, trusted only from that revision on:
     * {@code mcp-method}, {@code mcp-name}, {@code mcp-param:<Name>} (e.g.
     * {@code mcp-param:handle,session}); see {@link AgentKeys}.
     *
     * @throws IllegalArgumentException naming {@code keys} and the part when a part is unknown, or naming both when {@link #setKeyHeader} was set too
     */
    default void setKeys(String keys) {
        BalancerConfig.Key key = new BalancerConfig.Key(AgentKeys.parse(keys), keys.strip());
        if (wasSet("keyHeader")) {
            throw bothSet(keys, getKeyHeader());
        }
        configure("keys", keys, d -> d.key(key));
    }

    /** {@code keys} and {@code keyHeader} both set: bound by name, the later one would win whatever the file's order. */
    private static IllegalArgumentException bothSet(String keys, String keyHeader) {
        return new IllegalArgumentException("keys '" + keys + "' and keyHeader '" + keyHeader + "' both name the key: set one");
    }

    /** @return the key chain set by {@link #setKeys}, else the key's name (e.g. {@code user_id}) */
    default String getKeys() {
        return getKeyHeader();
    }

    /** @return the load bound in use ({@link BoundedLoad#disabled()} unless set, and while it is off) */
    default BoundedLoad getBoundedLoad() {
        BoundedLoad bound = balancerConfig().boundedLoad();
        return bound.isEnabled() ? bound : BoundedLoad.disabled();
    }

    /** Sets the load bound; {@link BoundedLoad#disabled()} turns it off. */
    default void setBoundedLoad(BoundedLoad boundedLoad) {
        Objects.requireNonNull(boundedLoad, "boundedLoad");
        configure("boundedLoad", boundedLoad, d -> d.boundedLoad(boundedLoad));
    }

    /**
     * Sets the balance factor c of the load bound (HAProxy's {@code hash-balance-factor} / 100),
     * keeping its other settings, or the defaults of {@link BoundedLoad} if it was off; 0 turns it
     * off, as {@code hash-balance-factor 0}.
     *
     * @throws IllegalArgumentException if neither 0 nor > 1, or not above the return factor
     */
    default void setBalanceFactor(double balanceFactor) {
        configure("balanceFactor", balanceFactor, d -> d.boundedLoad(balanceFactor == 0 ? offKeeping(d.boundedLoad())
                : on(d.boundedLoad()).balanceFactor(balanceFactor).build()));
    }

    /** @return the balance factor c, or 0 while bounded loads are off */
    default double getBalanceFactor() {
        BoundedLoad current = getBoundedLoad();
        return current.isEnabled() ? current.balanceFactor() : 0;
    }

    /**
     * Sets f of the in-flight bound ({@link BoundedLoad#inFlightFactor()}; KubeAI's 1.25 is
     * {@link BoundedLoad#KUBEAI_IN_FLIGHT_FACTOR}), keeping the bound's other settings, or the
     * defaults of {@link BoundedLoad} if it was off (so the share bound comes on with c = 1.25),
     * unless {@code balanceFactor} 0 turned them off by name, before or after (then they stay off);
     * 0 turns the in-flight bound off and leaves the share bound as it is.
     *
     * @throws IllegalArgumentException if neither 0 nor finite and >= 1
     */
    default void setInFlightFactor(double inFlightFactor) {
        configure("inFlightFactor", inFlightFactor, d -> {
            boolean offByName = !d.boundedLoad().isEnabled() && wasSet("balanceFactor"); // balanceFactor 0 wins, in any order
            if (!offByName && (inFlightFactor != 0 || d.boundedLoad().isEnabled())) {
                d.boundedLoad(on(d.boundedLoad()).inFlightFactor(inFlightFactor).build());
            }
        });
    }

    /** @return f of the in-flight bound, or 0 while it is off */
    default double getInFlightFactor() {
        return getBoundedLoad().boundsInFlight() ? getBoundedLoad().inFlightFactor() : 0;
    }

    /**
     * Whether the in-flight bound places a key's session rather than each request: the key keeps
     * the agent it was placed on while its requests keep coming at most the decay time apart
     * ({@link BoundedLoad#keepInFlightPlacement()}; false: per request, as KubeAI). For keys whose
     * agent holds their state, such as a conversation's cached prompt. Does nothing while the
     * in-flight bound is off and turns no bound on: set while bounded loads are off, it is kept for
     * when {@link #setInFlightFactor} or {@link #setBalanceFactor} turns them on, in any order.
     * It needs the in-flight bound: a balancer started with it and without that bound is refused,
     * and after the start setting it without the bound, or turning the bound off while it is set,
     * is refused at once.
     *
     * @throws IllegalArgumentException after the start, if the in-flight bound is off
     */
    default void setKeepInFlightPlacement(boolean keep) {
        configure("keepInFlightPlacement", keep, d -> d.boundedLoad(d.boundedLoad().withKeepInFlightPlacement(keep)));
    }

    default boolean isKeepInFlightPlacement() {
        return balancerConfig().boundedLoad().keepInFlightPlacement();
    }

    /** The bound's builder: its settings if it is on, else the defaults with what was kept while it was off. */
    private static BoundedLoad.Builder on(BoundedLoad current) {
        return current.isEnabled() ? current.toBuilder()
                : BoundedLoad.custom().keepInFlightPlacement(current.keepInFlightPlacement());
    }

    /** Bounded loads off, keeping {@code keepInFlightPlacement} for when they come on again. */
    private static BoundedLoad offKeeping(BoundedLoad current) {
        return BoundedLoad.disabled().withKeepInFlightPlacement(current.keepInFlightPlacement());
    }
}
