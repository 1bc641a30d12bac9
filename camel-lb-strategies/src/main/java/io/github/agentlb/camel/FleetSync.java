package io.github.agentlb.camel;

import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import java.net.URI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.NoSuchEndpointException;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.processor.SendProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the fleets a membership source sees ({@link io.github.agentlb.core.fleet.FleetSource})
 * to a balancer, each as one {@link MembershipEdit}, so one new state:
 * <ul>
 *   <li>an agent new to the balancer is added with its weight (and ramps up when slow start is on);</li>
 *   <li>an agent marked draining, or one that left the fleet, is drained: no new requests, those in
 *       flight finish, then it leaves. An agent back in the fleet before its drain ended takes
 *       requests again with the child it had, or at its new address with a new child when it came
 *       back at another one;</li>
 *   <li>a changed weight is set; a changed address replaces the agent's child (requests in flight
 *       on the old one finish).</li>
 * </ul>
 * Agents the balancer got another way ({@code .to(...)} children, {@code addAgent}) are left alone
 * unless the fleet names them. An empty fleet, or one with a name twice, is refused with an
 * {@link IllegalArgumentException} and changes nothing: a source's hiccup never empties a balancer.
 * <p>Logs: the source says each change in one INFO line; the balancer's own line for an edit
 * made here is DEBUG. Drains that end together are one INFO line. Thread-safe: calls are serialized.
 */
public final class FleetSync implements FleetListener {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.agentlb.membership");

    private final AgentLoadBalancerSupport balancer;
    private final Function<AgentSpec, AsyncProcessor> children;
    /** The last fleet applied, and the agents that left it and still drain: name to its agent. */
    private final Map<String, AgentSpec> applied = new HashMap<>();

    /**
     * @param balancer the balancer to keep in step with the fleet
     * @param children makes the child that calls an agent (for the demo proxy, its streaming child)
     */
    public FleetSync(AgentLoadBalancerSupport balancer, Function<AgentSpec, AsyncProcessor> children) {
        this.balancer = Objects.requireNonNull(balancer, "balancer");
        this.children = Objects.requireNonNull(children, "children");
    }

    /**
     * A sync whose children are Camel endpoints, as {@code .to(uri)} would make them: the URI is
     * {@code endpointUri.apply(agent)}, for example {@code "http://host:port?bridgeEndpoint=true"}.
     * A fleet with an agent whose endpoint cannot be made (no component for its scheme, an address
     * the component refuses) is refused whole with an {@link IllegalArgumentException} naming the
     * agent, the URI and Camel's reason.
     */
    public static FleetSync ofEndpoints(AgentLoadBalancerSupport balancer, CamelContext context,
            Function<AgentSpec, String> endpointUri) {
        Objects.requireNonNull(context, "context");
        return new FleetSync(balancer, agent -> {
            String uri = endpointUri.apply(agent);
            try {
                return new SendProcessor(context.getEndpoint(uri));
            } catch (ResolveEndpointFailedException | NoSuchEndpointException e) {
                throw new IllegalArgumentException("agent " + agent.name() + ": its endpoint " + uri
                        + " cannot be made: " + e.getMessage(), e);
            }
        });
    }

    @Override
    public synchronized void fleetChanged(List<AgentSpec> fleet) {
        if (fleet == null || fleet.isEmpty()) {
            throw new IllegalArgumentException("fleet must not be empty (the balancer keeps its agents "
                    + balancer.getAgentIds() + ")");
        }
        Map<String, AgentSpec> next = new HashMap<>();
        for (AgentSpec agent : fleet) {
            if (next.put(agent.name(), agent) != null) {
                throw new IllegalArgumentException("fleet names agent '" + agent.name() + "' twice");
            }
        }
        BalancerState state = balancer.balancerState();
        MembershipEdit edit = balancer.editAgents().loggedByCaller();
        Set<String> members = new HashSet<>(state.members());
        for (AgentSpec agent : fleet) {
            String name = agent.name();
            boolean member = members.contains(name);
            boolean draining = state.draining().contains(name);
            AgentSpec before = applied.get(name);
            boolean moved = member && before != null && !sameAddress(before.address(), agent.address());
            if (agent.draining()) {
                if (member && !draining) {
                    edit.drain(name);
                }
            } else if (!member || moved) {
                if (moved) {
                    edit.remove(name);
                }
                edit.addOwned(name, children.apply(agent), agent.weight());
            } else if (draining) {
                edit.addOwned(name, children.apply(agent), agent.weight()); // back before it left: keeps its child
            } else if (state.weights().getOrDefault(name, AgentSpec.DEFAULT_WEIGHT) != agent.weight()) {
                edit.weight(name, agent.weight());
            }
        }
        for (String name : applied.keySet()) {
            if (!next.containsKey(name) && members.contains(name) && !state.draining().contains(name)) {
                edit.drain(name);
            }
        }
        if (!edit.isEmpty()) {
            edit.apply();
        }
        // An agent that left the fleet and still drains keeps its address here: back at another
        // address before its drain ends, it is moved, not given back its old child.
        List<String> stillMembers = balancer.balancerState().members();
        applied.keySet().removeIf(name -> next.containsKey(name) || !stillMembers.contains(name));
        applied.putAll(next);
        if (LOG.isDebugEnabled()) {
            LOG.debug("Fleet of {} agents applied: generation {}", fleet.size(), balancer.balancerState().generation());
        }
    }

    private static boolean sameAddress(URI a, URI b) {
        return a.equals(b);
    }
}
