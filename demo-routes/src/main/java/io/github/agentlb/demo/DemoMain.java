package io.github.agentlb.demo;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.core.fleet.FleetSource;
import io.github.agentlb.agent.main.ServerPorts;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.KeySettings;
import io.github.agentlb.core.fleet.NameList;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.hedge.HedgePolicy;
import io.github.agentlb.core.retry.RetryBackoff;
import io.github.agentlb.core.retry.RetryBudget;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo proxy as a Camel Main application.
 *
 * <h2>Settings</h2>
 * {@link ProxySettings}, bound by Camel Main: each from its environment variable, else the system
 * property of the same name lower-cased with dots ({@code STRATEGY} or {@code -Dstrategy=ch}),
 * else the file given by {@code -propertiesLocation}, then the jar's {@code application.properties}:
 * <ul>
 *   <li>{@code PORT}: HTTP port, default 8000; {@code HOST}: interface, default 0.0.0.0;</li>
 *   <li>{@code AGENTS}: comma-separated agent base URLs, each optionally named {@code NAME=URL},
 *       default {@code A1=http://localhost:8081,A2=http://localhost:8082,A3=http://localhost:8083};</li>
 *   <li>{@code AGENTS_FILE} (a watched file) or {@code AGENTS_DNS} (a DNS name re-resolved on its
 *       TTL) instead of {@code AGENTS}: agents join, drain and leave while the proxy runs;
 *       {@code AGENTS_DNS_SERVER} ({@code host:port} or {@code host}, port 53) the name server
 *       asked, default the platform's; {@code AGENTS_DNS_IPV6} ({@code true} or {@code false},
 *       default true) whether AAAA records are asked too;</li>
 *   <li>{@code STRATEGY}: {@code rr} (default), {@code ch}, {@code pid}, {@code avn}, {@code lr} or {@code camel-rr};</li>
 *   <li>{@code SLOW_START_MS} (default 30000, 0 = off), {@code BALANCE_FACTOR} (ch, avn),
 *       {@code ZOOKEEPER} and {@code BALANCER_ID} (avn proxies sharing one allocation);</li>
 *   <li>timeouts and the balancer's outlier ejection and failover knobs (see the README);</li>
 *   <li>any JavaBean knob of the balancer by one rule ({@link BalancerKnobs}): {@code setSessionHeader}
 *       is {@code BALANCER_SESSION_HEADER} or {@code -Dbalancer.session.header=};</li>
 *   <li>{@code MANAGEMENT_PORT}: port of Camel's management server, default 9876, serving
 *       Prometheus metrics at {@code /observe/metrics} and health at {@code /observe/health}
 *       (the Camel properties {@code camel.management.*} in {@code application.properties});
 *       {@code MANAGEMENT_HOST}: its interface, default {@code HOST}'s, so that a proxy bound to
 *       {@code 127.0.0.1} does not show its metrics on every interface.</li>
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
 *
 * <p>Over 300 lines: the checks that must run before Camel starts (the management port and host,
 * the drain timeout, a port in use), each turning what would be a stack trace into one line, sit
 * beside the start they guard and read the same environment.
 */
public final class DemoMain {

    private static final Logger LOG = LoggerFactory.getLogger(DemoMain.class);

    /** What {@code --help} prints: the proxy takes no arguments, its settings are environment variables. */
    static final String USAGE = """
            Demo proxy of agent-load-balancer: java -jar demo-routes.jar (no arguments)
            Settings are environment variables (or -Dname system properties, or application.properties):
              STRATEGY         rr, ch, pid, avn or lr (default rr); camel-rr: Camel's own round robin
              AGENTS           agent base URLs, optionally named: A1=http://localhost:8081,A2=http://localhost:8082
                               (default A1-A3 on ports 8081-8083, started in this process when none answers)
              AGENTS_FILE      instead of AGENTS: a watched file of agents; AGENTS_DNS: a DNS name
              AGENTS_DNS_SERVER, AGENTS_DNS_IPV6   the name server asked, host:port or host (default the
                               platform's); whether AAAA is asked too (true or false, default true)
              PORT, HOST       where the proxy listens (default 8000, 0.0.0.0)
              MANAGEMENT_PORT  metrics (/observe/metrics) and health (/observe/health) (default 9876)
              FIRST_BYTE_TIMEOUT_MS, IDLE_TIMEOUT_MS, CONNECT_TIMEOUT_MS   agent call timeouts
              BALANCER_<KNOB>  any knob of the strategy, e.g. BALANCER_KEYS=session,prompt,user_id
            Every variable, its default and meaning: demo-routes/README.md. Camel Main's own options: -help.
            """;
    private static final int MAX_PORT = 65535;
    /** Camel Main's options naming the properties files to read, and the jar's own. */
    private static final List<String> PROPERTIES_OPTIONS = List.of("-pl", "-propertiesLocation");
    private static final String OWN_PROPERTIES = "classpath:application.properties";
    /** The management server's port when {@code MANAGEMENT_PORT} is not set, as {@code application.properties} says. */
    private static final String DEFAULT_MANAGEMENT_PORT = "9876";

