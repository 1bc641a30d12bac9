package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.core.session.LearnedSessions;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.modern.client.transport.HttpClientMcpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Official MCP Java SDK clients of both protocol eras at the same time, each era's servers behind
 * two demo proxies (the replicas a user runs), every client sending its requests through the two
 * replicas in turn: {@value #LEGACY_CLIENTS} legacy (2025-11-25) clients of {@value #LEGACY_CALLS}
 * tool calls each in their session (round-robin, learned sessions with the replicas' shared secret)
 * and {@value #MODERN_CLIENTS} 2026-07-28 clients of {@value #HANDLES_PER_CLIENT} handles x
 * {@value #CALLS_PER_HANDLE} calls each (consistent hashing on {@code mcp-param:handle}), all on
 * {@value #THREADS} threads at once. Every legacy call reaches its session's server, every handle's
 * calls reach one server in order (its count runs 1, 2, 3, 4), and nothing fails. Prints the
 * handles per server and the calls' latency per era (figures, not checked: real sockets and time).
 */
@Tag("e2e")
@Timeout(180)
class McpClientsOfBothErasTest {

    private static final int LEGACY_CLIENTS = 8;
    private static final int LEGACY_CALLS = 10;
    private static final int MODERN_CLIENTS = 8;
    private static final int HANDLES_PER_CLIENT = 10;
    private static final int CALLS_PER_HANDLE = 4;
    private static final int THREADS = 8;
    private static final String SECRET = "the replicas' shared secret";

    private static DemoProxy proxy(List<String> named, String strategy, Supplier<AgentLoadBalancerSupport> balancer)
            throws Exception {
        return DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0).strategy(strategy).agentUrls(named).build(),
                balancer);
    }

    /** One client's calls: the latency of each, ms, in order. */
    private record Calls(List<Double> millis) {
    }

    @Test
    void bothErasThroughTwoReplicasAtOnceKeepEverySessionAndHandleOnItsServer() throws Exception {
        Supplier<AgentLoadBalancerSupport> rr = () -> {
            RoundRobinLB balancer = new RoundRobinLB();
            balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).build());
            return balancer;
        };
        Supplier<AgentLoadBalancerSupport> ch = () -> {
            ConsistentHashLB balancer = new ConsistentHashLB();
            balancer.setKeys("mcp-param:handle");
            return balancer;
        };
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try (McpSdkServers legacy = McpSdkServers.legacy(3); McpSdkServers modern = McpSdkServers.modern(3);
             DemoProxy l1 = proxy(legacy.named(), "rr", rr); DemoProxy l2 = proxy(legacy.named(), "rr", rr);
             DemoProxy m1 = proxy(modern.named(), "ch", ch); DemoProxy m2 = proxy(modern.named(), "ch", ch)) {
            List<Callable<Calls>> clients = new ArrayList<>();
            List<Boolean> legacyClients = new ArrayList<>();
            Map<String, AtomicInteger> sessionsPerServer = new TreeMap<>();
            Map<String, AtomicInteger> handlesPerServer = new TreeMap<>();
            for (int c = 0; c < Math.max(LEGACY_CLIENTS, MODERN_CLIENTS); c++) {
                int client = c;
                if (c < LEGACY_CLIENTS) {
                    clients.add(() -> legacyClient(client, l1, l2, sessionsPerServer));
                    legacyClients.add(true);
                }
                if (c < MODERN_CLIENTS) {
                    clients.add(() -> modernClient(client, m1, m2, handlesPerServer));
                    legacyClients.add(false);
                }
            }
            List<Double> legacyMillis = new ArrayList<>();
            List<Double> modernMillis = new ArrayList<>();
            List<Future<Calls>> done = pool.invokeAll(clients, 150, TimeUnit.SECONDS);
            for (int i = 0; i < done.size(); i++) {
                Calls calls = done.get(i).get();
                (legacyClients.get(i) ? legacyMillis : modernMillis).addAll(calls.millis());
            }

            assertThat(legacyMillis).hasSize(LEGACY_CLIENTS * LEGACY_CALLS);
            assertThat(modernMillis).hasSize(MODERN_CLIENTS * HANDLES_PER_CLIENT * CALLS_PER_HANDLE);
            assertThat(sessionsPerServer.keySet()).as("legacy sessions made on more than one server").hasSizeGreaterThan(1);
            assertThat(handlesPerServer.keySet()).as("handles spread over the three servers").hasSize(3);
            int handles = MODERN_CLIENTS * HANDLES_PER_CLIENT;
            int most = handlesPerServer.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
            System.out.printf(Locale.ROOT, "MCP clients of both eras through two replicas each: legacy sessions per server %s,"
                            + " %d calls p50 %.1f ms p99 %.1f ms; 2026-07-28 handles per server %s (max/mean %.2f),"
                            + " %d calls p50 %.1f ms p99 %.1f ms%n", sessionsPerServer, legacyMillis.size(),
                    percentile(legacyMillis, 0.50), percentile(legacyMillis, 0.99), handlesPerServer,
                    most / (handles / 3.0), modernMillis.size(), percentile(modernMillis, 0.50),
                    percentile(modernMillis, 0.99));
        } finally {
            pool.shutdownNow();
        }
    }

    /** A legacy client whose requests go through {@code first} and {@code second} in turn; its calls stay in its session. */
    private static Calls legacyClient(int c, DemoProxy first, DemoProxy second, Map<String, AtomicInteger> sessionsPerServer) {
        List<Double> millis = new ArrayList<>();
        try (McpSyncClient client = RealMcpSdkProxyTest.legacyClient(first, second)) {
            String server = client.initialize().serverInfo().name();
            synchronized (sessionsPerServer) {
                sessionsPerServer.computeIfAbsent(server, s -> new AtomicInteger()).incrementAndGet();
            }
            String session = null;
            for (int call = 0; call < LEGACY_CALLS; call++) {
                long start = System.nanoTime();
                McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest("whoami", Map.of()));
                millis.add((System.nanoTime() - start) / 1e6);
                String answer = ((McpSchema.TextContent) result.content().get(0)).text();
                assertThat(answer).as("legacy client %d, call %d", c, call).startsWith(server + " ");
                session = session == null ? answer : session;
                assertThat(answer).as("legacy client %d, call %d: the session it began with", c, call).isEqualTo(session);
            }
        }
        return new Calls(millis);
    }

    /** A 2026-07-28 client with one SDK client per replica, calling each of its handles through them in turn. */
    private static Calls modernClient(int c, DemoProxy first, DemoProxy second, Map<String, AtomicInteger> handlesPerServer) {
        List<io.modelcontextprotocol.modern.client.McpSyncClient> replicas = new ArrayList<>();
        for (DemoProxy proxy : List.of(first, second)) {
            replicas.add(io.modelcontextprotocol.modern.client.McpClient.sync(
                            HttpClientMcpTransport.builder(proxy.baseUrl() + "/mcp").build())
                    .clientInfo(io.modelcontextprotocol.modern.McpSchema.Implementation.builder("client-" + c, "1").build())
                    .build());
        }
        List<Double> millis = new ArrayList<>();
        for (int h = 0; h < HANDLES_PER_CLIENT; h++) {
            String handle = "c" + c + "-h" + h;
            String server = null;
            for (int call = 0; call < CALLS_PER_HANDLE; call++) {
                long start = System.nanoTime();
                io.modelcontextprotocol.modern.McpSchema.CallToolResult result = replicas.get((h + call) % 2)
                        .tool("count").arguments(Map.of("handle", handle)).call();
                millis.add((System.nanoTime() - start) / 1e6);
                String answer = ((io.modelcontextprotocol.modern.McpSchema.TextContent) result.content().get(0)).text();
                server = server == null ? answer.substring(0, 2) : server;
                assertThat(answer).as("handle %s, call %d", handle, call)
                        .isEqualTo(server + " handle=" + handle + " n=" + (call + 1));
            }
            synchronized (handlesPerServer) {
                handlesPerServer.computeIfAbsent(server, s -> new AtomicInteger()).incrementAndGet();
            }
        }
        return new Calls(millis);
    }

    private static double percentile(List<Double> values, double q) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
