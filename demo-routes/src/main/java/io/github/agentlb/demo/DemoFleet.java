package io.github.agentlb.demo;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.FleetSync;
import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import io.github.agentlb.core.fleet.FleetSource;
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
 * fleet seen between the first read and the route's start is applied when it starts. Closing
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
                    entries.add(agent.name() + "=" + agent.address());
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

    @Override
    public synchronized void fleetChanged(List<AgentSpec> agents) {
        if (sync != null) {
            sync.fleetChanged(agents);
        }
        latest = List.copyOf(agents);
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
