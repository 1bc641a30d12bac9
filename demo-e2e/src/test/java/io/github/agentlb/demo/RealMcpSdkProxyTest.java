package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.core.session.LearnedSessions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.modern.client.transport.HttpClientMcpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The official MCP Java SDK's clients and servers, both protocol eras, through two demo proxies (the
 * replicas a user runs): a legacy client's session stays on the server that made it whichever replica
 * each of its requests goes through, and a 2026-07-28 client's calls of one handle reach one server
 * (whose count of that handle's calls then runs 1, 2, 3, ...). Real sockets on loopback.
 */
@Tag("e2e")
@Timeout(120)
class RealMcpSdkProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String SECRET = "the replicas' shared secret";

    private static DemoProxy proxy(List<String> named, String strategy, Supplier<AgentLoadBalancerSupport> balancer)
            throws Exception {
        return DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0).strategy(strategy).agentUrls(named).build(), balancer);
    }

    /** A legacy client whose requests go through {@code first} and {@code second} in turn. */
    static McpSyncClient legacyClient(DemoProxy first, DemoProxy second) {
        AtomicInteger requests = new AtomicInteger();
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(first.baseUrl())
                .endpoint("/mcp").httpRequestCustomizer((request, method, uri, body, context) -> {
                    if (requests.getAndIncrement() % 2 == 1) {
                        request.uri(URI.create(second.baseUrl() + uri.getRawPath()
                                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())));
                    }
                }).build();
        return McpClient.sync(transport).requestTimeout(TIMEOUT).build();
    }

    @Test
    void aLegacySdkClientsSessionStaysOnItsServerThroughEitherReplica() throws Exception {
        try (McpSdkServers servers = McpSdkServers.legacy(3)) {
            Supplier<AgentLoadBalancerSupport> rr = () -> {
                RoundRobinLB balancer = new RoundRobinLB();
                balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).build());
                return balancer;
            };
            try (DemoProxy one = proxy(servers.named(), "rr", rr); DemoProxy two = proxy(servers.named(), "rr", rr)) {
                Set<String> serversUsed = new HashSet<>();
                for (int c = 0; c < 6; c++) {
                    try (McpSyncClient client = legacyClient(one, two)) {
                        McpSchema.InitializeResult init = client.initialize();
                        assertThat(init.serverInfo().name()).matches("S[123]");
                        Set<String> answers = new HashSet<>();
                        for (int call = 0; call < 5; call++) {
                            McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest("whoami", Map.of()));
                            answers.add(((McpSchema.TextContent) result.content().get(0)).text());
                        }
                        assertThat(answers).as("client %d: one server, one session", c).hasSize(1);
                        String answer = answers.iterator().next();
                        assertThat(answer).as("client %d", c).startsWith(init.serverInfo().name() + " ");
                        serversUsed.add(init.serverInfo().name());
                    }
                }
                assertThat(serversUsed).as("sessions made on more than one server").hasSizeGreaterThan(1);
            }
        }
    }

    @Test
    void a2026SdkClientsCallsOfOneHandleReachOneServerThroughEitherReplica() throws Exception {
        try (McpSdkServers servers = McpSdkServers.modern(3)) {
            Supplier<AgentLoadBalancerSupport> ch = () -> {
                ConsistentHashLB balancer = new ConsistentHashLB();
                balancer.setKeys("mcp-param:handle");
                return balancer;
            };
            try (DemoProxy one = proxy(servers.named(), "ch", ch); DemoProxy two = proxy(servers.named(), "ch", ch)) {
                List<io.modelcontextprotocol.modern.client.McpSyncClient> clients = modernClients(one, two);
                Set<String> serversUsed = new HashSet<>();
                for (int h = 0; h < 12; h++) {
                    List<String> answers = new ArrayList<>();
                    for (int call = 0; call < 4; call++) {
                        io.modelcontextprotocol.modern.McpSchema.CallToolResult result = clients.get(call % 2)
                                .tool("count").arguments(Map.of("handle", "h" + h)).call();
                        answers.add(((io.modelcontextprotocol.modern.McpSchema.TextContent) result.content().get(0)).text());
                    }
                    String server = answers.get(0).substring(0, 2);
                    assertThat(answers).as("handle h%d", h).containsExactly(server + " handle=h" + h + " n=1",
                            server + " handle=h" + h + " n=2", server + " handle=h" + h + " n=3", server + " handle=h" + h + " n=4");
                    serversUsed.add(server);
                }
                assertThat(serversUsed).as("handles spread").hasSize(3);
            }
        }
    }

    /**
     * Official 2026-07-28 SDK clients (one per replica) against SDK servers that mint their handles
     * ({@code create_basket}), behind an {@code rr} and a {@code ch} replica sharing the secret with
     * {@code sessionMcpHandles=basket_id}: the client carries the sealed handle it was given, its SDK
     * mirrors it in {@code Mcp-Param-Basket}, and every {@code add_item} reaches the server that
     * minted the basket, whose count runs 1..4.
     */
    @Test
    void a2026SdkClientsServerMintedHandlesReachTheirServerThroughEitherReplica() throws Exception {
        Supplier<AgentLoadBalancerSupport> rr = () -> withHandles(new RoundRobinLB());
        Supplier<AgentLoadBalancerSupport> ch = () -> withHandles(new ConsistentHashLB());
        mintedHandlesThroughTwoReplicas("basket_id", "Basket", "rr", rr, "ch", ch);
    }

    /**
     * The same with the configuration docs/llm-agents.md gives for handles, a {@code mcp-param:handle}
     * key on two {@code ch} replicas and nothing else (no learned sessions, no secret): handles
     * minted in argument {@code handle} are sealed all the same.
     */
    @Test
    void aMcpParamKeyAloneKeepsTheSdkServersMintedHandlesHome() throws Exception {
        Supplier<AgentLoadBalancerSupport> ch = () -> {
            ConsistentHashLB balancer = new ConsistentHashLB();
            balancer.setKeys("mcp-param:handle");
            return balancer;
        };
        mintedHandlesThroughTwoReplicas("handle", "Handle", "ch", ch, "ch", ch);
    }

    private static void mintedHandlesThroughTwoReplicas(String argument, String header, String firstStrategy,
            Supplier<AgentLoadBalancerSupport> first, String secondStrategy, Supplier<AgentLoadBalancerSupport> second)
            throws Exception {
        try (McpSdkServers servers = McpSdkServers.baskets(3, argument, header)) {
            try (DemoProxy one = proxy(servers.named(), firstStrategy, first);
                    DemoProxy two = proxy(servers.named(), secondStrategy, second)) {
                List<io.modelcontextprotocol.modern.client.McpSyncClient> clients = modernClients(one, two);
                Set<String> serversUsed = new HashSet<>();
                for (int b = 0; b < 12; b++) {
                    io.modelcontextprotocol.modern.McpSchema.CallToolResult made = clients.get(b % 2)
                            .tool("create_basket").arguments(Map.of()).call();
                    String basket = String.valueOf(((Map<?, ?>) made.structuredContent()).get(argument));
                    assertThat(basket).as("sealed for the client").startsWith("a1.");
                    assertThat(((io.modelcontextprotocol.modern.McpSchema.TextContent) made.content().get(0)).text())
                            .isEqualTo("Created basket " + basket);
                    List<String> answers = new ArrayList<>();
                    for (int call = 0; call < 4; call++) {
                        io.modelcontextprotocol.modern.McpSchema.CallToolResult result = clients.get((b + call + 1) % 2)
                                .tool("add_item").arguments(Map.of(argument, basket)).call();
                        answers.add(((io.modelcontextprotocol.modern.McpSchema.TextContent) result.content().get(0)).text());
                    }
                    String server = answers.get(0).substring(0, 2);
                    assertThat(answers).as("basket %d", b).allSatisfy(a -> assertThat(a).startsWith(server + " " + server + "-bsk-"))
                            .extracting(a -> a.substring(a.indexOf("items=")))
                            .containsExactly("items=1", "items=2", "items=3", "items=4");
                    serversUsed.add(server);
                }
                assertThat(serversUsed).as("baskets made on every server").hasSize(3);
            }
        }
    }

    private static AgentLoadBalancerSupport withHandles(AgentLoadBalancerSupport balancer) {
        balancer.setSessionSecret("the replicas' shared secret");
        balancer.setSessionMcpHandles("basket_id");
        return balancer;
    }

    /** A 2026-07-28 SDK client per proxy. */
    private static List<io.modelcontextprotocol.modern.client.McpSyncClient> modernClients(DemoProxy... proxies) {
        List<io.modelcontextprotocol.modern.client.McpSyncClient> clients = new ArrayList<>();
        for (DemoProxy proxy : proxies) {
            clients.add(io.modelcontextprotocol.modern.client.McpClient.sync(
                            HttpClientMcpTransport.builder(proxy.baseUrl() + "/mcp").build())
                    .clientInfo(io.modelcontextprotocol.modern.McpSchema.Implementation.builder("test", "1").build())
                    .build());
        }
        return clients;
    }
}
