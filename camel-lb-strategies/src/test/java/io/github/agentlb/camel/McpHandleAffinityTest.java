package io.github.agentlb.camel;

import static io.github.agentlb.camel.JsonRpcAgent.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.core.session.SessionIds;
import io.github.agentlb.testing.McpBasketAnswers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Server-minted MCP handles (2026-07-28 stateful tools, the specification's basket example): a
 * handle a server returns from {@code create_basket} is sealed with the server's name, and every
 * later {@code add_item} that carries it, through any replica sharing the secret, reaches that
 * server with its own handle in the body and in the mirrored {@code Mcp-Param-Basket} header; a
 * forged one reaches no server; requests of an older protocol revision are not read.
 */
class McpHandleAffinityTest {

    private static final String SECRET = "replicas share this secret";
    private static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** A stateful MCP server ({@link McpBasketAnswers}): mints basket {@code <name>-bsk-<n>}, knows only its own baskets. */
    private static final class BasketServer extends JsonRpcAgent {
        final Map<String, Integer> baskets = new HashMap<>();

        BasketServer(String name) {
            super(name);
        }

        /** The basket argument and the Mcp-Param-Basket header the call had. */
        @Override
        String received(Exchange exchange, JsonNode request) {
            return McpBasketAnswers.basket(request) + " " + exchange.getIn().getHeader("Mcp-Param-Basket", String.class);
        }

        @Override
        JsonNode answer(JsonNode request) {
            return McpBasketAnswers.answer(name, baskets, request);
        }
    }

    private static RoundRobinLB replica(BasketServer... servers) {
        return JsonRpcAgent.replica(CAMEL.get(), LearnedSessions.custom().secret(SECRET).mcpHandles("basket_id").build(),
                servers);
    }

    /** A 2026-07-28 tools/call of {@code tool}, carrying {@code basket} (null for none) in its body and mirrored header. */
    private static Exchange call(AgentLoadBalancerSupport balancer, String version, String tool, String basket) {
        ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 7).put("method", "tools/call");
        ObjectNode arguments = request.putObject("params").put("name", tool).putObject("arguments");
        Exchange exchange = new DefaultExchange(CAMEL.get());
        if (basket != null) {
            arguments.put("basket_id", basket);
            exchange.getIn().setHeader("Mcp-Param-Basket", basket);
        }
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setHeader("MCP-Protocol-Version", version);
        exchange.getIn().setHeader("Mcp-Method", "tools/call");
        exchange.getIn().setHeader("Mcp-Name", tool);
        exchange.getIn().setBody(request.toString());
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static JsonNode result(Exchange exchange) {
        assertThat(exchange.getException()).isNull();
        return read(exchange.getMessage().getBody(String.class)).path("result");
    }

    @Test
    void everyCallOfAServerMintedHandleThroughEitherReplicaReachesTheServerThatMadeIt() {
        BasketServer a1 = new BasketServer("A1");
        BasketServer a2 = new BasketServer("A2");
        BasketServer a3 = new BasketServer("A3");
        List<BasketServer> servers = List.of(a1, a2, a3);
        RoundRobinLB first = replica(a1, a2, a3);
        RoundRobinLB second = replica(a3, a1, a2); // another order: nothing is shared but the secret
        List<String> handles = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            JsonNode made = result(call(i % 2 == 0 ? first : second, "2026-07-28", "create_basket", null));
            String handle = made.path("structuredContent").path("basket_id").asText();
            assertThat(handle).startsWith("a1.").doesNotContain("-bsk-");
            assertThat(made.path("content").get(0).path("text").asText()).isEqualTo("Created basket " + handle);
            handles.add(handle);
        }
        assertThat(servers.stream().mapToInt(s -> s.baskets.size()).toArray()).containsExactly(2, 2, 2);
        for (int round = 1; round <= 4; round++) {
            for (int k = 0; k < handles.size(); k++) {
                JsonNode added = result(call((k + round) % 2 == 0 ? first : second, "2026-07-28", "add_item", handles.get(k)));
                assertThat(added.has("isError")).as(added.toString()).isFalse();
                assertThat(added.path("structuredContent").path("basket_id").asText()).isEqualTo(handles.get(k));
                assertThat(added.path("structuredContent").path("items").asInt()).isEqualTo(round);
            }
        }
        // 6 handles x 4 calls, each on the server that made it, which saw its own handle in body and header.
        for (BasketServer server : servers) {
            assertThat(server.received).hasSize(2 + 2 * 4);
            assertThat(server.received.subList(2, server.received.size()))
                    .allSatisfy(r -> assertThat(r.split(" ")).containsExactly(r.split(" ")[0], r.split(" ")[0])
                            .satisfies(parts -> assertThat(server.baskets).containsKey(parts[0])));
        }
        first.stop();
        second.stop();
    }

    @Test
    void aForgedHandleGetsA400AndAHandleWhoseServerLeftA404BothReachingNoServer() {
        BasketServer a1 = new BasketServer("A1");
        BasketServer a2 = new BasketServer("A2");
        RoundRobinLB balancer = replica(a1, a2);
        String handle = result(call(balancer, "2026-07-28", "create_basket", null)).path("structuredContent")
                .path("basket_id").asText();
        String otherSecret = new SessionIds("another secret of 16+ bytes".getBytes(StandardCharsets.UTF_8)).encode("A1", "A1-bsk-1");
        for (String bad : List.of(handle.substring(0, handle.length() - 2), otherSecret, "a1.")) {
            Exchange exchange = call(balancer, "2026-07-28", "add_item", bad);
            SessionRejectedException rejected = (SessionRejectedException) exchange.getException();
            assertThat(rejected.status()).isEqualTo(400);
            assertThat(read(rejected.toJson()).path("error").asText()).isEqualTo("bad handle");
            assertThat(read(rejected.toJson()).path("detail").asText())
                    .contains("basket_id", "damaged, forged or made with another secret");
        }
        assertThat(a1.received.size() + a2.received.size()).isEqualTo(1);
        balancer.removeAgent("A1");
        Exchange gone = call(balancer, "2026-07-28", "add_item", handle);
        SessionRejectedException rejected = (SessionRejectedException) gone.getException();
        assertThat(rejected.status()).isEqualTo(404);
        assertThat(read(rejected.toJson()).path("error").asText()).isEqualTo("handle not found");
        assertThat(rejected.reason()).contains("has left (A1)");
        assertThat(a2.received).isEmpty();
        balancer.stop();
    }

    @Test
    void aClientChosenHandleAndAnOlderRevisionsCallsAreNotReadAndTheirAnswersNotSealed() {
        BasketServer a1 = new BasketServer("A1");
        RoundRobinLB balancer = replica(a1);
        a1.baskets.put("my-own-basket", 0);
        JsonNode added = result(call(balancer, "2026-07-28", "add_item", "my-own-basket"));
        assertThat(added.path("structuredContent").path("basket_id").asText()).as("given back as the client chose it")
                .isEqualTo("my-own-basket");
        assertThat(a1.received).containsExactly("my-own-basket my-own-basket");
        // 2025-11-25: handles are not this revision's; the body goes as it came, the answer unsealed.
        JsonNode made = result(call(balancer, "2025-11-25", "create_basket", null));
        assertThat(made.path("structuredContent").path("basket_id").asText()).isEqualTo("A1-bsk-2");
        String sealed = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8)).encode("A1", "A1-bsk-2");
        Exchange old = call(balancer, "2025-11-25", "add_item", sealed);
        assertThat(old.getException()).isNull();
        assertThat(a1.received.get(2)).isEqualTo(sealed + " " + sealed);
        balancer.stop();
    }

    /** A streaming child: what it learns from its attempt's hooks. */
    private static final class HookedChild extends AsyncProcessorSupport {
        final List<String> seen = new ArrayList<>();

        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            AttemptHooks hooks = exchange.getProperty(AttemptHooks.PROPERTY, AttemptHooks.class);
            byte[] body = hooks.requestBody();
            String agentAnswer = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"structuredContent\":{\"basket_id\":\"b-9\"}}}";
            seen.add((body == null ? null : read(new String(body, StandardCharsets.UTF_8)).path("params").path("arguments")
                    .path("basket_id").asText()) + " " + hooks.requestHeaders().contains("Mcp-Param-Basket")
                    + " " + exchange.getIn().getHeader("Mcp-Param-Basket") + " " + hooks.rewritesJsonAnswer()
                    + " " + new String(hooks.clientAnswer(agentAnswer.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
            callback.done(true);
            return true;
        }
    }

    @Test
    void aStreamingChildsHooksGiveTheCallsBodyAndHeaderAndSealItsAnswer() {
        HookedChild child = new HookedChild();
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).mcpHandles("basket_id").build());
        balancer.addAgent("A1", child, 1.0);
        balancer.start();
        String sealed = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8)).encode("A1", "b-9");

        call(balancer, "2026-07-28", "create_basket", null);
        call(balancer, "2026-07-28", "add_item", sealed);

        String sealedAnswer = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"structuredContent\":{\"basket_id\":\"" + sealed + "\"}}}";
        assertThat(child.seen).containsExactly("null false null true " + sealedAnswer, "b-9 true b-9 true " + sealedAnswer);
        balancer.stop();
    }
}
