package io.github.agentlb.camel;

import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.health.OutlierDetector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.support.service.ServiceHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one writer of a balancer's {@link BalancerState}: every change (children added or removed,
 * names, weights, drains, slow starts, settings, a strategy's new picker) is made here under one
 * lock and published as one new state, all or nothing: a change that the strategy or a check
 * rejects leaves the balancer as it was. Requests never take the lock.
 *
 * <p>Over 300 lines: the batch edit with its roll-back, drains and slow starts all change the
 * same maps under the same lock, and each must end in one publication.
 */
final class StateWriter {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.agentlb.membership");

    /** What the writer needs of its balancer. */
    interface Owner {
        AsyncProcessor[] children();

        void addChild(AsyncProcessor child);

        void removeChild(AsyncProcessor child);

        /** The strategy's membership hook, then bounded loads and the detector: may throw to reject. */
        void agentsChanging(List<String> serving, List<String> members);

        Picker newPicker(List<String> serving, Map<String, Double> weights);

        OutlierDetector detector();

        FailoverPolicy policy();

        AnswerRules answerRules();

        long nanoTime();

        boolean started();

        /** After the new state is published, when the serving agents changed: the membership listeners. */
        void agentsChanged(List<String> serving);
    }

    private final Owner owner;
    private final Membership membership = new Membership();
    private final Map<AsyncProcessor, AgentSlot> slots = new IdentityHashMap<>();
    private final Map<String, Double> weights = new HashMap<>();
    private final Set<String> draining = new TreeSet<>();
    private final Map<String, CompletableFuture<Void>> drains = new HashMap<>();
    private final Map<String, Long> warmingSince = new HashMap<>();
    private SlowStart slowStart = SlowStart.DISABLED;
    private long generation;
    private volatile BalancerState state = BalancerState.EMPTY;

    StateWriter(Owner owner) {
        this.owner = owner;
    }

    BalancerState state() {
        return state;
    }

    synchronized SlowStart slowStart() {
        return slowStart;
    }

    synchronized void setSlowStart(SlowStart value) {
        slowStart = value;
        if (!value.isEnabled()) {
            warmingSince.clear();
        }
        publish(false);
    }

    /** Republishes after children changed (added or removed the Camel way); rethrows a rejection. */
    synchronized void childrenChanged() {
        publish(true);
    }

    /** Republishes with the same members and a new picker (a strategy learned a new ring or schedule). */
    synchronized void pickerChanged() {
        publish(false);
    }

    synchronized void name(String endpointUri, String agentId) {
        String previous = membership.name(endpointUri, agentId);
        try {
            publish(true);
        } catch (RuntimeException e) {
            membership.restoreName(endpointUri, previous);
            throw e;
        }
    }

    /** A batch of membership edits applied as one new state, or not at all. */
    final class Change {
        private final Map<String, Double> adds = new LinkedHashMap<>();
        private final Map<String, AsyncProcessor> addedChildren = new HashMap<>();
        private final Set<String> removes = new LinkedHashSet<>();
        private final Set<String> drainsAsked = new LinkedHashSet<>();
        private final Map<String, Double> newWeights = new LinkedHashMap<>();

        private final Set<AsyncProcessor> ownedChildren = Collections.newSetFromMap(new IdentityHashMap<>());

        Change add(String name, AsyncProcessor child, double weight, boolean owned) {
            adds.put(checkedName(name), checkedWeight(weight));
            addedChildren.put(name, java.util.Objects.requireNonNull(child, "child"));
            if (owned) {
                ownedChildren.add(child);
            }
            return this;
        }

        Change remove(String name) {
            removes.add(name);
            return this;
        }

        Change drain(String name) {
            drainsAsked.add(name);
            return this;
        }

        Change weight(String name, double weight) {
            newWeights.put(checkedName(name), checkedWeight(weight));
            return this;
        }

        boolean isEmpty() {
            return adds.isEmpty() && removes.isEmpty() && drainsAsked.isEmpty() && newWeights.isEmpty();
        }

        /** @return the drains asked, completing when each agent has left */
        Map<String, CompletableFuture<Void>> apply() {
            return applyChange(this);
        }
    }

    Change change() {
        return new Change();
    }

