package io.github.agentlb.demo;

import io.github.agentlb.agent.MainSettings;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
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
 */
public class ProxySettings {

    /** The bean properties Camel Main binds, with their variables PORT, HOST, AGENTS, ... */
    public static final MainSettings<ProxySettings> BINDING = new MainSettings<>("proxySettings", ProxySettings.class,
            List.of("port", "host", "agents", "strategy", "connectTimeoutMs", "requestTimeoutMs",
                    "firstByteTimeoutMs", "idleTimeoutMs", "maxBodyBytes", "clientTimeoutMs",
                    "consecutiveFailures", "baseEjectionTimeMs", "maxEjectionTimeMs", "maxEjectedShare",
                    "maximumFailoverAttempts"));

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
        return balancer;
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

    /** {@code CONSECUTIVE_FAILURES}: failed attempts in a row that eject an agent, &gt;= 1; default 1. */
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

    public Integer getMaximumFailoverAttempts() {
        return maximumFailoverAttempts;
    }

    /** {@code MAXIMUM_FAILOVER_ATTEMPTS}: further attempts after the first, -1 (default) = every agent once, 0 = none. */
    public void setMaximumFailoverAttempts(Integer maximumFailoverAttempts) {
        this.maximumFailoverAttempts = maximumFailoverAttempts;
    }
}
