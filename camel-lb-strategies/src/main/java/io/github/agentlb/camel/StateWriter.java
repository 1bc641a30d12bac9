package io.github.agentlb.camel;

import io.github.agentlb.core.bounded.BoundedLoads;
import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.health.OutlierDetector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceHelper;

/**
 * The one writer of a balancer's {@link BalancerState}: every change (children added or removed, names, weights,
 * drains, slow starts, knobs, a strategy's new picker) is made here under one lock and published as one new state,
 * all or nothing: a change that the strategy or a check rejects leaves the balancer as it was. The stores built from
 * the configuration (outlier ejection, bounded loads, learned sessions) are replaced, or told of new members, inside
 * the same publication, so a request never sees a store that lacks a member of its state. Requests never take the
 * lock. Batches of membership edits are {@link MembershipEdit}'s.
 *
 * <p>Over 300 lines: membership, drains, slow starts and knobs all change the same state under the same lock, and
 * each must end in one publication.
 */
final class StateWriter implements StrategyContext {

    /** What the writer needs of its balancer's Camel side. */
    interface Owner {
        AsyncProcessor[] children();

        void addChild(AsyncProcessor child);

        void removeChild(AsyncProcessor child);

        /** Whether the balancer is starting or started: a knob that breaks a relation is refused at once then. */
        boolean started();

        /** The balancer, as the source of the strategy's threads ({@link StrategyContext#source()}). */
        Object source();

        String name();
    }

    private final Owner owner;
    private final Strategy strategy;
    private final Listeners listeners;
    private final LongSupplier clock;
    private final Membership membership = new Membership();
    private final Map<AsyncProcessor, AgentSlot> slots = new IdentityHashMap<>();
    final Map<String, Double> weights = new HashMap<>();
    final Set<String> draining = new TreeSet<>();
    /** The futures {@link RuntimeMembership#drainAgent} returned, by name, until each drain ends. */
    final Map<String, CompletableFuture<Void>> drains = new HashMap<>();
    final Map<String, Long> warmingSince = new HashMap<>();
    private final WaitingKnobs waiting = new WaitingKnobs();
    private BalancerConfig config;
    /** The configuration the strategy was last told of. */
    private BalancerConfig configured;
    /** The configuration the published stores were built for; null before the first state. */
    private BalancerConfig built;
    private OutlierDetector detector;
    private BoundedLoads boundedLoads;
    private SessionAffinity sessions;
    private long generation;
    /** Null until the balancer has one: key expressions are initialised with it. */
    private CamelContext camelContext;
    private volatile BalancerState state = BalancerState.EMPTY;

    StateWriter(Owner owner, Strategy strategy, Listeners listeners, LongSupplier clock, BalancerConfig config) {
        this.owner = owner;
        this.strategy = strategy;
        this.listeners = listeners;
        this.clock = clock;
        this.config = config;
    }

    BalancerState state() {
        return state;
    }

    synchronized BalancerConfig config() {
        return config;
    }

    /** A knob ({@link Configurable#configure}): applied and published at once, or waiting until start. */
    synchronized void configure(String knob, Object value, Consumer<ConfigDraft> change) {
        waiting.setting(knob, () -> {
            BalancerConfig next = waiting.apply(config, knob, value, change, !owner.started());
            if (next != null) {
                useConfig(next);
            }
        });
    }

    /** @see Configurable#wasSet */
    synchronized boolean wasSet(String knob) {
        return waiting.wasSet(knob);
    }

    synchronized <T> T configured(String knob, T current) {
        return waiting.value(knob, current);
    }

    /** Applies the knobs waiting for each other as the start does; throws naming one whose relation does not hold. */
    synchronized void applyWaitingKnobs() {
        useConfig(waiting.applyAll(config));
    }

    /** The start: waiting knobs applied, names checked, one new state; an IllegalArgumentException names what fails. */
    synchronized void start() {
        config = waiting.applyAll(config);
        membership.checkNamedAtFirstStart(owner.children());
        publish(true);
    }

    /** Tells the strategy of the configuration it is made with, once it is attached. */
    synchronized void attached() {
        configureStrategy();
    }

    /** A new configuration: published at once when there is a state, else told to the strategy. */
    private void useConfig(BalancerConfig next) {
        BalancerConfig before = config;
        config = next;
        try {
            if (generation > 0) {
                publish(false);
            } else {
                configureStrategy();
            }
        } catch (RuntimeException e) {
            config = before;
            throw e;
        }
    }

