package io.github.agentlb.demo;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.FleetSync;
import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import io.github.agentlb.core.fleet.FleetSource;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceSupport;

/**
 * The proxy's agents from a membership source ({@code AGENTS_FILE}, {@code AGENTS_DNS}): the
 * source's first fleet becomes the route's children, and every later fleet is applied to the
 * running balancer through {@link FleetSync} (added, drained, reweighted; one state each). A
 * fleet seen between the first read and the route's start is applied when it starts. A fleet with
 * an agent URL the demo cannot call ({@link #url}) is refused in one line, the last good fleet kept. Closing
 * (the CamelContext stopping) ends the watch. Thread-safe.
 */
final class DemoFleet extends ServiceSupport implements FleetListener {

    private final FleetSource source;
    private List<AgentSpec> latest;
    private FleetSync sync;

    DemoFleet(FleetSource source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    /**
     * Starts the source; its first fleet, read on this thread, as {@code NAME=URL} entries of the
     * agents taking requests (for {@link ProxyConfig.Builder#agentUrls(List)}).
     *
     * @throws IllegalArgumentException if the source's first read gives no valid fleet (saying why)
     */
    List<String> firstFleet() {
        source.start(this);
        List<String> entries = new ArrayList<>();
        synchronized (this) {
            for (AgentSpec agent : latest) {
                if (!agent.draining()) {
                    entries.add(agent.name() + "=" + url(agent));
                }
            }
        }
        return entries;
    }

    /**
     * From now on, fleets go to {@code balancer}, each agent a child on the endpoint {@code uris}
     * gives it; a fleet seen since {@link #firstFleet()} is applied at once.
     */
    synchronized void attach(AgentLoadBalancerSupport balancer, CamelContext context, Function<AgentSpec, String> uris) {
        sync = FleetSync.ofEndpoints(balancer, context, uris);
        sync.fleetChanged(latest);
    }

    /**
     * Refuses, with an {@link IllegalArgumentException} naming the agent, its URL and why, a fleet
     * with an agent the demo cannot call, so that the source keeps the last good fleet and says so
     * in one line (at start, the source's first read fails with that line).
     */
    @Override
    public synchronized void fleetChanged(List<AgentSpec> agents) {
        agents.forEach(DemoFleet::url);
        if (sync != null) {
            sync.fleetChanged(agents);
        }
        latest = List.copyOf(agents);
    }

    /**
     * The agent's base URL as the demo proxy calls it, {@code http://host:port} (its {@code agent:}
     * child takes no https and no path, which a membership source may give).
     *
     * @throws IllegalArgumentException naming the agent and its URL, and why the demo cannot call it
     */
    static String url(AgentSpec agent) {
        URI address = agent.address();
        try {
            return ProxyConfig.Builder.normalizeAgentUrl(address.toString());
        } catch (IllegalArgumentException e) {
            String path = address.getRawPath() == null ? "" : address.getRawPath().replaceAll("/+$", "");
            boolean https = "https".equalsIgnoreCase(address.getScheme());
            throw new IllegalArgumentException("agent " + agent.name() + ": " + e.getMessage() + (https || !path.isEmpty()
                    ? " (the demo proxy calls its agents over plain HTTP at their base URL: no https, no path)" : ""));
        }
    }

    /** Why the source's last read was refused ({@link FleetSource#problem()}), or null. */
    String problem() {
        return source.problem();
    }

    /** The source, as {@link FleetSource#describe()} says it, for logs and health details. */
    String describe() {
        return source.describe();
    }

    @Override
    protected void doStop() {
        source.close();
    }
}
