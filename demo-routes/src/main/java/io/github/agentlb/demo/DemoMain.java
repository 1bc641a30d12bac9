package io.github.agentlb.demo;

import io.github.agentlb.agent.ServerPorts;
import java.net.BindException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo proxy as a Camel Main application.
 *
 * <h2>Settings</h2>
 * Each setting is read from its environment variable, else from the Camel property of the same
 * name in lower case (a system property such as {@code -Dstrategy=ch}, or
 * {@code application.properties}):
 * <ul>
 *   <li>{@code PORT} / {@code port}: HTTP port, default 8000;</li>
 *   <li>{@code AGENTS} / {@code agents}: comma-separated agent base URLs, default
 *       {@code http://localhost:8081,http://localhost:8082,http://localhost:8083};</li>
 *   <li>{@code STRATEGY} / {@code strategy}: {@code rr} (default) or {@code ch};</li>
 *   <li>{@code MANAGEMENT_PORT}: port of Camel's management server, default 9876, serving
 *       Prometheus metrics at {@code /observe/metrics} and health at {@code /observe/health}
 *       (the Camel properties {@code camel.management.*} in {@code application.properties}).</li>
 * </ul>
 *
 * <h2>Self-contained mode</h2>
 * When {@code AGENTS} is not set and nothing accepts a TCP connection at any default agent URL,
 * three stub agents A1..A3 start in this JVM on ports 8081-8083, so
 * {@code mvn -pl demo-routes camel:run} alone is a working demo. The log says which mode runs.
 *
 * <pre>
 * java -jar demo-routes/target/demo-routes.jar
 * STRATEGY=ch PORT=18000 AGENTS=http://127.0.0.1:18081,http://127.0.0.1:18082 java -jar demo-routes/target/demo-routes.jar
 * mvn -pl demo-routes camel:run -Dstrategy=ch
 * </pre>
 */
public final class DemoMain {

    private static final Logger LOG = LoggerFactory.getLogger(DemoMain.class);

    private DemoMain() {
    }

    /**
     * Runs the proxy until stopped (Ctrl-C, or {@code -Dcamel.main.durationMaxSeconds=N}); exits
     * with status 2 and a one-line error on a bad setting or a port in use.
     */
    public static void main(String[] args) throws Exception {
        String managementProblem = managementPortProblem(System.getenv());
        if (managementProblem != null) {
            // Camel's management server logs a stack trace and the proxy would run without it.
            LOG.error(managementProblem);
            System.exit(2);
        }
        try {
            createMain(System.getenv()).run(args);
        } catch (Exception e) {
            String problem = startupProblem(e);
            if (problem == null) {
                throw e;
            }
            LOG.error(problem);
            System.exit(2);
        }
    }

    /**
     * The one line to print for a start-up failure the user can fix (a bad setting, the port in
     * use), or null for any other failure.
     */
    static String startupProblem(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PortInUseException inUse) {
                return inUse.getMessage();
            }
            if (t instanceof IllegalArgumentException bad) {
                return "Bad proxy configuration: " + bad.getMessage();
            }
            if (t instanceof BindException bind) {
                // The port was free when checked but taken before the proxy bound it.
                return "Cannot listen: " + bind.getMessage() + ": set PORT";
            }
        }
        return null;
    }

    /**
     * The one line to print when {@code MANAGEMENT_PORT} (default 9876, all interfaces) is taken,
     * else null; a value that is not a number is left to Camel's own error.
     */
    static String managementPortProblem(Map<String, String> env) {
        int port;
        try {
            port = Integer.parseInt(env.getOrDefault("MANAGEMENT_PORT", "9876").trim());
        } catch (NumberFormatException e) {
            return null;
        }
        return ServerPorts.portInUse("0.0.0.0", port) == null ? null
                : "management port " + port + " is in use: set MANAGEMENT_PORT";
    }

    /**
     * Fails with {@link PortInUseException} when {@code port} cannot be bound on {@code host}, so
     * that a taken port is one line rather than Netty's stack trace; port 0 is always free.
     */
    static void requirePortFree(String host, int port) {
        String problem = ServerPorts.portInUse(host, port);
        if (problem != null) {
            throw new PortInUseException(problem);
        }
    }

    /** The proxy's port is taken by another process. */
    static final class PortInUseException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortInUseException(String message) {
            super(message);
        }
    }

    /**
     * A Camel Main running the proxy with settings from {@code env}, falling back to Camel
     * properties; not started.
     */
    static Main createMain(Map<String, String> env) {
        Main main = new Main();
        main.configure().addRoutesBuilder(new Application(env));
        return main;
    }

    /** Resolves the settings when the CamelContext exists, starts agents if needed, adds the proxy. */
    static final class Application extends RouteBuilder {

        private static final List<String> SETTINGS =
                List.of(ProxyConfig.ENV_PORT, ProxyConfig.ENV_AGENTS, ProxyConfig.ENV_STRATEGY);

        private final Map<String, String> env;

        Application(Map<String, String> env) {
            this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
        }

        @Override
        public void configure() throws Exception {
            Map<String, String> settings = settings();
            ProxyConfig config = ProxyConfig.fromEnvironment(settings);
            requirePortFree(config.host(), config.port());
            if (settings.containsKey(ProxyConfig.ENV_AGENTS)) {
                LOG.info("Mode: proxy to the agents in AGENTS {}", config.agentUrls());
            } else {
                Optional<EmbeddedAgents> agents =
                        EmbeddedAgents.startIfNoneAnswer(config.agentUrls(), EmbeddedAgents.DEFAULT_PROBE_TIMEOUT_MS);
                if (agents.isPresent()) {
                    getContext().addService(new AgentsService(agents.get()), true, true);
                    LOG.info("Mode: self-contained demo: AGENTS is not set and no agent answered at {}, "
                            + "so stub agents {} run in this JVM", config.agentUrls(), agents.get().agents());
                } else {
                    LOG.info("Mode: proxy to the default agents {} (AGENTS not set; at least one answers)",
                            config.agentUrls());
                }
            }
            LOG.info("Proxy settings: {}", config.describe());
            getContext().addRoutes(new ProxyRoutes(config));
        }

        private Map<String, String> settings() {
            Map<String, String> settings = new HashMap<>();
            for (String name : SETTINGS) {
                String value = env.get(name);
                if (value == null || value.isBlank()) {
                    value = getContext().getPropertiesComponent()
                            .resolveProperty(name.toLowerCase(Locale.ROOT)).orElse(null);
                }
                if (value != null && !value.isBlank()) {
                    settings.put(name, value);
                }
            }
            return settings;
        }
    }

    /** Ties the embedded agents to the CamelContext's lifecycle. */
    private static final class AgentsService extends ServiceSupport {
        private final EmbeddedAgents agents;

        AgentsService(EmbeddedAgents agents) {
            this.agents = agents;
        }

        @Override
        protected void doStop() {
            agents.close();
        }
    }
}
