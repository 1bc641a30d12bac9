package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.fleet.AgentSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.support.service.ServiceHelper;

/**
 * Membership edits of one balancer, applied together as one new {@link BalancerState} by
 * {@link #apply()}: all of them, or, when one is rejected, none. Removals are applied before
 * additions, so a removal and then an addition of one name replaces its child; an addition and
 * then a removal, or a removal and a drain, of one name are refused as the edit is built. Not
 * thread-safe (one caller builds it); {@link #apply()} is serialized with every other change of the balancer.
 */
public final class MembershipEdit {

    private final StateWriter writer;
    private final Map<String, Double> adds = new LinkedHashMap<>();
    private final Map<String, AsyncProcessor> addedChildren = new HashMap<>();
    private final Set<AsyncProcessor> ownedChildren = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<String> removes = new LinkedHashSet<>();
    private final Set<String> drainsAsked = new LinkedHashSet<>();
    private final Map<String, Double> newWeights = new LinkedHashMap<>();
    /** Whether the caller logs the change itself (a membership source): the writer's line is DEBUG then. */
    private boolean loggedByCaller;

    MembershipEdit(StateWriter writer) {
        this.writer = writer;
    }

    /**
     * Adds an agent, as {@link AgentLoadBalancerSupport#addAgent(String, AsyncProcessor, double)}.
     *
     * @throws IllegalArgumentException if the name is blank or has white space, or the weight is not in (0, 1000]
     */
    public MembershipEdit add(String name, AsyncProcessor child, double weight) {
        return add(name, child, weight, false);
    }

    /** Adds an agent whose child the balancer stops once the agent has left and its last request ended. */
    public MembershipEdit addOwned(String name, AsyncProcessor child, double weight) {
        return add(name, child, weight, true);
    }

    private MembershipEdit add(String name, AsyncProcessor child, double weight, boolean owned) {
        adds.put(checkedName(name), checkedWeight(weight));
        addedChildren.put(name, Objects.requireNonNull(child, "child"));
        if (owned) {
            ownedChildren.add(child);
        }
        return this;
    }

    /**
     * Removes an agent at once, as {@link AgentLoadBalancerSupport#removeAgent}.
     *
     * @throws IllegalArgumentException if this edit adds it already, or drains it
     */
    public MembershipEdit remove(String name) {
        if (adds.containsKey(name)) {
            throw new IllegalArgumentException("agent '" + name + "' is added and then removed in one edit: give one of them");
        }
        removes.add(notRemovedAndDrained(Check.notBlank("name", name), drainsAsked));
        return this;
    }

    /**
     * Drains an agent, as {@link AgentLoadBalancerSupport#drainAgent}.
     *
     * @throws IllegalArgumentException if this edit removes it
     */
    public MembershipEdit drain(String name) {
        drainsAsked.add(notRemovedAndDrained(Check.notBlank("name", name), removes));
        return this;
    }

    private static String notRemovedAndDrained(String name, Set<String> other) {
        if (other.contains(name)) {
            throw new IllegalArgumentException("agent '" + name + "' is removed and drained in one edit: give one of them"
                    + " (a drain ends in the removal)");
        }
        return name;
    }

    /** Sets an agent's weight, as {@link AgentLoadBalancerSupport#setAgentWeight}. */
    public MembershipEdit weight(String name, double weight) {
        newWeights.put(checkedName(name), checkedWeight(weight));
        return this;
    }

    /**
     * For {@link FleetSync}: its source logs each change in one INFO line, so the balancer's line
     * for this edit is DEBUG.
     */
    MembershipEdit loggedByCaller() {
        loggedByCaller = true;
        return this;
    }

    /** @return whether there is nothing to apply */
    public boolean isEmpty() {
        return adds.isEmpty() && removes.isEmpty() && drainsAsked.isEmpty() && newWeights.isEmpty();
    }

    /**
     * Applies the edits as one new state.
     *
     * @return agent name to a future completing when that drained agent has left
     * @throws IllegalArgumentException if an edit is rejected (nothing changed then)
     */
    public Map<String, CompletableFuture<Void>> apply() {
        synchronized (writer) {
            return applyLocked();
        }
    }