    private synchronized Map<String, CompletableFuture<Void>> applyChange(Change change) {
        List<String> members = state.members();
        for (String name : change.adds.keySet()) {
            if (members.contains(name) && !draining.contains(name) && !change.removes.contains(name)) {
                throw new IllegalArgumentException("agent '" + name + "' is already a member");
            }
        }
        for (String name : union(change.removes, change.drainsAsked, change.newWeights.keySet())) {
            if (!members.contains(name) && !change.adds.containsKey(name)) {
                throw new IllegalArgumentException("agent '" + name + "' is not a member; members: " + members);
            }
        }
        // Keep what a rejected change must restore.
        Map<String, Double> weightsBefore = new HashMap<>(weights);
        Set<String> drainingBefore = new TreeSet<>(draining);
        Map<String, Long> warmingBefore = new HashMap<>(warmingSince);
        List<AsyncProcessor> added = new ArrayList<>();
        List<AsyncProcessor> removed = new ArrayList<>();
        Map<String, AsyncProcessor> byId = currentChildren();
        try {
            for (String name : change.removes) {
                AsyncProcessor child = byId.get(name);
                if (child != null) {
                    owner.removeChild(child);
                    removed.add(child);
                }
                draining.remove(name);
            }
            for (Map.Entry<String, Double> add : change.adds.entrySet()) {
                String name = add.getKey();
                weights.put(name, add.getValue());
                if (draining.remove(name) && !change.removes.contains(name)) {
                    continue; // back before it left: it keeps its child and its keys
                }
                AsyncProcessor child = change.addedChildren.get(name);
                membership.nameChild(child, name);
                slots.put(child, new AgentSlot(child, change.ownedChildren.contains(child)));
                if (owner.started()) {
                    ServiceHelper.startService(child); // before any request can reach it
                }
                owner.addChild(child);
                added.add(child);
                if (owner.started() && slowStart.isEnabled()) {
                    warmingSince.put(name, owner.nanoTime());
                }
            }
            draining.addAll(change.drainsAsked);
            weights.putAll(change.newWeights);
            publish(true);
        } catch (RuntimeException e) {
            for (AsyncProcessor child : added) {
                owner.removeChild(child);
                membership.forgetChild(child);
                AgentSlot slot = slots.remove(child);
                if (slot != null && slot.owned) {
                    stopOwned(slot);
                }
            }
            for (AsyncProcessor child : removed) {
                owner.addChild(child);
            }
            restore(weights, weightsBefore);
            draining.clear();
            draining.addAll(drainingBefore);
            restore(warmingSince, warmingBefore);
            throw e;
        }
        for (AsyncProcessor child : removed) {
            retire(child);
        }
        Map<String, CompletableFuture<Void>> asked = new LinkedHashMap<>();
        for (String name : change.drainsAsked) {
            asked.put(name, drains.computeIfAbsent(name, n -> new CompletableFuture<>()));
        }
        LOG.info("Membership generation {}: agents={}{}{}", state.generation(), state.agentIds(),
                draining.isEmpty() ? "" : " draining=" + draining,
                change.newWeights.isEmpty() ? "" : " weights=" + change.newWeights);
        finishIdleDrains();
        return asked;
    }

    /** The last request of a draining or removed agent ended: finish its drain or stop its child. */
    void lastRequestEnded(String agentId, AgentSlot slot) {
        if (slot.removed) {
            stopOwned(slot);
        } else {
            synchronized (this) {
                finishIdleDrains();
            }
        }
    }

    /** Slow start again for an agent re-admitted after ejection. */
    synchronized void rampUp(String agentId) {
        if (slowStart.isEnabled() && state.members().contains(agentId)) {
            warmingSince.put(agentId, owner.nanoTime());
            publish(false);
        }
    }

    private void finishIdleDrains() {
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
            LOG.info("Agent {} drained and removed", name);
        }
    }

    private void retire(AsyncProcessor child) {
        membership.forgetChild(child);
        AgentSlot slot = slots.remove(child);
        if (slot != null) {
            slot.removed = true;
            if (slot.inFlight.get() == 0) {
                stopOwned(slot);
            }
        }
    }

    private static void stopOwned(AgentSlot slot) {
        if (slot.owned) {
            ServiceHelper.stopAndShutdownService(slot.child);
        }
    }

    private Map<String, AsyncProcessor> currentChildren() {
        return membership.compute(owner.children()).byId();
    }

    /**
     * Computes and publishes a new state.
     *
     * @param agentsChanged whether children, names or drains changed (the strategy is told)
     */
    private void publish(boolean agentsChanged) {
        Membership.Members computed = membership.compute(owner.children());
        List<String> members = computed.ids();
        List<String> serving = new ArrayList<>(members.size());
        for (String id : members) {
            if (!draining.contains(id)) {
                serving.add(id);
            }
        }
        serving = List.copyOf(serving);
        Map<String, Double> servingWeights = new LinkedHashMap<>();
        for (String id : serving) {
            servingWeights.put(id, weights.getOrDefault(id, AgentSpec.DEFAULT_WEIGHT));
        }
        if (agentsChanged) {
            owner.agentsChanging(serving, members);
        }
        Picker picker = owner.newPicker(serving, Collections.unmodifiableMap(servingWeights));
        Map<String, AgentSlot> slotsById = new HashMap<>();
        for (Map.Entry<String, AsyncProcessor> e : computed.byId().entrySet()) {
            AgentSlot slot = slots.computeIfAbsent(e.getValue(), c -> new AgentSlot(c, false));
            slot.draining = draining.contains(e.getKey());
            slotsById.put(e.getKey(), slot);
        }
        weights.keySet().retainAll(members);
        draining.retainAll(members);
        long now = warmingSince.isEmpty() ? 0 : owner.nanoTime();
        warmingSince.entrySet().removeIf(e -> !members.contains(e.getKey())
                || now - e.getValue() >= slowStart.window().toNanos());
        Map<String, Double> allWeights = new LinkedHashMap<>();
        for (String id : members) {
            allWeights.put(id, weights.getOrDefault(id, AgentSpec.DEFAULT_WEIGHT));
        }
        List<String> servingBefore = state.agentIds();
        state = new BalancerState(++generation, members, serving, Map.copyOf(slotsById),
                Collections.unmodifiableMap(allWeights), Collections.unmodifiableSet(new TreeSet<>(draining)),
                Map.copyOf(warmingSince), picker, owner.detector(), owner.policy(), owner.answerRules(), slowStart);
        if (!serving.equals(servingBefore)) {
            owner.agentsChanged(serving);
        }
    }

    private static String checkedName(String name) {
        io.github.agentlb.core.Check.notBlank("name", name);
        if (name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("name must not contain white space, was '" + name + "'");
        }
        return name;
    }

    private static double checkedWeight(double weight) {
        if (!(weight > 0 && weight <= AgentSpec.MAX_WEIGHT)) {
            throw new IllegalArgumentException("weight must be in (0, " + (int) AgentSpec.MAX_WEIGHT + "], was " + weight);
        }
        return weight;
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new LinkedHashSet<>();
        for (Set<String> s : sets) {
            all.addAll(s);
        }
        return all;
    }

    private static <K, V> void restore(Map<K, V> target, Map<K, V> saved) {
        target.clear();
        target.putAll(saved);
    }
}
