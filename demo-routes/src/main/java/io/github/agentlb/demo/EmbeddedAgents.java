package io.github.agentlb.demo;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stub agents started inside the proxy's JVM so that the demo works on its own: when nothing
 * answers at any of the agent URLs, one {@link StubAgent} per URL is started on that URL's host
 * and port, with ids {@code A1, A2, ...} and the default 50-150 ms delays.
 *
 * <p>Thread-safe.
 */
public final class EmbeddedAgents implements AutoCloseable {

    /** Time allowed for each TCP probe, ms: a local agent accepts in well under this. */
    public static final int DEFAULT_PROBE_TIMEOUT_MS = 300;

    private final List<StubAgent> agents;

    private EmbeddedAgents(List<StubAgent> agents) {
        this.agents = List.copyOf(agents);
    }

    /**
     * Starts one agent per URL if no URL accepts a TCP connection within {@code probeTimeoutMs}.
     *
     * @param agentUrls base URLs such as {@code http://localhost:8081}
     * @return the started agents, or empty if at least one URL answered (nothing is started)
     * @throws Exception if an agent fails to start (e.g. its port was taken meanwhile); the
     *     agents already started are closed first
     */
    public static Optional<EmbeddedAgents> startIfNoneAnswer(List<String> agentUrls, int probeTimeoutMs)
            throws Exception {
        for (String url : agentUrls) {
            if (answers(url, probeTimeoutMs)) {
                return Optional.empty();
            }
        }
        List<StubAgent> started = new ArrayList<>();
        try {
            for (int i = 0; i < agentUrls.size(); i++) {
                URI uri = URI.create(agentUrls.get(i));
                started.add(StubAgent.start(AgentConfig.custom()
                        .agentId("A" + (i + 1)).host(uri.getHost()).port(uri.getPort()).build()));
            }
        } catch (Exception e) {
            started.forEach(StubAgent::close);
            throw e;
        }
        return Optional.of(new EmbeddedAgents(started));
    }

    /** Whether something accepts a TCP connection at the URL's host and port within the timeout. */
    public static boolean answers(String agentUrl, int timeoutMs) {
        URI uri = URI.create(agentUrl);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), timeoutMs);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The running agents, in URL order; unmodifiable. */
    public List<StubAgent> agents() {
        return agents;
    }

    /** Closes every agent. Idempotent. */
    @Override
    public void close() {
        agents.forEach(StubAgent::close);
    }

    @Override
    public String toString() {
        return "EmbeddedAgents" + agents;
    }
}
