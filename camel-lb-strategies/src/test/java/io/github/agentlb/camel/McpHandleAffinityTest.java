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
        JsonNode lastRequest;
        Map<String, Object> lastHeaders;

        BasketServer(String name) {
            super(name);
        }

        /** The basket argument and the Mcp-Param-Basket header the call had. */
        @Override
        String received(Exchange exchange, JsonNode request) {
            lastRequest = request;
            lastHeaders = new HashMap<>(exchange.getIn().getHeaders());
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

    /** The handle of a basket made through {@code balancer}, as its client sees it. */
    private static String newBasket(AgentLoadBalancerSupport balancer) {
        return result(call(balancer, "2026-07-28", "create_basket", null)).path("structuredContent").path("basket_id").asText();
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

    /**
     * A tools/call too long for the balancer to read whole (over 1 MiB) that carries a sealed handle in
     * its first 1 MiB cannot be routed by it: a 413, reaching no server, as an A2A task call too long
     * (before: the strategy's pick, a server that knows no such handle). One whose handle is not
     * sealed, or comes after the first 1 MiB, goes to the strategy's pick as before.
     */
    @Test
    void aHandleCallTooLongToReadIsA413() {
        BasketServer a1 = new BasketServer("A1");
        BasketServer a2 = new BasketServer("A2");
        RoundRobinLB balancer = replica(a1, a2);
        String handle = newBasket(balancer);
        String pad = "x".repeat(A2aTaskAffinity.MAX_BODY_BYTES);
        String sealedFirst = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"add_item\","
                + "\"arguments\":{\"basket_id\":\"" + handle + "\",\"note\":\"" + pad + "\"}}}";
        Exchange rejected = post(balancer, sealedFirst);
        assertThat(rejected.getException()).isInstanceOf(SessionRejectedException.class);
        assertThat(((SessionRejectedException) rejected.getException()).status()).isEqualTo(413);
        assertThat(read(((SessionRejectedException) rejected.getException()).toJson()).path("error").asText())
                .isEqualTo("tool call too long");
        String chosen = sealedFirst.replace(handle, "my-own-basket");
        String sealedLate = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"add_item\","
                + "\"arguments\":{\"note\":\"" + pad + "\",\"basket_id\":\"" + handle + "\"}}}";
        for (String passes : List.of(chosen, sealedLate)) {
            assertThat(post(balancer, passes).getException()).isNull();
        }
        // Held in part: a short first part of a body whose Content-Length is longer (a body still arriving).
        String firstPart = sealedFirst.substring(0, sealedFirst.indexOf("\"note\""));
        Exchange heldInPart = new DefaultExchange(CAMEL.get());
        heldInPart.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        heldInPart.getIn().setHeader("MCP-Protocol-Version", "2026-07-28");
        heldInPart.getIn().setHeader(Exchange.CONTENT_LENGTH, sealedFirst.length());
        heldInPart.getIn().setBody(firstPart.getBytes(StandardCharsets.UTF_8));
        balancer.process(heldInPart, sync -> { });
        assertThat(((SessionRejectedException) heldInPart.getException()).status()).isEqualTo(413);
        assertThat(a1.received.size() + a2.received.size()).isEqualTo(1 + 2);
        balancer.stop();
    }

    private static Exchange post(AgentLoadBalancerSupport balancer, String body) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setHeader("MCP-Protocol-Version", "2026-07-28");
        exchange.getIn().setHeader("Mcp-Method", "tools/call");
        exchange.getIn().setHeader("Mcp-Name", "add_item");
        exchange.getIn().setBody(body.getBytes(StandardCharsets.UTF_8));
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    @Test
    void aForgedHandleGetsA400AndAHandleWhoseServerLeftA404BothReachingNoServer() {
        BasketServer a1 = new BasketServer("A1");
        BasketServer a2 = new BasketServer("A2");
        RoundRobinLB balancer = replica(a1, a2);
        String handle = newBasket(balancer);
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

    /** A 2026-07-28 tools/call with {@code body} as it is and the mirrored headers given (name, value, ...). */
    private static Exchange callWith(AgentLoadBalancerSupport balancer, String body, String... headers) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader("MCP-Protocol-Version", "2026-07-28");
        exchange.getIn().setHeader("Mcp-Method", "tools/call");
        for (int i = 0; i < headers.length; i += 2) {
            exchange.getIn().setHeader(headers[i], headers[i + 1]);
        }
        exchange.getIn().setBody(body);
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    /**
     * A call carrying two handles of one server (a tool that takes a basket and a cart) has both
     * restored, in body and headers; the handles of two servers in one call are a 400 naming why.
     * Found: the second handle reached the server still sealed.
     */
    @Test
    void everyHandleACallCarriesIsRestoredAndHandlesOfTwoServersAreA400() {
        BasketServer a1 = new BasketServer("A1");
        RoundRobinLB balancer = JsonRpcAgent.replica(CAMEL.get(),
                LearnedSessions.custom().secret(SECRET).mcpHandles("basket_id,cart_id").build(), a1, new BasketServer("A2"));
        SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
        String basket = ids.encode("A1", "A1-bsk-1");
        String cart = ids.encode("A1", "cart 7 \u00e9");
        Exchange both = callWith(balancer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"move\","
                + "\"arguments\":{\"cart_id\":\"" + cart + "\",\"basket_id\":\"" + basket + "\"}}}",
                "Mcp-Param-Basket", basket, "Mcp-Param-Cart", "=?base64?" + java.util.Base64.getEncoder()
                        .encodeToString(cart.getBytes(StandardCharsets.UTF_8)) + "?=");
        assertThat(both.getException()).isNull();
        assertThat(a1.received).containsExactly("A1-bsk-1 A1-bsk-1");
        assertThat(a1.lastRequest.path("params").path("arguments").path("cart_id").asText()).isEqualTo("cart 7 \u00e9");
        assertThat(a1.lastHeaders).containsEntry("Mcp-Param-Cart", "=?base64?Y2FydCA3IMOp?=");

        Exchange two = callWith(balancer, "{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"cart_id\":\""
                + ids.encode("A2", "c") + "\",\"basket_id\":\"" + basket + "\"}}}");
        SessionRejectedException rejected = (SessionRejectedException) two.getException();
        assertThat(rejected.status()).isEqualTo(400);
        assertThat(rejected.reason()).isEqualTo("This tools/call carries handles of two servers (A2, A1): no server holds both");
        assertThat(a1.received).hasSize(1);
        balancer.stop();
    }

    /**
     * A handle too long to seal and read back (sealed over 4,096 characters) goes to the client as
     * the server minted it, with a WARN, and an empty one is sealed as any other. Found: a handle of
     * 3,508 characters was sealed into 4,702, which the balancer then refused as damaged.
     */
    @Test
    void aHandleTooLongToSealGoesAsItIsWithAWarningAndAnEmptyOneIsSealed() {
        SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
        McpHandleAffinity affinity = new McpHandleAffinity(ids, java.util.Set.of("basket_id"));
        Exchange call = new DefaultExchange(CAMEL.get());
        call.setProperty(McpHandleAffinity.TOOL_CALL_PROPERTY, java.util.Set.of());
        String longest = "h".repeat(3054); // sealed: 4,096 characters, the most read back
        String tooLong = longest + "h";
        assertThat(ids.encode("A1", longest)).hasSize(4096);
        try (CapturedLog log = new CapturedLog(McpHandleAffinity.class.getName())) {
            for (String handle : List.of(longest, tooLong, "")) {
                String answer = "{\"result\":{\"structuredContent\":{\"basket_id\":\"" + handle + "\"}}}";
                String sealed = read(new String(affinity.sealed(call, "A1", answer.getBytes(StandardCharsets.UTF_8)),
                        StandardCharsets.UTF_8)).path("result").path("structuredContent").path("basket_id").asText();
                assertThat(sealed).as("handle of %d characters", handle.length())
                        .isEqualTo(handle.equals(tooLong) ? tooLong : ids.encode("A1", handle));
                assertThat(ids.decode(sealed)).isEqualTo(handle.equals(tooLong) ? null : new SessionIds.Sealed("A1", handle));
            }
            assertThat(log.lines()).containsExactly("WARN Server A1 minted a handle of 3055 characters: sealed it would have"
                    + " 4098, over the 4096 a balancer reads back, so it goes to the client as it is and its calls to the"
                    + " strategy's pick; keep handles under about 3000 characters");
        }
    }

    @Test
    void theHandlesSettingIsValidatedAndWithoutASecretTheStartWarnsOfForgedHandles() {
        for (String bad : List.of("", " ", "basket_id,", "basket_id,basket_id", "bask\u00e9t", "a b")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RoundRobinLB().setSessionMcpHandles(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sessionMcpHandles")
                    .hasMessageContaining("'" + bad + "'");
        }
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setSessionMcpHandles(" basket_id , cart_id");
        assertThat(balancer.getSessionMcpHandles()).isEqualTo("basket_id,cart_id");
        try (CapturedLog log = new CapturedLog(AgentLoadBalancerSupport.class.getName())) {
            balancer.setCamelContext(CAMEL.get());
            balancer.start();
            assertThat(log.lines()).containsExactly("WARN Learned sessions (Mcp-Session-Id, MCP handles basket_id,cart_id)"
                    + " without a sessionSecret: damaged session ids and handles are rejected, forged ones are not; set the"
                    + " same secret on every replica");
        }
        balancer.stop();
    }

    /**
     * A {@code mcp-param:} key alone, as docs/llm-agents.md configures handles (no learned sessions,
     * no secret): handles servers mint in the argument it names are sealed all the same, so two
     * {@code ch} replicas send every call of such a handle to its server; a handle the client chose
     * is hashed and given back as it is; the legacy session header is not touched. Found: 30 of 120
     * calls of minted handles reached their server (a hash cannot know who minted them).
     */
    @Test
    void aMcpParamKeyAloneKeepsTheHandlesServersMintHomeOnEveryReplica() {
        List<BasketServer> servers = List.of(new BasketServer("A1"), new BasketServer("A2"), new BasketServer("A3"));
        List<ConsistentHashLB> replicas = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            ConsistentHashLB replica = new ConsistentHashLB();
            replica.setCamelContext(CAMEL.get());
            replica.setKeys("mcp-param:Basket_Id"); // names argument basket_id: names ignore case, as headers do
            (r == 0 ? servers : List.of(servers.get(2), servers.get(1), servers.get(0))).forEach(s -> replica.addAgent(s.name, s, 1.0));
            replica.start();
            replicas.add(replica);
        }
        assertThat(replicas.get(0).getLearnedSessions().isEnabled()).isFalse();
        // Sealed with the public key, as learned sessions without a secret: said once at start.
        ConsistentHashLB third = new ConsistentHashLB();
        third.setCamelContext(CAMEL.get());
        third.setKeys("user_id, mcp-param:Basket_Id,mcp-param:cart");
        try (CapturedLog log = new CapturedLog(AgentLoadBalancerSupport.class.getName())) {
            third.start();
            assertThat(log.lines()).containsExactly("WARN MCP handles (Basket_Id,cart, of the mcp-param: keys) without a"
                    + " sessionSecret: damaged handles are rejected, forged ones are not; set the same secret on every replica");
        }
        third.stop();
        List<String> handles = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String handle = result(call(replicas.get(i % 2), "2026-07-28", "create_basket", null)).path("structuredContent")
                    .path("basket_id").asText();
            assertThat(new SessionIds(new byte[0]).decode(handle)).as("sealed with the public key").isNotNull();
            handles.add(handle);
        }
        for (int round = 1; round <= 4; round++) {
            for (int k = 0; k < handles.size(); k++) {
                JsonNode added = result(call(replicas.get((k + round) % 2), "2026-07-28", "add_item", handles.get(k)));
                assertThat(added.path("structuredContent").path("items").asInt()).as(added.toString()).isEqualTo(round);
            }
        }
        servers.forEach(s -> assertThat(s.received).hasSize(s.baskets.size() * 5));
        // A handle the client chose: hashed to one server through either replica, given back as it is.
        for (BasketServer server : servers) {
            server.baskets.put("chosen-1", 0);
        }
        for (int call = 0; call < 4; call++) {
            JsonNode added = result(callWith(replicas.get(call % 2), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                    + "\"params\":{\"name\":\"add_item\",\"arguments\":{\"basket_id\":\"chosen-1\"}}}", "Mcp-Param-basket_id", "chosen-1"));
            assertThat(added.path("structuredContent").path("basket_id").asText()).isEqualTo("chosen-1");
        }
        assertThat(servers.stream().filter(s -> s.baskets.get("chosen-1") > 0).count()).isEqualTo(1);
        Exchange legacy = new DefaultExchange(CAMEL.get());
        legacy.getIn().setHeader("Mcp-Session-Id", "s-1");
        legacy.getIn().setBody("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
        replicas.get(0).process(legacy, sync -> { });
        assertThat(legacy.getException()).isNull();
        assertThat(servers.stream().map(s -> s.lastHeaders.get("Mcp-Session-Id"))).contains("s-1");
        replicas.forEach(ConsistentHashLB::stop);
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