    private Map<String, CompletableFuture<Void>> applyLocked() {
        List<String> members = writer.state().members();
        for (String name : adds.keySet()) {
            if (members.contains(name) && !writer.draining.contains(name) && !removes.contains(name)) {
                throw new IllegalArgumentException("agent '" + name + "' is already a member");
            }
        }
        Set<String> named = new LinkedHashSet<>(removes);
        named.addAll(drainsAsked);
        named.addAll(newWeights.keySet());
        for (String name : named) {
            if (!members.contains(name) && !adds.containsKey(name)) {
                throw new IllegalArgumentException("agent '" + name + "' is not a member; members: " + members);
            }
        }
        // Keep what a rejected change must restore.
        Map<String, Double> weightsBefore = new HashMap<>(writer.weights);
        Set<String> drainingBefore = new TreeSet<>(writer.draining);
        Map<String, Long> warmingBefore = new HashMap<>(writer.warmingSince);
        List<AsyncProcessor> added = new ArrayList<>();
        List<AsyncProcessor> removed = new ArrayList<>();
        StateWriter.Owner owner = writer.owner();
        Map<String, AsyncProcessor> byId = writer.currentChildren();
        Map<String, Boolean> drainsEnded = new HashMap<>(); // name: whether it left (removed), else called off
        try {
            for (String name : removes) {
                AsyncProcessor child = byId.get(name);
                if (child != null) {
                    owner.removeChild(child);
                    removed.add(child);
                }
                if (writer.draining.remove(name)) {
                    drainsEnded.put(name, true);
                }
            }
            for (Map.Entry<String, Double> add : adds.entrySet()) {
                String name = add.getKey();
                writer.weights.put(name, add.getValue());
                if (writer.draining.remove(name) && !removes.contains(name)) {
                    drainsEnded.put(name, false);
                    continue; // back before it left: it keeps its child and its keys
                }
                AsyncProcessor child = addedChildren.get(name);
                writer.membership().nameChild(child, name);
                writer.newSlot(child, ownedChildren.contains(child));
                if (owner.started()) {
                    ServiceHelper.startService(child); // before any request can reach it
                }
                owner.addChild(child);
                added.add(child);
                if (owner.started() && writer.config().slowStart().isEnabled()) {
                    writer.warmingSince.put(name, writer.nanoTime());
                }
            }
            writer.draining.addAll(drainsAsked);
            writer.weights.putAll(newWeights);
            writer.publish(true);
        } catch (RuntimeException e) {
            for (AsyncProcessor child : added) {
                owner.removeChild(child);
                writer.dropSlot(child);
            }
            for (AsyncProcessor child : removed) {
                owner.addChild(child);
            }
            restore(writer.weights, weightsBefore);
            writer.draining.clear();
            writer.draining.addAll(drainingBefore);
            restore(writer.warmingSince, warmingBefore);
            throw e;
        }
        drainsEnded.forEach((name, left) -> { // completed: the agent left; cancelled: its drain was called off
            CompletableFuture<Void> future = writer.drains.remove(name);
            if (future != null && left) {
                future.complete(null);
            } else if (future != null) {
                future.cancel(false);
            }
        });
        Map<String, CompletableFuture<Void>> asked = writer.drainsOf(drainsAsked);
        writer.batchApplied(removed, newWeights, loggedByCaller);
        return asked;
    }

    private static String checkedName(String name) {
        return Membership.checkedName("name", name);
    }

    private static double checkedWeight(double weight) {
        if (!(weight > 0 && weight <= AgentSpec.MAX_WEIGHT)) {
            throw new IllegalArgumentException("weight must be in (0, " + (int) AgentSpec.MAX_WEIGHT + "], was " + weight);
        }
        return weight;
    }

    private static <K, V> void restore(Map<K, V> target, Map<K, V> saved) {
        target.clear();
        target.putAll(saved);
    }
}