    private void configureStrategy() {
        if (configured != config) {
            strategy.configure(config);
            configured = config;
        }
    }

    /** A new outlier detector for the same rules: earlier ejections forgotten (a new clock). */
    synchronized void resetDetector() {
        detector = null;
        if (generation > 0) {
            publish(false);
        }
    }

    /** Republishes after children changed (added or removed the Camel way); rethrows a rejection. */
    synchronized void childrenChanged() {
        publish(true);
    }

    /** Republishes with the same members and a new picker (a strategy learned a new ring or schedule). */
    @Override
    public synchronized void pickerChanged() {
        publish(false);
    }

    @Override
    public synchronized CamelContext camelContext() {
        return camelContext;
    }

    synchronized void setCamelContext(CamelContext context) {
        camelContext = context;
    }

    @Override
    public Object source() {
        return owner.source();
    }

    @Override
    public String name() {
        return owner.name();
    }

    synchronized void name(String endpointUri, String agentId) {
        String previous = membership.name(endpointUri, agentId);
        try {
            membership.checkNamed(owner.started() ? List.of(endpointUri) : List.of(), owner.children());
            publish(true);
        } catch (RuntimeException e) {
            membership.restoreName(endpointUri, previous);
            throw e;
        }
    }

    @Override
    public long nanoTime() {
        return clock.getAsLong();
    }

    Membership membership() {
        return membership;
    }

    Owner owner() {
        return owner;
    }

    /** The slot of {@code child}, made for a child added now. */
    AgentSlot newSlot(AsyncProcessor child, boolean owned) {
        AgentSlot slot = new AgentSlot(child, owned);
        slots.put(child, slot);
        return slot;
    }

    /** Forgets a child added by a batch that was rejected. */
    void dropSlot(AsyncProcessor child) {
        membership.forgetChild(child);
        AgentSlot slot = slots.remove(child);
        if (slot != null && slot.owned) {
            stopOwned(slot);
        }
    }

    /** The drain futures of {@code names}, completing when each has left. */
    Map<String, CompletableFuture<Void>> drainsOf(Set<String> names) {
        Map<String, CompletableFuture<Void>> asked = new LinkedHashMap<>();
        for (String name : names) {
            asked.put(name, drains.computeIfAbsent(name, n -> new CompletableFuture<>()));
        }
        return asked;
    }

    /** After a batch was published: retire the children it removed, log it ({@link MembershipLog}) and finish drains already idle. */
    void batchApplied(List<AsyncProcessor> removed, Map<String, Double> newWeights, boolean loggedByCaller) {
        for (AsyncProcessor child : removed) {
            retire(child);
        }
        MembershipLog.applied(state.generation(), state.agentIds(), draining, newWeights, loggedByCaller);
        finishIdleDrains(loggedByCaller);
    }

    /** The last request of a draining or removed agent ended: finish its drain or stop its child. */
    void lastRequestEnded(AgentSlot slot) {
        if (slot.life.get() == AgentSlot.REMOVED) {
            if (slot.idle()) {
                stopOwned(slot);
            }
        } else {
            synchronized (this) {
                finishIdleDrains(false);
            }
        }
    }

    /** Slow start again for an agent re-admitted after ejection. */
    synchronized void rampUp(String agentId) {
        if (config.slowStart().isEnabled() && state.members().contains(agentId)) {
            warmingSince.put(agentId, clock.getAsLong());
            publish(false);
        }
    }

    /** Removes the draining agents that are idle; {@code quiet}: the caller said the change (their line is DEBUG). */
    private void finishIdleDrains(boolean quiet) {
        Map<String, AsyncProcessor> byId = currentChildren();
        List<String> done = new ArrayList<>();
        for (String name : draining) {
            AgentSlot slot = slots.get(byId.get(name));
            if (slot == null || slot.inFlight.get() == 0) {
                done.add(name);
            }
        }
        if (done.isEmpty()) {
            return;
        }
        for (String name : done) {
            AsyncProcessor child = byId.get(name);
            draining.remove(name);
            if (child != null) {
                owner.removeChild(child);
            }
        }
        publish(true);
        for (String name : done) {
            AsyncProcessor child = byId.get(name);
            if (child != null) {
                retire(child);
            }
            CompletableFuture<Void> future = drains.remove(name);
            if (future != null) {
                future.complete(null);
            }
        }
        MembershipLog.drained(done, quiet);
    }

