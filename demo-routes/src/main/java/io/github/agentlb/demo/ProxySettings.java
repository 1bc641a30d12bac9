package io.github.agentlb.demo;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.KeySettings;
import io.github.agentlb.core.fleet.FleetSource;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.fleet.DnsFleetSource;
import io.github.agentlb.fleet.FileFleetSource;
import io.github.agentlb.zookeeper.ZooKeeperSharedAllocation;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import io.github.agentlb.agent.main.MainSettings;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.Check;
import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
import java.util.Map;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo proxy's settings as a JavaBean that Camel Main binds ({@link #BINDING}): each property
 * is read from its environment variable, else its system property, else
 * {@code application.properties} (property {@code strategy}: {@code STRATEGY}, {@code -Dstrategy=ch},
 * {@code strategy = ch}). Camel converts the text; {@link #toConfig()} and {@link #configure}
 * validate it.
 *
 * <p>Times are whole milliseconds: Camel's conversion to {@link Duration} turns text it cannot
 * read ({@code abc}, {@code -5s}) into zero without an error, so a typo would be reported as
 * "was PT0S" rather than as what was written.
 *
 * <p>Defaults are {@link ProxyConfig}'s and the balancer's own. Not thread-safe: bound once, then read.
 *
 * <p>Over 300 lines: one JavaBean pair per environment variable, each with its unit and default, as Camel Main binds them.
 */
public class ProxySettings {

    /** The bean properties Camel Main binds, with their variables PORT, HOST, AGENTS, ... */
    public static final MainSettings<ProxySettings> BINDING = new MainSettings<>("proxySettings", ProxySettings.class,
            List.of("port", "host", "agents", "strategy", "connectTimeoutMs", "requestTimeoutMs",
                    "firstByteTimeoutMs", "idleTimeoutMs", "maxBodyBytes", "clientTimeoutMs",
                    "consecutiveFailures", "baseEjectionTimeMs", "maxEjectionTimeMs", "maxEjectedShare",
                    "maximumFailoverAttempts", "agentsFile", "agentsDns", "agentsDnsServer", "agentsDnsIpv6", "slowStartMs", "balanceFactor",
                    "zookeeper", "balancerId"));

    /**
     * The demo's active health checks: {@code GET /health} on each agent (the stub agents serve it),
     * the library's other defaults (every 2 s, 1 s timeout, down after 2 failures, up after 2 passes,
     * calls waiting on an agent marked down ended). {@code BALANCER_HEALTH_CHECK_PATH=none} turns them off.
     */
    public static final String DEMO_HEALTH_CHECK_PATH = "/health";

    /** The slow start of agents that join or come back, by default: {@link SlowStart#DEMO}'s 30 s. */
    public static final long DEFAULT_SLOW_START_MS = SlowStart.DEMO.window().toMillis();
    /** The shared allocation's id when {@code BALANCER_ID} is not set. */
    static final String DEFAULT_BALANCER_ID = "agentlb";

    private int port = ProxyConfig.DEFAULT_PORT;
    private String host = ProxyConfig.DEFAULT_HOST;
    private String agents;
    private String strategy = ProxyConfig.DEFAULT_STRATEGY;
    private int connectTimeoutMs = ProxyConfig.DEFAULT_CONNECT_TIMEOUT_MS;
    private int requestTimeoutMs = ProxyConfig.DEFAULT_REQUEST_TIMEOUT_MS;
    private int firstByteTimeoutMs = ProxyConfig.DEFAULT_FIRST_BYTE_TIMEOUT_MS;
    private int idleTimeoutMs = ProxyConfig.DEFAULT_IDLE_TIMEOUT_MS;
    private int maxBodyBytes = ProxyConfig.DEFAULT_MAX_BODY_BYTES;
    private int clientTimeoutMs = ProxyConfig.DEFAULT_CLIENT_TIMEOUT_MS;
    private Integer consecutiveFailures;
    private Long baseEjectionTimeMs;
    private Long maxEjectionTimeMs;
    private Double maxEjectedShare;
    private Integer maximumFailoverAttempts;
    private String agentsFile;
    private String agentsDns;
    /** Null when not set: the platform's name server. */
    private String agentsDnsServer;
    /** Null when not set: true. */
    private Boolean agentsDnsIpv6;
    /** Null when not set: {@value #DEFAULT_SLOW_START_MS}. */
    private Long slowStartMs;
    private Double balanceFactor;
    private String zookeeper;
    /** Null when not set: {@value #DEFAULT_BALANCER_ID}. */
    private String balancerId;

    /**
     * The proxy's validated configuration (port, host, agents, strategy, timeouts).
     *
     * @throws IllegalArgumentException naming the variable and the value of a bad setting
     */
    public ProxyConfig toConfig() {
        ProxyConfig.Builder b = ProxyConfig.builder();
        MainSettings.apply("port", () -> b.port(port));
        MainSettings.apply("host", () -> b.host(host));
        if (agents != null) {
            MainSettings.apply("agents", () -> b.agentUrls(splitAgents(agents)));
        }
        MainSettings.apply("strategy", () -> b.strategy(strategy));
        MainSettings.apply("connectTimeoutMs", () -> b.connectTimeoutMs(connectTimeoutMs));
        MainSettings.apply("requestTimeoutMs", () -> b.requestTimeoutMs(requestTimeoutMs));
        MainSettings.apply("firstByteTimeoutMs", () -> b.firstByteTimeoutMs(firstByteTimeoutMs));
        MainSettings.apply("idleTimeoutMs", () -> b.idleTimeoutMs(idleTimeoutMs));
        MainSettings.apply("maxBodyBytes", () -> b.maxBodyBytes(maxBodyBytes));
        MainSettings.apply("clientTimeoutMs", () -> b.clientTimeoutMs(clientTimeoutMs));
        return b.build();
    }

    /**
     * Sets the outlier ejection and failover knobs that were given on {@code balancer}; the others
     * keep the balancer's values.
     *
     * @return the balancer
     * @throws IllegalArgumentException naming the variable and the value of a bad setting
     */
    public <T extends AgentLoadBalancerSupport> T configure(T balancer) {
        OutlierEjection.Builder ejection = balancer.getOutlierEjection().toBuilder();
        if (consecutiveFailures != null) {
            MainSettings.apply("consecutiveFailures", () -> ejection.consecutiveFailures(consecutiveFailures));
        }
        if (baseEjectionTimeMs != null) {
            MainSettings.apply("baseEjectionTimeMs", () -> ejection.baseEjectionTime(Duration.ofMillis(baseEjectionTimeMs)));
        }
        if (maxEjectionTimeMs != null) {
            MainSettings.apply("maxEjectionTimeMs", () -> ejection.maxEjectionTime(Duration.ofMillis(maxEjectionTimeMs)));
        }
        if (maxEjectedShare != null) {
            MainSettings.apply("maxEjectedShare", () -> ejection.maxEjectedShare(maxEjectedShare));
        }
        try {
            if (consecutiveFailures != null || baseEjectionTimeMs != null || maxEjectionTimeMs != null
                    || maxEjectedShare != null) {
                balancer.setOutlierEjection(ejection.build());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("BASE_EJECTION_TIME_MS, MAX_EJECTION_TIME_MS: " + e.getMessage(), e);
        }
        if (maximumFailoverAttempts != null) {
            MainSettings.apply("maximumFailoverAttempts", () -> balancer.setMaximumFailoverAttempts(maximumFailoverAttempts));
        }
        balancer.setHealthCheckPath(DEMO_HEALTH_CHECK_PATH);
        MainSettings.apply("slowStartMs", () -> {
            Check.atLeast("slowStartMs", getSlowStartMs(), 0);
            balancer.setSlowStart(SlowStart.DEMO.withWindow(Duration.ofMillis(getSlowStartMs())));
        });
        if (balanceFactor != null) {
            if (!(balancer instanceof KeySettings keyed)) {
                MainSettings.apply("balanceFactor", () -> {
                    throw new IllegalArgumentException("balanceFactor applies to ch and avn, was set to "
                            + balanceFactor + " for " + balancer.strategyName());
                });
            } else {
                MainSettings.apply("balanceFactor", () -> keyed.setBalanceFactor(balanceFactor));
            }
        }
        return balancer;
    }

    /**
     * Refuses the outlier ejection, failover, balance and slow-start knobs that were given, for a baseline
     * {@code strategy} (Camel's own balancer, which has none of them); nothing when none was given.
     *
     * @throws IllegalArgumentException naming the variables given
     */
    public void refuseBalancerKnobs(String strategy) {
        Map<String, Object> knobs = new LinkedHashMap<>();
        knobs.put("consecutiveFailures", consecutiveFailures);
        knobs.put("baseEjectionTimeMs", baseEjectionTimeMs);
        knobs.put("maxEjectionTimeMs", maxEjectionTimeMs);
        knobs.put("maxEjectedShare", maxEjectedShare);
        knobs.put("maximumFailoverAttempts", maximumFailoverAttempts);
        knobs.put("balanceFactor", balanceFactor);
        knobs.put("slowStartMs", slowStartMs);
        List<String> given = knobs.entrySet().stream().filter(e -> e.getValue() != null)
                .map(e -> MainSettings.variable(e.getKey())).toList();
        if (!given.isEmpty()) {
            throw new IllegalArgumentException("Bad proxy configuration: " + String.join(", ", given) + ": STRATEGY="
                    + strategy + " is Camel's own balancer, which has none of these knobs");
        }
    }

    /**
     * The membership source {@code AGENTS_FILE} or {@code AGENTS_DNS} names, or null when neither
     * is set (the agents are then {@code AGENTS}). {@code AGENTS_DNS} is asked of
     * {@code AGENTS_DNS_SERVER} when set, for AAAA records too unless {@code AGENTS_DNS_IPV6=false}.
     *
     * @throws IllegalArgumentException naming the variable when both, or one with {@code AGENTS}, are set,
     *     and naming the variable and the value of a bad or needless {@code AGENTS_DNS*} setting
     */
    public FleetSource fleetSource() {
        if (agentsFile != null && agentsDns != null || (agentsFile != null || agentsDns != null) && agents != null) {
            // The variables set, in that order: the one left out is not set (no "AGENTS_DNS=null").
            String given = java.util.stream.Stream.of(agents == null ? null : "AGENTS=" + agents,
                    agentsFile == null ? null : "AGENTS_FILE=" + agentsFile, agentsDns == null ? null : "AGENTS_DNS=" + agentsDns)
                    .filter(java.util.Objects::nonNull).collect(java.util.stream.Collectors.joining(" "));
            throw new IllegalArgumentException("Bad proxy configuration: set one of AGENTS, AGENTS_FILE and AGENTS_DNS, "
                    + "was " + given);
        }
        if (agentsDns == null) {
            refuseWithoutAgentsDns();
        }
        if (agentsFile != null) {
            return value("agentsFile", () -> FileFleetSource.of(Path.of(agentsFile.trim())));
        }
        if (agentsDns != null) {
            String target = agentsDns.trim();
            DnsFleetSource.Builder dns = value("agentsDns", () -> DnsFleetSource.builder(target));
            if (agentsDnsServer != null) {
                MainSettings.apply("agentsDnsServer", () -> dns.nameServer(nameServer(agentsDnsServer)));
            }
            if (agentsDnsIpv6 != null) {
                MainSettings.apply("agentsDnsIpv6", () -> {
                    if (target.startsWith("_")) {
                        throw new IllegalArgumentException("agentsDnsIpv6 applies to an AGENTS_DNS of host:port (A and AAAA "
                                + "records), was " + agentsDnsIpv6 + " for " + target);
                    }
                    dns.ipv6(agentsDnsIpv6);
                });
            }
            return dns.build();
        }
        return null;
    }

    /** Refuses {@code AGENTS_DNS_SERVER} and {@code AGENTS_DNS_IPV6} set without {@code AGENTS_DNS}: they would do nothing. */
    private void refuseWithoutAgentsDns() {
        if (agentsDnsServer != null) {
            MainSettings.apply("agentsDnsServer", () -> {
                throw new IllegalArgumentException("agentsDnsServer is the name server AGENTS_DNS is asked of, which is not set, was '"
                        + agentsDnsServer + "'");
            });
        }
        if (agentsDnsIpv6 != null) {
            MainSettings.apply("agentsDnsIpv6", () -> {
                throw new IllegalArgumentException("agentsDnsIpv6 applies to an AGENTS_DNS of host:port (A and AAAA records), "
                        + "which is not set, was " + agentsDnsIpv6);
            });
        }
    }

    /**
     * A name server's address from {@code host:port} or {@code host} (port 53): {@code 10.0.0.2:5353},
     * {@code dns.internal}, {@code [fd00::53]:5353}, {@code fd00::53}. The host is resolved here, once.
     *
     * @throws IllegalArgumentException naming {@code agentsDnsServer} and the value if it is not of that
     *     form, its port not in 1..65535, or its host neither an IP address nor a name that resolves
     */
    static InetSocketAddress nameServer(String value) {
        String form = "agentsDnsServer must be host:port or host (port 53 by default), the port in 1..65535, was '" + value + "'";
        String host;
        String port = "53";
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            String rest = close < 0 ? "" : value.substring(close + 1);
            if (close < 0 || !rest.isEmpty() && !rest.startsWith(":")) {
                throw new IllegalArgumentException(form);
            }
            host = value.substring(1, close);
            port = rest.isEmpty() ? port : rest.substring(1);
        } else if (value.indexOf(':') != value.lastIndexOf(':')) {
            host = value; // an IPv6 address without brackets, hence without a port
        } else {
            int colon = value.indexOf(':');
            host = colon < 0 ? value : value.substring(0, colon);
            port = colon < 0 ? port : value.substring(colon + 1);
        }
        if (host.isEmpty() || !port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException(form);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), Integer.parseInt(port));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("agentsDnsServer's host must be an IP address or a name that resolves, was '"
                    + value + "'", e);
        }
    }

    /**
     * What {@code read} makes of the membership source's agents, its refusal named by the source's
     * variable: "AGENTS_FILE: file:agents.txt: no such file".
     *
     * @throws IllegalArgumentException what {@code read} threw, its message prefixed with {@code AGENTS_FILE}
     *     or {@code AGENTS_DNS}
     */
    public <T> T fromFleetSource(java.util.function.Supplier<T> read) {
        return value(agentsFile != null ? "agentsFile" : "agentsDns", read);
    }

    /**
     * With {@code ZOOKEEPER} set and strategy {@code avn}: a balancer whose allocation is shared by
     * every proxy with the same {@code BALANCER_ID} through that ZooKeeper, else null.
     */
    public AdaptiveVirtualNodeLB sharedAdaptiveBalancer(String strategy) {
        if (zookeeper == null) {
            if (balancerId != null) {
                MainSettings.apply("balancerId", () -> {
                    throw new IllegalArgumentException("balancerId names an allocation shared through ZOOKEEPER, which is not set, was '"
                            + balancerId + "'");
                });
            }
            return null;
        }
        if (!Strategies.ADAPTIVE_VIRTUAL_NODES.equals(strategy)) {
            MainSettings.apply("zookeeper", () -> {
                throw new IllegalArgumentException("ZOOKEEPER shares the avn allocation, was set for strategy " + strategy);
            });
        }
        // The balancer id first, so that a bad one is named BALANCER_ID, not ZOOKEEPER.
        String id = getBalancerId().trim();
        MainSettings.apply("balancerId", () -> ZooKeeperSharedAllocation.of("localhost:2181", id));
        return value("zookeeper", () -> new AdaptiveVirtualNodeLB(ZooKeeperSharedAllocation.of(zookeeper.trim(), id)));
    }

    /** {@link MainSettings#apply} for a setting that makes a value. */
    private static <T> T value(String property, java.util.function.Supplier<T> make) {
        java.util.concurrent.atomic.AtomicReference<T> made = new java.util.concurrent.atomic.AtomicReference<>();
        MainSettings.apply(property, () -> made.set(make.get()));
        return made.get();
    }

    /** Splits a comma-separated list, dropping blanks around and between the commas. */
    static List<String> splitAgents(String value) {
        List<String> urls = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                urls.add(part.trim());
            }
        }
        return urls;
    }

    public int getPort() {
        return port;
    }

    /** {@code PORT}: the proxy's TCP port, 0..65535; default 8000. */
    public void setPort(int port) {
        this.port = port;
    }

    public String getHost() {
        return host;
    }

    /** {@code HOST}: the interface the proxy listens on; default 0.0.0.0 (every interface). */
    public void setHost(String host) {
        this.host = host;
    }

    /** The {@code AGENTS} value as given, or null when it was not given (the demo may then start its own agents). */
    public String getAgents() {
        return agents;
    }

    /** {@code AGENTS}: agent base URLs, comma-separated, each optionally {@code NAME=URL}. */
    public void setAgents(String agents) {
        this.agents = agents;
    }

    public String getStrategy() {
        return strategy;
    }

    /** {@code STRATEGY}: rr (default), ch, pid, avn or the baseline camel-rr. */
    public void setStrategy(String strategy) {
        this.strategy = strategy;
    }

    public int getConnectTimeoutMs() {
        return connectTimeoutMs;
    }

    /** {@code CONNECT_TIMEOUT_MS}: time to connect to an agent, ms, &gt;= 1; default 1000. */
    public void setConnectTimeoutMs(int connectTimeoutMs) {
        this.connectTimeoutMs = connectTimeoutMs;
    }

    public int getRequestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** {@code REQUEST_TIMEOUT_MS}: total time for an agent's answer, to its last byte, ms, &gt;= 0; default 0 = none. */
    public void setRequestTimeoutMs(int requestTimeoutMs) {
        this.requestTimeoutMs = requestTimeoutMs;
    }

    public int getFirstByteTimeoutMs() {
        return firstByteTimeoutMs;
    }

    /** {@code FIRST_BYTE_TIMEOUT_MS}: time from sending a request to its answer's first byte, ms, &gt;= 1; default 60000. */
    public void setFirstByteTimeoutMs(int firstByteTimeoutMs) {
        this.firstByteTimeoutMs = firstByteTimeoutMs;
    }

    public int getIdleTimeoutMs() {
        return idleTimeoutMs;
    }

    /** {@code IDLE_TIMEOUT_MS}: longest silence between reads of an answer, ms, &gt;= 1; default 60000. */
    public void setIdleTimeoutMs(int idleTimeoutMs) {
        this.idleTimeoutMs = idleTimeoutMs;
    }

    public int getMaxBodyBytes() {
        return maxBodyBytes;
    }

    /** {@code MAX_BODY_BYTES}: largest request body, bytes, &gt;= 0; default 16777216 (16 MiB); larger gets 413. */
    public void setMaxBodyBytes(int maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    public int getClientTimeoutMs() {
        return clientTimeoutMs;
    }

    /** {@code CLIENT_TIMEOUT_MS}: time for a request's head and body to arrive once begun, ms, &gt;= 1; default 60000; then 408. */
    public void setClientTimeoutMs(int clientTimeoutMs) {
        this.clientTimeoutMs = clientTimeoutMs;
    }

    public Integer getConsecutiveFailures() {
        return consecutiveFailures;
    }

    /** {@code CONSECUTIVE_FAILURES}: failed attempts in a row (refused, reset, timed out) that eject an agent, &gt;= 1; default 1. */
    public void setConsecutiveFailures(Integer consecutiveFailures) {
        this.consecutiveFailures = consecutiveFailures;
    }

    public Long getBaseEjectionTimeMs() {
        return baseEjectionTimeMs;
    }

    /** {@code BASE_EJECTION_TIME_MS}: the first ejection's length, ms, &gt;= 1; default 10000. */
    public void setBaseEjectionTimeMs(Long baseEjectionTimeMs) {
        this.baseEjectionTimeMs = baseEjectionTimeMs;
    }

    public Long getMaxEjectionTimeMs() {
        return maxEjectionTimeMs;
    }

    /** {@code MAX_EJECTION_TIME_MS}: the longest ejection, ms, &gt;= the base; default 300000. */
    public void setMaxEjectionTimeMs(Long maxEjectionTimeMs) {
        this.maxEjectionTimeMs = maxEjectionTimeMs;
    }

    public Double getMaxEjectedShare() {
        return maxEjectedShare;
    }

    /** {@code MAX_EJECTED_SHARE}: the largest share of agents ejected at once, fraction 0..1 (0 = no ejection); default 1. */
    public void setMaxEjectedShare(Double maxEjectedShare) {
        this.maxEjectedShare = maxEjectedShare;
    }

    public String getAgentsFile() {
        return agentsFile;
    }

    /**
     * {@code AGENTS_FILE}: a watched file of agents, one {@code NAME=URL[;weight=N][;draining][;zone=z]} per line,
     * or JSON; each URL {@code http://host:port} (no https, no path: the demo's agent calls are plain HTTP to the
     * base URL). Not with {@code STRATEGY=camel-rr}, as {@code AGENTS_DNS}: the start stops.
     */
    public void setAgentsFile(String agentsFile) {
        this.agentsFile = agentsFile;
    }

    public String getAgentsDns() {
        return agentsDns;
    }

    /** {@code AGENTS_DNS}: agents from DNS, {@code name:port} (A/AAAA) or {@code _service._tcp.name} (SRV), re-resolved on the TTL. */
    public void setAgentsDns(String agentsDns) {
        this.agentsDns = agentsDns;
    }

    public String getAgentsDnsServer() {
        return agentsDnsServer;
    }

    /**
     * {@code AGENTS_DNS_SERVER}: the name server {@code AGENTS_DNS} is asked of, {@code host:port} or {@code host}
     * (port 53), e.g. {@code 127.0.0.1:5353}; default: the platform's ({@code /etc/resolv.conf}).
     */
    public void setAgentsDnsServer(String agentsDnsServer) {
        this.agentsDnsServer = agentsDnsServer;
    }

    public Boolean getAgentsDnsIpv6() {
        return agentsDnsIpv6;
    }

    /** {@code AGENTS_DNS_IPV6}: whether a {@code name:port} {@code AGENTS_DNS} asks AAAA records too, true or false; default true. */
    public void setAgentsDnsIpv6(Boolean agentsDnsIpv6) {
        this.agentsDnsIpv6 = agentsDnsIpv6;
    }

    public long getSlowStartMs() {
        return slowStartMs == null ? DEFAULT_SLOW_START_MS : slowStartMs;
    }

    /** {@code SLOW_START_MS}: how long an agent that joins or comes back ramps up to its share, ms, &gt;= 0 (0 = off); default 30000. */
    public void setSlowStartMs(long slowStartMs) {
        this.slowStartMs = slowStartMs;
    }

    public Double getBalanceFactor() {
        return balanceFactor;
    }

    /** {@code BALANCE_FACTOR}: bounded loads for ch and avn, c &gt; 1 (1.25 is a common choice), 0 = off; default off. */
    public void setBalanceFactor(Double balanceFactor) {
        this.balanceFactor = balanceFactor;
    }

    public String getZookeeper() {
        return zookeeper;
    }

    /** {@code ZOOKEEPER}: {@code host:port[,host:port]} of a ZooKeeper through which avn proxies share one allocation. */
    public void setZookeeper(String zookeeper) {
        this.zookeeper = zookeeper;
    }

    public String getBalancerId() {
        return balancerId == null ? DEFAULT_BALANCER_ID : balancerId;
    }

    /** {@code BALANCER_ID}: the proxies sharing an allocation through {@code ZOOKEEPER} (refused without it); default agentlb. */
    public void setBalancerId(String balancerId) {
        this.balancerId = balancerId;
    }

    public Integer getMaximumFailoverAttempts() {
        return maximumFailoverAttempts;
    }

    /** {@code MAXIMUM_FAILOVER_ATTEMPTS}: further attempts after the first, -1 (default) = every agent once, 0 = none. */
    public void setMaximumFailoverAttempts(Integer maximumFailoverAttempts) {
        this.maximumFailoverAttempts = maximumFailoverAttempts;
    }
}
