package io.github.agentlb.agent;

import io.github.agentlb.agent.main.ServerPorts;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one agent until stopped (Ctrl-C, or {@code -Dcamel.main.durationMaxSeconds=N}).
 *
 * <p>Knobs are {@link AgentSettings}, bound by Camel Main: each from its environment variable,
 * else the system property of the same name lower-cased with dots ({@code DELAY_MIN_MS} or
 * {@code -Ddelay.min.ms=10}), else {@code application.properties} or the file given by
 * {@code --propertiesLocation file:agent.properties}.
 *
 * <pre>
 * AGENT_ID=A2 PORT=8082 java -jar agent-stub/target/agent-stub.jar
 * </pre>
 */
public final class AgentMain {

    private static final Logger LOG = LoggerFactory.getLogger(AgentMain.class);

    /** What {@code --help} prints: the stub takes no arguments, its settings are environment variables. */
    static final String USAGE = """
            Stub agent of agent-load-balancer: java -jar agent-stub.jar (no arguments)
            Settings are environment variables (or -Dname system properties):
              AGENT_ID, HOST, PORT           its name and where it listens (default A1, 127.0.0.1, 8081; PORT=0: any free port)
              DELAY_MIN_MS, DELAY_MAX_MS     service time of GET /process/{id}, ms (default 50, 150); SPEED divides it
              CAPACITY                       requests served at once before queueing (default 0: unlimited)
              FIRST_TOKEN_MS, TOKENS_PER_SECOND, ANSWER_TOKENS   chat completions (POST /v1/chat/completions)
              MAX_RUNNING, MAX_QUEUE         chat requests generated at once and queued; beyond: 429 (default 0: no limit, 100)
            Every variable, its default and meaning: agent-stub/README.md. Camel Main's own options: -help.
            """;
    /** Seconds Ctrl-C waits for in-flight requests; Camel's default of 45 s is long for a stub. */
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 10;

    private AgentMain() {
    }

    /**
     * Starts the agent; exits with status 2 and one line on a bad setting or a port in use.
     */
    public static void main(String[] args) throws Exception {
        if (java.util.List.of(args).contains("--help")) {
            System.out.print(USAGE);
            return;
        }
        String written = AgentSettings.BINDING.placeholderProblem(System.getenv(), "agent");
        if (written != null) {
            LOG.error(written);
            System.exit(2);
        }
        // A mistyped variable (AGENTID, SPED, DELAY_MAX) is ignored as any other: said, with the one meant.
        AgentSettings.BINDING.nearMisses(System.getenv(), java.util.Set.of(), "the agent").forEach(LOG::warn);
        try {
            createMain().run(args);
        } catch (Exception e) {
            String problem = AgentSettings.BINDING.startupProblem(e, "agent");
            if (problem == null) {
                throw e;
            }
            LOG.error(problem);
            System.exit(2);
        }
    }

    /** A Camel Main running one agent with its bound {@link AgentSettings}; not started. */
    public static Main createMain() {
        Main main = new Main();
        main.configure().withShutdownTimeout(SHUTDOWN_TIMEOUT_SECONDS);
        AgentSettings.BINDING.declareTo(main);
        main.configure().addRoutesBuilder(new Application());
        return main;
    }

    /** Validates the bound settings, resolves port 0, checks the port, then adds {@link AgentRoutes}. */
    private static final class Application extends RouteBuilder {
        @Override
        public void configure() throws Exception {
            AgentSettings.BINDING.requireAsWritten(getContext());
            AgentConfig config = AgentSettings.BINDING.boundIn(getContext()).toConfig();
            if (config.port() == 0) {
                config = config.withPort(ServerPorts.findFreePort(config.host()));
            }
            ServerPorts.requirePortFree(config.host(), config.port());
            getContext().addRoutes(new AgentRoutes(config));
        }
    }
}
