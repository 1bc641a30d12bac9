package io.github.agentlb.demo;

import io.github.agentlb.agent.main.ServerPorts;
import io.github.agentlb.camel.http.AgentTimeouts;
import io.github.agentlb.core.Check;
import io.github.agentlb.core.fleet.NameList;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Immutable, validated configuration of the demo proxy.
 *
 * <p>Build one with {@link #builder()} (every setter validates at once and throws
 * {@link IllegalArgumentException} naming the field and the value), take the defaults with
 * {@link #ofDefaults()}; {@link ProxySettings} reads them from the environment, system
 * properties and {@code application.properties}.
 *
 * <p>A record, so immutable and thread-safe.
 *
 * <p>Over 300 lines: every proxy knob with its check and default in one immutable config and builder.
 *
 * @param port               TCP port of the proxy, 0..65535; 0 asks {@link DemoProxy} for an ephemeral port
 * @param agentUrls          agent base URLs such as {@code http://127.0.0.1:8081}, without trailing slash;
 *                           unmodifiable, never empty, distinct; the order is the child order of the balancer
 * @param agentNames         agent base URL to its name, for the agents given as {@code NAME=URL} and the default
 *                           agents ({@link #DEFAULT_AGENT_NAMES}); unmodifiable, each key one of {@code agentUrls},
 *                           names distinct. A named agent's id in the balancer is its name (see
 *                           {@code AgentLoadBalancerSupport#nameAgent}), so its users stay with it when its URL
 *                           changes
 * @param strategy           strategy name, lower case, one of {@link Strategies#names()} or
 *                           {@link Strategies#baselines()}
 * @param host               bind host of the proxy, e.g. {@code 0.0.0.0} or {@code 127.0.0.1}; an IP address or
 *                           a name that resolves
 * @param connectTimeoutMs   time allowed to connect to an agent, ms, >= 1
 * @param requestTimeoutMs   total time allowed for an agent's answer, from sending the request to its last byte,
 *                           ms, >= 0; 0 = none
 * @param firstByteTimeoutMs time allowed from sending the request to the first byte of the answer, ms, >= 1
 * @param idleTimeoutMs      longest silence allowed between two reads of an answer, ms, >= 1
 * @param maxBodyBytes       largest request body accepted, bytes, >= 0; a larger one gets 413
 * @param clientTimeoutMs    time allowed for a request's head and body to arrive once its first byte came, ms,
 *                           >= 1; then 408; also the longest a new connection may send no byte (one
 *                           kept alive after an answer: 75 s): then it is closed without an answer
 */
public record ProxyConfig(int port, List<String> agentUrls, Map<String, String> agentNames, String strategy,
                          String host, int connectTimeoutMs, int requestTimeoutMs, int firstByteTimeoutMs,
                          int idleTimeoutMs, int maxBodyBytes, int clientTimeoutMs) {

    /** The largest TCP port. */
    private static final int MAX_PORT = 65535;
    /** Default HTTP port of the proxy. */
    public static final int DEFAULT_PORT = 8000;
    /** Default bind host of the application: every interface. Tests use {@code 127.0.0.1}. */
    public static final String DEFAULT_HOST = "0.0.0.0";
    /** Default agents: the three stub agents of the demo. */
    public static final List<String> DEFAULT_AGENT_URLS =
            List.of("http://localhost:8081", "http://localhost:8082", "http://localhost:8083");
    /**
     * Names of the default agents, by URL: A1..A3, the ids the demo's own stub agents answer with
     * and the names the load generator gives its embedded agents, so that a key's ring position,
     * and so its agent, is the same on the demo proxy as in the load generator's runs.
     */
    public static final Map<String, String> DEFAULT_AGENT_NAMES = defaultAgentNames();
    /** Default strategy name, see {@link Strategies#names()}. */
    public static final String DEFAULT_STRATEGY = "rr";
    /** Default time to open a TCP connection to an agent, ms; longer counts as a connection failure. */
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 1000;
    /** Default time from sending a request to the first byte of its answer, ms (nginx's {@code proxy_read_timeout}). */
    public static final int DEFAULT_FIRST_BYTE_TIMEOUT_MS = AgentTimeouts.DEFAULT_FIRST_BYTE_MS;
    /** Default longest silence between two reads of an answer, ms (nginx's {@code proxy_read_timeout}). */
    public static final int DEFAULT_IDLE_TIMEOUT_MS = AgentTimeouts.DEFAULT_IDLE_MS;
    /** Default total time for an agent's answer, ms: 0, none, so a stream runs as long as bytes flow. */
    public static final int DEFAULT_REQUEST_TIMEOUT_MS = 0;
    /** Default largest request body, bytes: 16 MiB; a larger one gets 413. */
    public static final int DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
    /** Default time for a request's head and body to arrive once begun, ms (nginx's {@code client_header_timeout}); then 408. */
    public static final int DEFAULT_CLIENT_TIMEOUT_MS = 60_000;

    /**
     * Checks every value by the {@link Builder}'s setter of the same name ({@code agentUrls} and
     * {@code agentNames} together, as the {@code NAME=URL} entries of {@link Builder#agentUrls(List)}) and
     * keeps them as those setters do: agent URLs normalized, the strategy in lower case, the host trimmed,
     * the list and map unmodifiable copies.
     *
     * @throws IllegalArgumentException naming the field and the bad value, as that setter; also when
     *     {@code agentNames} is null or names a URL that is not in {@code agentUrls}
     */
    public ProxyConfig {
        Builder checked = builder().port(port).agentUrls(namedUrls(agentUrls, agentNames)).strategy(strategy)
                .host(host).connectTimeoutMs(connectTimeoutMs).requestTimeoutMs(requestTimeoutMs)
                .firstByteTimeoutMs(firstByteTimeoutMs).idleTimeoutMs(idleTimeoutMs).maxBodyBytes(maxBodyBytes)
                .clientTimeoutMs(clientTimeoutMs);
        agentUrls = checked.agentUrls;
        agentNames = checked.agentNames;
        strategy = checked.strategy;
        host = checked.host;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: port 8000 on every interface, the three local agents, {@code rr}. */
    public static ProxyConfig ofDefaults() {
        return builder().build();
    }

    /** A builder holding this configuration's values, the agents' names included, to derive a variant. */
    public Builder toBuilder() {
        return builder().port(port).agentUrls(namedUrls(agentUrls, agentNames)).strategy(strategy).host(host)
                .connectTimeoutMs(connectTimeoutMs).requestTimeoutMs(requestTimeoutMs)
                .firstByteTimeoutMs(firstByteTimeoutMs).idleTimeoutMs(idleTimeoutMs).maxBodyBytes(maxBodyBytes)
                .clientTimeoutMs(clientTimeoutMs);
    }

    /** The agent call timeouts: connect, first byte, idle, total. */
    public AgentTimeouts timeouts() {
        return new AgentTimeouts(connectTimeoutMs, firstByteTimeoutMs, idleTimeoutMs, requestTimeoutMs);
    }

    /** One line with every setting, for the startup log. */
    public String describe() {
        return String.format(Locale.ROOT, "host=%s port=%d strategy=%s agents=%s connectTimeoutMs=%d "
                        + "firstByteTimeoutMs=%d idleTimeoutMs=%d requestTimeoutMs=%d maxBodyBytes=%d clientTimeoutMs=%d",
                host, port, strategy, NameList.of(agentUrls.stream()
                        .map(u -> agentNames.containsKey(u) ? agentNames.get(u) + "=" + u : u).toList()), connectTimeoutMs,
                firstByteTimeoutMs, idleTimeoutMs, requestTimeoutMs, maxBodyBytes, clientTimeoutMs);
    }

    private static Map<String, String> defaultAgentNames() {
        Map<String, String> names = new LinkedHashMap<>();
        for (int i = 0; i < DEFAULT_AGENT_URLS.size(); i++) {
            names.put(DEFAULT_AGENT_URLS.get(i), "A" + (i + 1));
        }
        return Collections.unmodifiableMap(names);
    }

    /**
     * The entries of {@link Builder#agentUrls(List)} that give {@code urls} with {@code names}: {@code NAME=URL}
     * for a named URL, the URL alone otherwise; a null {@code urls} stays null for that setter to reject.
     *
     * @throws IllegalArgumentException if {@code names} is null or has a URL that is not in {@code urls}
     */
    private static List<String> namedUrls(List<String> urls, Map<String, String> names) {
        Check.notNull("agentNames", names);
        if (urls == null) {
            return null;
        }
        for (String url : names.keySet()) {
            if (url == null || !urls.contains(url)) {
                throw new IllegalArgumentException("agentNames must name agents of agentUrls " + urls + ", was "
                        + names);
            }
        }
        List<String> entries = new ArrayList<>(urls.size());
        for (String url : urls) {
            String name = url == null ? null : names.get(url);
            entries.add(name == null ? url : name + "=" + url);
        }
        return entries;
    }

    /**
     * Builder of {@link ProxyConfig}. Each setter validates its argument and throws
     * {@link IllegalArgumentException} naming field and value. Not thread-safe.
     */
    public static final class Builder {
        private int port = DEFAULT_PORT;
        private List<String> agentUrls = DEFAULT_AGENT_URLS;
        private Map<String, String> agentNames = DEFAULT_AGENT_NAMES;
        private String strategy = DEFAULT_STRATEGY;
        private String host = DEFAULT_HOST;
        /** The four agent call timeouts, checked by {@link AgentTimeouts}' own rules. */
        private AgentTimeouts timeouts = new AgentTimeouts(DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_FIRST_BYTE_TIMEOUT_MS,
                DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS);
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int clientTimeoutMs = DEFAULT_CLIENT_TIMEOUT_MS;

        private Builder() {
        }

        /** TCP port in 0..65535, 0 = ephemeral. */
        public Builder port(int value) {
            this.port = Check.inRange("port", value, 0, MAX_PORT);
            return this;
        }

        /**
         * Agent base URLs, at least one, distinct, each {@code http://host:port} with an optional
         * trailing slash (dropped) and no path, query or fragment, optionally named
         * {@code NAME=http://host:port} (names distinct, no {@code =}, {@code ,} or blanks); the
         * order is the child order of the balancer.
         */
        public Builder agentUrls(List<String> value) {
            Check.notEmpty("agentUrls", value);
            Set<String> urls = new LinkedHashSet<>();
            Map<String, String> names = new LinkedHashMap<>();
            for (String entry : value) {
                int equals = entry == null ? -1 : entry.indexOf('=');
                if (equals >= 0 && entry.contains("://") && equals > entry.indexOf("://")) {
                    equals = -1; // an '=' in the URL's query, not a name
                }
                String name = equals < 0 ? null : entry.substring(0, equals).trim();
                String normalized = normalizeAgentUrl(equals < 0 ? entry : entry.substring(equals + 1));
                if (!urls.add(normalized)) {
                    throw new IllegalArgumentException("agentUrls must be distinct, " + normalized + " appears twice");
                }
                if (name != null) {
                    if (name.isEmpty() || name.chars().anyMatch(c -> Character.isWhitespace(c) || c == ',')) {
                        throw new IllegalArgumentException("agent name must be a non-blank word, was '" + name + "'");
                    }
                    if (names.containsValue(name)) {
                        throw new IllegalArgumentException("agent names must be distinct, " + name + " appears twice");
                    }
                    names.put(normalized, name);
                }
            }
            this.agentUrls = List.copyOf(urls);
            this.agentNames = Collections.unmodifiableMap(names);
            return this;
        }

        /** Agent base URLs, see {@link #agentUrls(List)}. */
        public Builder agentUrls(String... value) {
            return agentUrls(value == null ? null : List.of(value));
        }

        /** Strategy name, case-insensitive, one of {@link Strategies#names()} or {@link Strategies#baselines()}. */
        public Builder strategy(String value) {
            String name = value == null ? null : value.trim().toLowerCase(Locale.ROOT);
            if (name == null || !(Strategies.names().contains(name) || Strategies.isBaseline(name))) {
                throw new IllegalArgumentException("strategy must be one of " + Strategies.names()
                        + " or a baseline " + Strategies.baselines() + ", was '" + value + "'");
            }
            this.strategy = name;
            return this;
        }

        /**
         * Bind host, not blank, an IP address or a name that resolves; an IPv6 literal is kept in
         * brackets ({@code ::1} as {@code [::1]}), as URLs write it.
         */
        public Builder host(String value) {
            String host = ServerPorts.requireResolvableHost(Check.notBlank("host", value).trim());
            this.host = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
            return this;
        }

        /** Connect timeout, ms, >= 1. */
        public Builder connectTimeoutMs(int value) {
            timeouts = new AgentTimeouts(value, timeouts.firstByteMs(), timeouts.idleMs(), timeouts.totalMs());
            return this;
        }

        /** Total time for an answer, ms, >= 0; 0 = none. */
        public Builder requestTimeoutMs(int value) {
            timeouts = new AgentTimeouts(timeouts.connectMs(), timeouts.firstByteMs(), timeouts.idleMs(), value);
            return this;
        }

        /** Time to the first byte of the answer, ms, >= 1. */
        public Builder firstByteTimeoutMs(int value) {
            timeouts = new AgentTimeouts(timeouts.connectMs(), value, timeouts.idleMs(), timeouts.totalMs());
            return this;
        }

        /** Longest silence between reads of an answer, ms, >= 1. */
        public Builder idleTimeoutMs(int value) {
            timeouts = new AgentTimeouts(timeouts.connectMs(), timeouts.firstByteMs(), value, timeouts.totalMs());
            return this;
        }

        /** Largest request body, bytes, >= 0. */
        public Builder maxBodyBytes(int value) {
            this.maxBodyBytes = Check.atLeast("maxBodyBytes", value, 0);
            return this;
        }

        /** Time for a request's head and body to arrive, ms, >= 1. */
        public Builder clientTimeoutMs(int value) {
            this.clientTimeoutMs = Check.atLeast("clientTimeoutMs", value, 1);
            return this;
        }

        /** @return the immutable configuration */
        public ProxyConfig build() {
            return new ProxyConfig(port, agentUrls, agentNames, strategy, host, timeouts.connectMs(),
                    (int) timeouts.totalMs(), timeouts.firstByteMs(), timeouts.idleMs(), maxBodyBytes, clientTimeoutMs);
        }

        /**
         * {@code url} as {@code http://host:port}, the port without leading zeros; for the agents of
         * {@link #agentUrls(List)} and of a membership source.
         *
         * @throws IllegalArgumentException naming the URL and what is wrong with it
         */
        static String normalizeAgentUrl(String url) {
            if (url == null || url.isBlank()) {
                throw new IllegalArgumentException("agent URL must not be blank, was '" + url + "'");
            }
            String trimmed = url.trim();
            while (trimmed.endsWith("/")) {
                trimmed = trimmed.substring(0, trimmed.length() - 1);
            }
            String shape = "agent URL must look like http://host:port, was '" + url + "'";
            URI uri;
            try {
                uri = new URI(trimmed);
            } catch (URISyntaxException e) {
                String reason = e.getReason();
                throw new IllegalArgumentException(shape + " (" + reason.substring(0, 1).toLowerCase(Locale.ROOT)
                        + reason.substring(1) + ")");
            }
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0
                    || uri.getRawUserInfo() != null || !uri.getRawPath().isEmpty() || uri.getRawQuery() != null
                    || uri.getRawFragment() != null) {
                throw new IllegalArgumentException(shape);
            }
            if (uri.getPort() < 1 || uri.getPort() > MAX_PORT) {
                // java.net.URI takes any port that fits an int; the agent's socket would refuse it later
                // ("port out of range:99999", naming neither AGENTS nor the URL).
                throw new IllegalArgumentException("agent URL's port must be in 1.." + MAX_PORT + ", was '" + url + "'");
            }
            return "http://" + uri.getHost() + ":" + uri.getPort();
        }
    }
}