    private void retire(AsyncProcessor child) {
        membership.forgetChild(child);
        AgentSlot slot = slots.remove(child);
        if (slot != null) {
            slot.life.set(AgentSlot.REMOVED);
            if (slot.idle()) {
                stopOwned(slot);
            }
        }
    }

    private static void stopOwned(AgentSlot slot) {
        if (slot.owned) {
            ServiceHelper.stopAndShutdownService(slot.child);
        }
    }

    Map<String, AsyncProcessor> currentChildren() {
        return membership.compute(owner.children()).byId();
    }

    /**
     * Computes and publishes a new state. The strategy's hooks run first, so one that rejects the
     * change leaves every store as it was.
     *
     * @param agentsChanged whether children, names or drains changed (the strategy is told)
     */
    void publish(boolean agentsChanged) {
        Membership.Members computed = membership.compute(owner.children());
        List<String> members = computed.ids();
        List<String> serving = members.stream().filter(id -> !draining.contains(id)).toList();
        strategy.check(config, serving, Collections.unmodifiableMap(weights));
        BalancerConfig previous = built;
        configureStrategy();
        if (agentsChanged || previous == null) {
            strategy.agentsChanged(serving);
        }
        rebuildStores(previous, members, serving, agentsChanged);
        built = config;
        Map<String, AgentSlot> slotsById = new HashMap<>();
        for (Map.Entry<String, AsyncProcessor> e : computed.byId().entrySet()) {
            AgentSlot slot = slots.computeIfAbsent(e.getValue(), c -> new AgentSlot(c, false));
            slot.life.compareAndSet(AgentSlot.DRAINING, draining.contains(e.getKey()) ? AgentSlot.DRAINING : AgentSlot.SERVING);
            slotsById.put(e.getKey(), slot);
        }
        weights.keySet().retainAll(members);
        draining.retainAll(members);
        long now = warmingSince.isEmpty() ? 0 : clock.getAsLong();
        warmingSince.entrySet().removeIf(e -> !members.contains(e.getKey())
                || now - e.getValue() >= config.slowStart().window().toNanos());
        Map<String, Double> allWeights = new LinkedHashMap<>();
        for (String id : members) {
            allWeights.put(id, weights.getOrDefault(id, AgentSpec.DEFAULT_WEIGHT));
        }
        BalancerState before = state;
        BalancerState view = new BalancerState(generation + 1, members, serving, Map.copyOf(slotsById),
                Collections.unmodifiableMap(allWeights), Collections.unmodifiableSet(new TreeSet<>(draining)),
                Map.copyOf(warmingSince), config, detector, boundedLoads, sessions, null);
        state = view.withPicker(strategy.newPicker(view));
        // Draining once the state without them is out: a request of the state before finds its agents.
        draining.forEach(id -> slotsById.get(id).life.set(AgentSlot.DRAINING));
        generation++;
        listeners.published(before, state);
    }

    /** Outlier ejection, bounded loads and learned sessions for the configuration and members of the new state. */
    private void rebuildStores(BalancerConfig previous, List<String> members, List<String> serving, boolean agentsChanged) {
        if (detector == null || previous == null || !previous.ejection().equals(config.ejection())) {
            detector = new OutlierDetector(config.ejection(), clock);
            detector.setAgents(members);
        } else if (agentsChanged) {
            detector.setAgents(members);
        }
        if (previous == null || !previous.boundedLoad().equals(config.boundedLoad())) {
            boundedLoads = config.boundedLoad().isEnabled() ? new BoundedLoads(config.boundedLoad(), clock) : null;
            if (boundedLoads != null) {
                boundedLoads.setAgents(serving);
            }
        } else if (agentsChanged && boundedLoads != null) {
            boundedLoads.setAgents(serving);
        }
        if (previous == null || !previous.sessions().equals(config.sessions()) || previous.key() != config.key()) {
            sessions = SessionAffinity.of(config.sessions(), config.key().name());
        }
        if (previous == null || previous.key() != config.key()
                || previous.flowControl().tenant() != config.flowControl().tenant()) {
            initKey();
        }
    }

    /** Initialises the key and tenant expressions, once the balancer has a CamelContext. */
    synchronized void initKey() {
        if (camelContext != null) {
            config.key().expression().init(camelContext);
            config.flowControl().tenant().init(camelContext);
        }
    }
}