    /** The variables read besides {@link ProxySettings}' own. */
    static final Set<String> OWN_VARIABLES = Set.of("MANAGEMENT_HOST", "MANAGEMENT_PORT", "DRAIN_TIMEOUT_S",
            "PROXY_RELAUNCH");

    private DemoMain() {
    }

    /**
     * Runs the proxy until stopped (Ctrl-C, or {@code -Dcamel.main.durationMaxSeconds=N}); exits
     * with status 2 and a one-line error on a bad setting or a port in use.
     */
    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--help")) {
            System.out.print(USAGE);
            return;
        }
        String problem = propertiesLocationProblem(args);
        if (problem == null) {
            problem = managementHostProblem(System.getenv());
        }
        if (problem == null) {
            problem = managementPortProblem(System.getenv());
        }
        if (problem == null) {
            problem = drainTimeoutProblem(System.getenv());
        }
        if (problem == null) {
            problem = ProxySettings.BINDING.placeholderProblem(System.getenv(), "proxy");
        }
        if (problem != null) {
            // Camel would log a stack trace, or run without its management server or drain timeout.
            LOG.error(problem);
            System.exit(2);
        }
        // A mistyped variable is ignored as any other: said, lest STRATEGIE=ch run rr or AGENT=... the self-contained demo.
        Map<String, String> environment = new java.util.HashMap<>(System.getenv());
        environment.keySet().removeIf(v -> v.startsWith(BalancerKnobs.VARIABLE_PREFIX)); // refused by name already
        ProxySettings.BINDING.nearMisses(environment, OWN_VARIABLES, "the proxy").forEach(LOG::warn);
        try {
            createMain().run(withOwnProperties(args));
        } catch (Exception e) {
            String startup = startupProblem(e);
            if (startup == null) {
                throw e;
            }
            LOG.error(startup);
            System.exit(2);
        }
    }

    /**
     * {@code args} with the jar's own {@code application.properties} read after the locations
     * {@code -propertiesLocation} ({@code -pl}) names: Camel Main would read those instead, and the
     * proxy would run without its management server and drain timeout. The user's come first, so
     * that a key in both is theirs (the first location wins in Camel 4.18).
     */
    static String[] withOwnProperties(String[] args) {
        String[] out = args.clone();
        for (int i = 0; i + 1 < out.length; i++) {
            if (PROPERTIES_OPTIONS.contains(out[i]) && !List.of(out[i + 1].split(",")).contains(OWN_PROPERTIES)) {
                out[i + 1] = out[i + 1] + "," + OWN_PROPERTIES;
            }
        }
        return out;
    }

    /** The one line to print when a {@code file:} that {@code -propertiesLocation} names is not there (Camel: a stack trace), else null. */
    static String propertiesLocationProblem(String[] args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (PROPERTIES_OPTIONS.contains(args[i])) {
                for (String location : args[i + 1].split(",")) {
                    String l = location.trim();
                    if (l.startsWith("file:") && !l.endsWith(";optional=true") && !Files.isRegularFile(Path.of(l.substring(5)))) {
                        return "Bad proxy configuration: " + args[i] + ": " + l + ": no such file";
                    }
                }
            }
        }
        return null;
    }

    /** "one" check, or "2 in a row". */
    private static String inARow(int checks) {
        return checks == 1 ? "one" : checks + " in a row";
    }

    /**
     * The one line to print for a start-up failure the user can fix (a bad setting, the port in
     * use), or null for any other failure.
     */
    static String startupProblem(Throwable failure) {
        return ProxySettings.BINDING.startupProblem(failure, "proxy");
    }

    /**
     * The one line to print when {@code DRAIN_TIMEOUT_S} (default 30) is set but not an integer
     * {@code >= 1} written as it is, else null. Checked before Camel starts: through
     * {@code application.properties} it is {@code camel.main.shutdownTimeout}, which would take a
     * value that is not a number as its default.
     */
    static String drainTimeoutProblem(Map<String, String> env) {
        String value = env.get("DRAIN_TIMEOUT_S");
        if (value == null) {
            return null;
        }
        int seconds;
        try {
            seconds = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            if (value.matches("[0-9]+")) { // past an int
                return "Bad proxy configuration: DRAIN_TIMEOUT_S must be at most " + Integer.MAX_VALUE
                        + " (seconds), was '" + value + "'";
            }
            seconds = -1;
        }
        return seconds >= 1 ? null
                : "Bad proxy configuration: DRAIN_TIMEOUT_S must be an integer >= 1 (seconds), was '" + value + "'";
    }

    /**
     * The one line to print when {@code MANAGEMENT_PORT} (default 9876, all interfaces) is not an
     * integer 1..65535 written as it is (no blanks, as every other setting), is the proxy's
     * {@code PORT} on an interface the proxy listens on too, or is taken, else null. Checked before
     * Camel starts: Camel would ignore a value that is not a number (metrics on another port), fail
     * with a stack trace on one out of range, and start the management server on the proxy's port
     * (then the proxy failed with a stack trace and "Address already in use: set PORT").
     */
    static String managementPortProblem(Map<String, String> env) {
        String property = System.getProperty("camel.management.port");
        String value = env.getOrDefault("MANAGEMENT_PORT", property != null ? property : DEFAULT_MANAGEMENT_PORT);
        int port = portOrMinus1(value);
        if (port < 1 || port > MAX_PORT) {
            return "Bad proxy configuration: " + (env.containsKey("MANAGEMENT_PORT") || property == null ? "MANAGEMENT_PORT"
                    : "camel.management.port") + " must be an integer 1.." + MAX_PORT + ", was '" + value + "'";
        }
        String proxyPort = env.getOrDefault("PORT", System.getProperty("port"));
        boolean proxyDefault = proxyPort == null;
        if (portOrMinus1(proxyDefault ? Integer.toString(ProxyConfig.DEFAULT_PORT) : proxyPort) == port
                && sameInterface(env)) {
            return "Bad proxy configuration: MANAGEMENT_PORT" + (env.containsKey("MANAGEMENT_PORT") ? ""
                    : " (default " + DEFAULT_MANAGEMENT_PORT + ")") + " must differ from PORT"
                    + (proxyDefault ? " (default " + ProxyConfig.DEFAULT_PORT + ")" : "") + ", both were " + port;
        }
        return ServerPorts.portInUse(managementHost(env), port) == null ? null
                : "management port " + port + " is in use: set MANAGEMENT_PORT";
    }

    /** The port written in {@code value}, as written (no blanks), else -1. */
    private static int portOrMinus1(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Whether the management server and the proxy would listen on one interface: the same host, or
     * either on every interface ({@code 0.0.0.0}, {@code ::}). False when a host does not resolve:
     * its own check names it.
     */
    private static boolean sameInterface(Map<String, String> env) {
        String proxyHost = env.getOrDefault("HOST", System.getProperty("host", ProxyConfig.DEFAULT_HOST)).trim();
        try {
            InetAddress management = InetAddress.getByName(managementHost(env));
            InetAddress proxy = InetAddress.getByName(proxyHost);
            return management.isAnyLocalAddress() || proxy.isAnyLocalAddress() || management.equals(proxy);
        } catch (UnknownHostException | SecurityException e) {
            return false;
        }
    }

    /**
     * The management server's interface: {@code MANAGEMENT_HOST}, else {@code -Dcamel.management.host}, else the proxy's {@code HOST}
     * (variable, else {@code -Dhost}), else {@value ProxyConfig#DEFAULT_HOST}.
     */
    static String managementHost(Map<String, String> env) {
        String value = env.getOrDefault("MANAGEMENT_HOST", System.getProperty("camel.management.host"));
        if (value == null) {
            value = env.getOrDefault("HOST", System.getProperty("host", ProxyConfig.DEFAULT_HOST));
        }
        return value.trim();
    }

    /** The one line to print when the management host is blank or does not resolve, else null. */
    static String managementHostProblem(Map<String, String> env) {
        String host = managementHost(env);
        try {
            if (host.isEmpty()) {
                throw new IllegalArgumentException("blank");
            }
            ServerPorts.requireResolvableHost(host);
            return null;
        } catch (IllegalArgumentException e) {
            String variable = env.containsKey("MANAGEMENT_HOST") ? "MANAGEMENT_HOST"
                    : "HOST (the management host too while MANAGEMENT_HOST is unset)";
            return "Bad proxy configuration: " + variable + " must be an IP address or a name that resolves, was '"
                    + host + "'";
        }
    }

    /** A Camel Main running the proxy with its bound {@link ProxySettings}; not started. */
    static Main createMain() {
        Main main = new Main();
        main.addInitialProperty("camel.management.host", managementHost(System.getenv()));
        // The variables win over -Dcamel.management.*, as every variable over its property (Camel's
        // properties component reads the JVM's system properties before anything a Main is given).
        for (String[] variable : new String[][] {{"MANAGEMENT_HOST", "camel.management.host"},
                {"MANAGEMENT_PORT", "camel.management.port"}}) {
            String value = System.getenv(variable[0]);
            if (value != null && System.getProperty(variable[1]) != null) {
                System.setProperty(variable[1], value.trim());
            }
        }
        ProxySettings.BINDING.declareTo(main);
        main.configure().addRoutesBuilder(new Application());
        return main;
    }

    /** Validates the bound settings, starts agents if needed, adds the proxy. */
    static final class Application extends RouteBuilder {

        @Override
        public void configure() throws Exception {
            ProxySettings.BINDING.requireAsWritten(getContext());
            ProxySettings settings = ProxySettings.BINDING.boundIn(getContext());
            ProxyConfig config = settings.toConfig();
            AdaptiveVirtualNodeLB shared = settings.sharedAdaptiveBalancer(config.strategy());
            AgentLoadBalancerSupport balancer = Strategies.isBaseline(config.strategy()) ? null
                    : settings.configure(shared != null ? shared : Strategies.create(config.strategy()));
            if (balancer != null) {
                Map<String, String> knobs = BalancerKnobs.apply(balancer, getContext());
                if (!knobs.isEmpty()) {
                    LOG.info("Balancer knobs set by BALANCER_* / balancer.*: {}", knobs);
                }
            } else {
                settings.refuseBalancerKnobs(config.strategy());
                BalancerKnobs.refuseWithoutBalancer(config.strategy(), getContext());
            }
            if (config.port() == 0) {
                // PORT=0: a free port chosen now, so that every line names the port the proxy listens on.
                config = config.toBuilder().port(ServerPorts.findFreePort(config.host())).build();
            }
            ServerPorts.requirePortFree(config.host(), config.port());
            FleetSource source = settings.fleetSource();
            DemoFleet fleet = null;
            if (source != null) {
                if (balancer == null) {
                    throw new IllegalArgumentException("Bad proxy configuration: AGENTS_FILE and AGENTS_DNS need one of "
                            + Strategies.names() + ", was STRATEGY=" + config.strategy());
                }
                fleet = new DemoFleet(source);
                DemoFleet first = fleet;
                ProxyConfig given = config;
                config = settings.fromFleetSource(() -> given.toBuilder().agentUrls(first.firstFleet()).build());
                LOG.info("Mode: proxy to the agents of {}, watched: {}", source.describe(), NameList.of(config.agentUrls()));
            } else if (settings.getAgents() != null) {
                LOG.info("Mode: proxy to the agents in AGENTS {}", NameList.of(config.agentUrls()));
            } else {
                Optional<EmbeddedAgents> agents =
                        EmbeddedAgents.startIfNoneAnswer(config.agentUrls(), EmbeddedAgents.DEFAULT_PROBE_TIMEOUT_MS);
                if (agents.isPresent()) {
                    getContext().addService(new EmbeddedAgentsService(agents.get(), getContext()), true, true);
                    LOG.info("Mode: self-contained demo: AGENTS is not set and no agent answered at {}, "
                            + "so stub agents {} run in this JVM", config.agentUrls(), agents.get().agents());
                } else {
                    LOG.info("Mode: proxy to the default agents {} (AGENTS not set; at least one answers)",
                            config.agentUrls());
                }
            }
            LOG.info("Proxy settings: {}", config.describe());
            // Camel's own summary of these endpoints says 0.0.0.0 whatever the host (log4j2.properties quiets it).
            if (getContext().getPropertiesComponent().resolveProperty("camel.management.enabled").map(Boolean::parseBoolean)
                    .orElse(false)) {
                String management = "http://" + ServerPorts.uriHost(managementHost(System.getenv())) + ":"
                        + getContext().getPropertiesComponent().resolveProperty("camel.management.port").orElse("?");
                LOG.info("Management: {}/observe/health and /observe/metrics", management);
            }
            if (balancer != null) {
                OutlierEjection ejection = balancer.getOutlierEjection();
                LOG.info("Balancer settings: consecutiveFailures={} baseEjectionTimeMs={} maxEjectionTimeMs={} "
                                + "maxEjectedShare={} maximumFailoverAttempts={} failoverDeadlineMs={}{}",
                        ejection.consecutiveFailures(), ejection.baseEjectionTime().toMillis(),
                        ejection.maxEjectionTime().toMillis(), ejection.maxEjectedShare(),
                        balancer.getMaximumFailoverAttempts(), balancer.getFailoverDeadline().toMillis(),
                        balancer instanceof KeySettings keyed ? " " + keyed.getBoundedLoad() : "");
                LOG.info("Retry budget: {}", retries(balancer.getRetryBudget(), balancer.getRetryBackoff()));
                LOG.info("Hedging: {}", hedging(balancer.getHedging()));
            }
            if (balancer != null) {
                var check = balancer.getHealthCheck();
                LOG.info("Health checks: {}", check.isEnabled()
                        ? "GET " + check.path() + " on every agent every " + check.interval().toMillis() + " ms, expecting "
                                + check.expectedStatus() + "; an agent failing " + inARow(check.unhealthyThreshold())
                                + " is marked down, passing " + inARow(check.healthyThreshold())
                                + " up (BALANCER_HEALTH_CHECK_PATH=none turns them off)"
                        : "off");
                LOG.info("Slow start: {}", balancer.getSlowStart().isEnabled()
                        ? balancer.getSlowStart().window().toMillis() + " ms for agents that join or come back" : "off");
            }
            if (shared != null) {
                LOG.info("Allocation shared through ZooKeeper {} as balancer {}", settings.getZookeeper(),
                        settings.getBalancerId());
            }
            boolean noneAccepted = ProxyRoutes.logSilentAgents(config.agentUrls()).size() == config.agentUrls().size();
            getContext().addRoutes(new ProxyRoutes(config, balancer).withFleet(fleet).noneAcceptedAtStart(noneAccepted));
        }
    }

    /** The retry budget and backoff in words, for the start-up log. */
    static String retries(RetryBudget budget, RetryBackoff backoff) {
        return (budget.enabled() ? "failovers in flight at most " + budget.share() + " x the requests in flight, or "
                + budget.minRetries() : "off") + "; " + (backoff.enabled() ? "backoff with full jitter below "
                + backoff.baseInterval().toMillis() + " ms, doubling up to " + backoff.maxInterval().toMillis() + " ms"
                : "no backoff");
    }

    /** The hedging policy in words, for the start-up log. */
    static String hedging(HedgePolicy hedging) {
        if (!hedging.enabled()) {
            return "off";
        }
        double p = hedging.percentile();
        return "an idempotent request without an answer head after " + (p == 0 ? hedging.delay().toMillis() + " ms"
                : "the p" + (p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p)) + " of recent first-byte "
                + "times (" + hedging.delay().toMillis() + " ms until enough are known)") + " also goes to another agent, "
                + "at most " + hedging.maxHedges() + (hedging.maxHedges() == 1 ? " hedge" : " hedges") + " per request";
    }
}
