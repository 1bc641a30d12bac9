package io.github.agentlb.agent;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.camel.main.Main;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one agent until stopped (Ctrl-C, or {@code -Dcamel.main.durationMaxSeconds=N}).
 *
 * <p>Knobs come from the environment ({@link AgentConfig#ENV_NAMES}); a variable that is not
 * set falls back to the system property of the same name lower-cased with dots
 * ({@code DELAY_MIN_MS} to {@code delay.min.ms}), so {@code mvn camel:run -Dagent.id=A3} works.
 *
 * <pre>
 * AGENT_ID=A2 PORT=8082 java -jar agent-stub/target/agent-stub.jar
 * </pre>
 */
public final class AgentMain {

    private static final Logger LOG = LoggerFactory.getLogger(AgentMain.class);
    /** Seconds Ctrl-C waits for in-flight requests; Camel's default of 45 s is long for a stub. */
    private static final int SHUTDOWN_TIMEOUT_SECONDS = 10;

    private AgentMain() {
    }

    /** Starts the agent; exits with status 2 on a bad configuration or a port in use. */
    public static void main(String[] args) throws Exception {
        AgentConfig config;
        try {
            config = AgentConfig.fromEnvironment(settings(System.getenv(), System.getProperties()));
            if (config.port() == 0) {
                config = config.withPort(StubAgent.findFreePort(config.host()));
            }
        } catch (IllegalArgumentException e) {
            LOG.error("Bad agent configuration: {}", e.getMessage());
            System.exit(2);
            return;
        }
        String inUse = ServerPorts.portInUse(config.host(), config.port());
        if (inUse != null) {
            LOG.error(inUse);
            System.exit(2);
            return;
        }
        Main main = new Main();
        main.configure().withShutdownTimeout(SHUTDOWN_TIMEOUT_SECONDS);
        main.configure().addRoutesBuilder(new AgentRoutes(config));
        main.run(args);
    }

    /**
     * Merges the knobs: environment first, else the system property named
     * {@code NAME.toLowerCase().replace('_', '.')}.
     */
    static Map<String, String> settings(Map<String, String> env, Properties systemProperties) {
        Map<String, String> merged = new HashMap<>();
        for (String name : AgentConfig.ENV_NAMES) {
            String value = env.get(name);
            if (value == null || value.isBlank()) {
                value = systemProperties.getProperty(name.toLowerCase(Locale.ROOT).replace('_', '.'));
            }
            if (value != null) {
                merged.put(name, value);
            }
        }
        return merged;
    }
}
