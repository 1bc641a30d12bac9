package io.github.agentlb.camel;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.AsyncProcessor;

/**
 * Membership edits of one balancer, applied together as one new {@link BalancerState} by
 * {@link #apply()}: all of them, or, when one is rejected, none. Not thread-safe (one caller
 * builds it); {@link #apply()} is serialized with every other change of the balancer.
 */
public final class MembershipEdit {

    private final StateWriter.Change change;

    MembershipEdit(StateWriter.Change change) {
        this.change = change;
    }

    /** Adds an agent, as {@link AgentLoadBalancerSupport#addAgent(String, AsyncProcessor, double)}. */
    public MembershipEdit add(String name, AsyncProcessor child, double weight) {
        change.add(name, child, weight, false);
        return this;
    }

    /** Adds an agent whose child the balancer stops once the agent has left and its last request ended. */
    public MembershipEdit addOwned(String name, AsyncProcessor child, double weight) {
        change.add(name, child, weight, true);
        return this;
    }

    /** Removes an agent at once, as {@link AgentLoadBalancerSupport#removeAgent}. */
    public MembershipEdit remove(String name) {
        change.remove(name);
        return this;
    }

    /** Drains an agent, as {@link AgentLoadBalancerSupport#drainAgent}. */
    public MembershipEdit drain(String name) {
        change.drain(name);
        return this;
    }

    /** Sets an agent's weight, as {@link AgentLoadBalancerSupport#setAgentWeight}. */
    public MembershipEdit weight(String name, double weight) {
        change.weight(name, weight);
        return this;
    }

    /** @return whether there is nothing to apply */
    public boolean isEmpty() {
        return change.isEmpty();
    }

    /**
     * Applies the edits as one new state.
     *
     * @return agent name to a future completing when that drained agent has left
     * @throws IllegalArgumentException if an edit is rejected (nothing changed then)
     */
    public Map<String, CompletableFuture<Void>> apply() {
        return change.apply();
    }
}
