package io.github.agentlb.fleet.kubernetes;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.github.agentlb.core.fleet.AgentSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fleet a service's EndpointSlices describe, as a pure function of the slices.
 *
 * <ul>
 *   <li>An endpoint ready and not terminating is an agent taking requests ({@code ready} unset
 *       counts as ready, as the API says).</li>
 *   <li>An endpoint terminating and still serving is a draining agent; terminating and not
 *       serving, or not ready, is absent.</li>
 *   <li>Only slices of the configured address type are read (default {@code IPv4}), so a
 *       dual-stack pod is not counted twice; the first address of an endpoint is used.</li>
 *   <li>Port: the slice's port of the configured name, or its only port when no name is
 *       configured; a slice without such a port is skipped.</li>
 *   <li>Name: the target pod's name, else the endpoint's hostname, else its address. Should an
 *       endpoint appear in two slices (while it moves between them), the serving copy wins, then
 *       the first slice by name. Zone: the endpoint's zone. Weight: 1.</li>
 * </ul>
 * Agents are sorted by name. Stateless and thread-safe.
 *
 * @param scheme      the agents' URL scheme, {@code http} or {@code https}
 * @param portName    the name of the agents' port in the slices, or null for the slice's only port
 * @param addressType the slices read: {@code IPv4}, {@code IPv6} or {@code FQDN}
 */
record EndpointSliceFleet(String scheme, String portName, String addressType) {

    /** The agents read, or why there are none that take requests (then {@code agents} may hold only draining ones). */
    record Result(List<AgentSpec> agents, String problem) {
    }

    Result read(List<EndpointSlice> slices) {
        List<EndpointSlice> sorted = new ArrayList<>(slices);
        sorted.sort(Comparator.comparing(s -> s.getMetadata().getName()));
        Map<String, AgentSpec> agents = new LinkedHashMap<>();
        int read = 0;
        int withoutPort = 0;
        int endpoints = 0;
        for (EndpointSlice slice : sorted) {
            if (!addressType.equals(slice.getAddressType())) {
                continue;
            }
            read++;
            Integer port = port(slice);
            if (port == null) {
                withoutPort++;
                continue;
            }
            for (Endpoint endpoint : slice.getEndpoints() == null ? List.<Endpoint>of() : slice.getEndpoints()) {
                endpoints++;
                AgentSpec agent = agent(endpoint, port);
                if (agent != null) {
                    agents.merge(agent.name(), agent, (first, second) -> first.draining() && !second.draining() ? second : first);
                }
            }
        }
        List<AgentSpec> fleet = agents.values().stream().sorted(Comparator.comparing(AgentSpec::name)).toList();
        if (fleet.stream().allMatch(AgentSpec::draining)) {
            String port = portName == null ? "a single port" : "a port named '" + portName + "'";
            return new Result(fleet, "no ready endpoint (" + read + " " + addressType + " slices, " + endpoints
                    + " endpoints, " + fleet.size() + " draining" + (withoutPort > 0 ? ", " + withoutPort + " slices without " + port : "") + ")");
        }
        return new Result(fleet, null);
    }

    private Integer port(EndpointSlice slice) {
        List<EndpointPort> ports = slice.getPorts() == null ? List.of() : slice.getPorts();
        if (portName == null) {
            return ports.size() == 1 ? ports.get(0).getPort() : null;
        }
        return ports.stream().filter(p -> portName.equals(p.getName())).map(EndpointPort::getPort).findFirst().orElse(null);
    }

    private AgentSpec agent(Endpoint endpoint, int port) {
        if (endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty()) {
            return null;
        }
        EndpointConditions conditions = endpoint.getConditions() == null ? new EndpointConditions() : endpoint.getConditions();
        boolean ready = !Boolean.FALSE.equals(conditions.getReady());
        boolean serving = conditions.getServing() == null ? ready : conditions.getServing();
        boolean terminating = Boolean.TRUE.equals(conditions.getTerminating());
        if (terminating ? !serving : !ready) {
            return null;
        }
        String address = endpoint.getAddresses().get(0);
        String host = address.contains(":") ? "[" + address + "]" : address;
        ObjectReference target = endpoint.getTargetRef();
        String name = target != null && "Pod".equals(target.getKind()) && target.getName() != null ? target.getName()
                : endpoint.getHostname() != null ? endpoint.getHostname()
                : host;
        try {
            return new AgentSpec(name, new URI(scheme + "://" + host + ":" + port), AgentSpec.DEFAULT_WEIGHT, terminating,
                    endpoint.getZone());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }
}
