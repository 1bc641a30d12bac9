package io.github.agentlb.camel;

import io.github.agentlb.core.bounded.BoundedLoads;
import io.github.agentlb.core.bounded.Placement;
import io.github.agentlb.core.bounded.RingWalk;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.select.RoundRobin;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The selection of the strategies that route by a key ({@code ch}, {@code avn}), for one state:
 * the key ({@link BalancerConfig#key()}), the ring walk from the key's hash, the load bound of the
 * state ({@link BalancerState} bounded loads, read with the state's own in-flight counters) and,
 * for an exchange without key, a rotation. Immutable and thread-safe; the bound's loads are
 * per-agent state outside the balancer's state.
 */
final class KeyedSelection {

    private static final Logger LOG = LoggerFactory.getLogger(KeyedSelection.class);

    private final BalancerConfig.Key key;
    private final List<String> agentIds;
    private final BoundedLoads bounded;
    private final RoundRobin keylessRotation;
    private final ToIntFunction<String> inFlight;

    /**
     * @param state           the state the picker is built for
     * @param keylessRotation the strategy's rotation for exchanges without key, shared by its pickers
     * @param clock           the balancer's clock, read for an agent's load report only
     */
    KeyedSelection(BalancerState state, RoundRobin keylessRotation, LongSupplier clock) {
        this.key = state.config.key();
        this.agentIds = state.agentIds();
        this.bounded = state.boundedLoads;
        this.keylessRotation = keylessRotation;
        // Each agent's requests in flight through this balancer, plus those of other balancers by a fresh ORCA report.
        this.inFlight = agent -> state.inFlight(agent)
                + (state.hasReported(agent) ? (int) Math.round(state.reportedBeyondOwn(agent, clock.getAsLong())) : 0);
    }

    /** The exchange's key, or null when it is missing or blank. */
    String keyOf(Exchange exchange) {
        String value = AgentKeys.text(exchange, key.expression().evaluate(exchange, Object.class));
        return value == null || value.isBlank() ? null : value;
    }

    /** The selection for an exchange without a key: the next agent in rotation, then the others. */
    Selection keyless(Exchange exchange) {
        LOG.debug("No {} on exchange {}: spreading it round-robin", key.name(), exchange.getExchangeId());
        return new Selection(RoundRobinStrategy.rotationFrom(keylessRotation.next(agentIds.size()), agentIds),
                () -> key.name() + "=<none>");
    }

    /**
     * A picker on {@code ring}: an exchange without a key (or any while the ring is null, there
     * being no agents) goes {@link #keyless round-robin}; a keyed one walks the ring from its key's
     * hash, logged as {@code <key name>=<key> hash=<position>} followed by {@code moreDetail}.
     *
     * @param withToken  whether the selection carries the key's ring position as its token
     * @param moreDetail the strategy's own log detail of a position, {@code ""} for none
     */
    Picker ringPicker(HashRing ring, boolean withToken, LongFunction<String> moreDetail) {
        return new RingPicker(ring, exchange -> {
            String value = keyOf(exchange);
            if (ring == null || value == null) {
                return keyless(exchange);
            }
            long position = ring.hash(value);
            return ringSelection(value, position, ring.agentsClockwise(position), withToken, () -> key.name() + "="
                    + DecisionLog.loggable(value) + " hash=" + Long.toUnsignedString(position) + moreDetail.apply(position));
        });
    }

    /**
     * The selection of a keyed exchange: the ring walk as it is, or, with bounded loads on, the
     * walk's agent under the bound first and the rest of the walk after it. A key from a
     * {@code mcp-param:} part (an MCP handle, whose agent holds its state) has its ring owner as
     * its one candidate under either ({@link BoundedLoads#placeStateful}): no other agent knows the
     * handle, so its call fails, or waits, with its owner rather than go elsewhere, as a learned
     * session's does.
     */
    private Selection ringSelection(String value, long position, Iterator<String> clockwise, boolean withToken,
            Supplier<String> detail) {
        double rank = Selection.rankOf(position);
        if (McpKeys.isParam(value)) {
            RingWalk walk = new RingWalk(clockwise);
            Supplier<String> owner = bounded == null ? detail : placed(detail, bounded.placeStateful(walk));
            Iterator<String> only = List.of(walk.home()).iterator();
            return withToken ? new Selection(only, owner, rank, position) : new Selection(only, owner, rank);
        }
        if (bounded == null) {
            return withToken ? new Selection(clockwise, detail, rank, position) : new Selection(clockwise, detail, rank);
        }
        RingWalk walk = new RingWalk(clockwise);
        // Kept placements count each key's requests in flight: those in flight together are placed per request.
        boolean counted = bounded.config().boundsInFlight() && bounded.config().keepInFlightPlacement();
        Placement placement = bounded.place(value, position, walk,
                bounded.config().boundsInFlight() ? inFlight : BoundedLoads.NOTHING_IN_FLIGHT,
                counted && bounded.requestStarted(value) > 0);
        Supplier<String> bound = placed(detail, placement);
        Iterator<String> candidates = walk.startingWith(placement.agent());
        Selection selection = withToken ? new Selection(candidates, bound, rank, position) : new Selection(candidates, bound, rank);
        return counted ? selection.onEnd(() -> bounded.requestEnded(value)) : selection;
    }

    private static Supplier<String> placed(Supplier<String> detail, Placement placement) {
        return () -> detail.get() + " bounded=" + placement.kind();
    }

    /** A picker on a ring, which says which ring it decides with (for tools and tests). */
    record RingPicker(HashRing ring, Picker delegate) implements Picker {
        @Override
        public Selection select(Exchange exchange) {
            return delegate.select(exchange);
        }
    }
}
