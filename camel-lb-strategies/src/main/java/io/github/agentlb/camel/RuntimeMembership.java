package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.NoSuchEndpointException;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedOperation;
import org.apache.camel.processor.SendProcessor;

/**
 * A fleet that changes while the balancer runs: agents added, removed, drained and weighted, each
 * change one new {@link BalancerState}, all or nothing (a rejected change leaves the balancer as it
 * was), also as JMX operations on the balancer's MBean. Membership sources (a watched file, DNS,
 * Kubernetes EndpointSlices) feed them through {@link FleetSync}. Thread-safe.
 */
public interface RuntimeMembership {

    /** Several membership edits as one new state, all or nothing ({@link FleetSync}). */
    MembershipEdit editAgents();

    /** @return the state requests read now: agents, draining, weights, configuration, picker; immutable */
    BalancerState balancerState();

    /** The agent ids taking requests, in child order; an immutable snapshot. */
    @ManagedAttribute(description = "Agent ids, in child order")
    default List<String> getAgentIds() {
        return balancerState().agentIds();
    }

    /** The agents draining now. */
    @ManagedAttribute(description = "Agents draining: no new requests, those in flight finish")
    default Set<String> getDrainingAgents() {
        return balancerState().draining();
    }

    /** The generation of the state requests read now: one more for each change. */
    @ManagedAttribute(description = "Generation of the balancer's state: one more for each change")
    default long getGeneration() {
        return balancerState().generation();
    }

    /** The agents ejected by outlier detection (or on trial) now, sorted; empty while all are healthy. */
    @ManagedAttribute(description = "Agents ejected by outlier detection (or on trial) now")
    default Set<String> getEjectedAgents() {
        BalancerState state = balancerState();
        return state.detector == null ? Set.of() : state.detector.ejected();
    }

    /**
     * Whether a request now would find an agent not known to be failing (healthy, on trial, or
     * ejected with its time up), for a readiness check: false with no agent, or while every agent
     * serves an ejection (requests are still sent then, in panic); true again by itself within a
     * base ejection time. O(agents).
     */
    default boolean hasAgentToTry() {
        BalancerState state = balancerState();
        return state.detector != null && state.detector.hasAgentToTry();
    }

    /** @return the balancer's CamelContext, null before it has one */
    CamelContext getCamelContext();

    /**
     * Adds an agent at runtime: a new state with {@code name} taking requests, its child started
     * first when the balancer runs; with slow start on it ramps up. An agent of that name that is
     * draining stays: its drain is called off and it keeps its child (its keys never left a ring).
     *
     * @param name   the agent's name in decisions, logs and metrics (not blank, no white space)
     * @param child  the processor that calls the agent; completes its callback when the answer ends
     * @param weight static weight in (0, 1000], 1 for an ordinary agent (see {@link #setAgentWeight})
     * @throws IllegalArgumentException if the name is taken by a member that is not draining, or a value is out of range
     *     ({@code ch}: also if {@code virtualNodes x weight} would pass its ring's bound, see {@link #setAgentWeight})
     */
    default void addAgent(String name, AsyncProcessor child, double weight) {
        editAgents().add(name, child, weight).apply();
    }

    /**
     * Adds an agent reached through a Camel endpoint, as {@code .to(endpointUri)} would: the
     * balancer creates the child, and stops it once the agent has left and its last request ended.
     *
     * @throws IllegalArgumentException as {@link #addAgent(String, AsyncProcessor, double)}, or if
     *     the balancer has no CamelContext or the endpoint cannot be resolved
     */
    @ManagedOperation(description = "Adds an agent: name, Camel endpoint URI, weight")
    default void addAgent(String name, String endpointUri, double weight) {
        CamelContext context = getCamelContext();
        if (context == null) {
            throw new IllegalArgumentException("addAgent(" + name + ", " + endpointUri + "): the balancer has no CamelContext");
        }
        Endpoint endpoint;
        try {
            endpoint = context.getEndpoint(Check.notBlank("endpointUri", endpointUri));
        } catch (ResolveEndpointFailedException | NoSuchEndpointException e) {
            throw new IllegalArgumentException("addAgent(" + name + ", " + endpointUri + "): its endpoint cannot be made: "
                    + e.getMessage(), e);
        }
        editAgents().addOwned(name, new SendProcessor(endpoint), weight).apply();
    }

    /**
     * Removes an agent at once: no new request reaches it; requests already sent to it finish. For
     * a removal that waits for them, {@link #drainAgent}.
     *
     * @throws IllegalArgumentException if {@code name} is not a member
     */
    @ManagedOperation(description = "Removes an agent at once (requests in flight finish)")
    default void removeAgent(String name) {
        editAgents().remove(name).apply();
    }

    /**
     * Drains an agent: at once no new request reaches it (keyed strategies send its keys on as
     * they would on ejection), requests in flight finish, then it leaves (one state each). Adding
     * it again before or after it left brings it, and for {@code ch} its keys, back.
     *
     * @return completes when the agent has left (removed meanwhile included); cancelled when the
     *     drain is called off, the agent added again before it left
     * @throws IllegalArgumentException if {@code name} is not a member
     */
    default CompletableFuture<Void> drainAgent(String name) {
        return editAgents().drain(name).apply().get(name);
    }

    /** {@link #drainAgent} for JMX: starts the drain and returns at once. */
    @ManagedOperation(description = "Drains an agent: no new requests, those in flight finish, then it leaves")
    default void drain(String name) {
        drainAgent(name);
    }

    /**
     * Sets an agent's static weight: its share relative to the others, 1 for an ordinary agent.
     * {@code rr} spreads by weight (smooth weighted round-robin), {@code lr} weighs its choices,
     * {@code ch} gives it {@code round(virtualNodes x weight)} virtual nodes; {@code pid} and
     * {@code avn} learn their weights and read it as the agent's starting share.
     *
     * @throws IllegalArgumentException if not a member or the weight is not in (0, 1000], or for {@code ch}
     *     if the agent would have more than {@link BalancerConfig.Ring#MAX_POINTS_PER_AGENT} (1,000,000) points
     *     on the ring, {@code round(virtualNodes x weight)}
     */
    @ManagedOperation(description = "Sets an agent's static weight, (0, 1000], 1 = ordinary")
    default void setAgentWeight(String name, double weight) {
        editAgents().weight(name, weight).apply();
    }
}
