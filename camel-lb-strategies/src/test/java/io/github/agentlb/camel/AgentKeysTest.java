package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.key.PromptPrefix;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.StreamCache;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.converter.stream.InputStreamCache;
import org.apache.camel.converter.stream.ReaderCache;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.builder.ExpressionBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

/**
 * Each key of {@link AgentKeys} with golden values, the body left sendable, and the standard
 * chain on a ring: a {@code user_id} reaches the agent the default key header gives it.
 */
class AgentKeysTest extends CamelTestSupport {

    /** The parts a key list may hold, as the error messages list them. */
    private static final String PARTS =
            "session, prompt, header:<name>, mcp-method, mcp-name, mcp-param:<Name> or a header name";


    static final String CHAT = """
            {"model":"llama-3.1-8b","temperature":0.2,
             "messages":[{"role":"system","content":"You are a helpful assistant."},
                         {"role":"user","content":"What is consistent hashing?"}]}""";
    /** {@code PromptPrefix.ofDefaults().keyOf(CHAT)}, pinned by PromptPrefixTest. */
    static final String CHAT_KEY = "prompt:94a575bceb67b0a4";

    private final ConsistentHashLB standard = Balancers.with(new ConsistentHashLB(), lb -> lb.setKey(AgentKeys.standard(), "standard"));
    private final ConsistentHashLB byUserId = new ConsistentHashLB();

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        // Each agent answers with its name and the body it received, read as a String.
        RouteBuilder echo = AgentRoutesFixture.agents(AgentRoutesFixture.AGENTS,
                (agent, exchange) -> exchange.getMessage().setBody(agent + ":" + exchange.getIn().getBody(String.class)));
        return new RoutesBuilder[] {echo,
            AgentRoutesFixture.balanced("direct:standard", standard, AgentRoutesFixture.AGENTS),
            AgentRoutesFixture.balanced("direct:user", byUserId, AgentRoutesFixture.AGENTS)};
    }

    private Exchange exchange(Object body, Map<String, Object> headers) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setBody(body);
        exchange.getMessage().setHeaders(new HashMap<>(headers));
        return exchange;
    }

    private static String eval(Expression key, Exchange exchange) {
        return key.evaluate(exchange, String.class);
    }

    /**
     * A header the client sent twice (or as a header and a query parameter, which Camel's HTTP
     * consumers merge) reaches the exchange as a list: its key is its first value, as nginx's
     * {@code $http_} variables read it, never the list's text ({@code "7, 7"} routed elsewhere).
     */
    /**
     * A header part that is no header name (an RFC 9110 token) is refused naming it, as
     * {@code keyHeader} and {@code sessionHeader} are (a user's trial: {@code header:a\\b} was taken
     * while {@code sessionHeader} {@code X-a\\b} was refused); it could match no header.
     */
    /**
     * A bare part is a header's name, so a misspelt keyword ({@code sesion}, {@code promt}) is taken as
     * one and keys nothing: the start warns, naming the keyword one letter away. A header so named is
     * written {@code header:<name>}, which does not warn.
     */
    @Test
    void aBarePartOneLetterFromAKeywordWarns() {
        try (CapturedLog log = new CapturedLog(AgentKeys.class.getName())) {
            AgentKeys.parse("sesion,promt,user_id,header:prompts,sessoin,mcp-mehtod,x-session");
            assertThat(log.lines()).containsExactly(
                    "WARN keys part 'sesion' is read as a header's name, one letter from 'session' (a header so named: header:sesion)",
                    "WARN keys part 'promt' is read as a header's name, one letter from 'prompt' (a header so named: header:promt)",
                    "WARN keys part 'sessoin' is read as a header's name, one letter from 'session' (a header so named: header:sessoin)",
                    "WARN keys part 'mcp-mehtod' is read as a header's name, one letter from 'mcp-method' (a header so named:"
                            + " header:mcp-mehtod)");
        }
    }

    @Test
    void oneLetterApartIsOneAddedDroppedChangedOrTwoNeighboursSwapped() {
        for (String near : List.of("sesion", "sessions", "sessiom", "sesison", "esssion", "ession", "session1")) {
            assertThat(AgentKeys.oneLetterApart(near, "session")).as(near).isTrue();
        }
        for (String far : List.of("session", "sesio", "sessionss", "xsessiony", "snoisses", "seisson", "", "prompt")) {
            assertThat(AgentKeys.oneLetterApart(far, "session")).as(far).isFalse();
        }
    }

    @Test
    void aHeaderPartThatIsNoHeaderNameIsRefused() {
        for (String part : List.of("header:a\\b", "a\\b", "header:x/y", "user{id}", "header:\"quoted\"")) {
            assertThatThrownBy(() -> AgentKeys.parse("session," + part)).as(part).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("keys has a header part that is no header name (RFC 9110 token) '" + part
                            + "', was 'session," + part + "'");
        }
        AgentKeys.parse("header:X-Tenant.Id,user_id,Mcp-Session-Id");
    }

    @Test
    void aHeaderGivenTwiceKeysByItsFirstValue() {
        assertThat(eval(AgentKeys.header("user_id"), exchange(null, Map.of("user_id", List.of("7", "7"))))).isEqualTo("7");
        assertThat(eval(AgentKeys.header("user_id"), exchange(null, Map.of("user_id", new String[] {"7", "9"})))).isEqualTo("7");
        assertThat(eval(AgentKeys.header("user_id"), exchange(null, Map.of("user_id", List.of())))).isNull();
        assertThat(eval(AgentKeys.sessionHeader(), exchange(null, Map.of("Mcp-Session-Id", List.of("abc-1", "abc-1")))))
                .isEqualTo("session:abc-1");
        assertThat(eval(AgentKeys.firstOf(AgentKeys.header("a"), AgentKeys.header("user_id")),
                exchange(null, Map.of("user_id", List.of(" ", "8"))))).as("the first value, blank: no key from it").isNull();
    }

    @Test
    void sessionHeaderTakesTheFirstPresentNonBlankName() {
        Expression session = AgentKeys.sessionHeader();
        assertThat(eval(session, exchange(null, Map.of("Mcp-Session-Id", "abc-1")))).isEqualTo("session:abc-1");
        assertThat(eval(session, exchange(null, Map.of("mcp-session-id", " abc-1 ")))).isEqualTo("session:abc-1");
        assertThat(eval(session, exchange(null, Map.of("Mcp-Session-Id", "  ", "X-Session-Id", "s-9"))))
                .isEqualTo("session:s-9");
        assertThat(eval(session, exchange(null, Map.of("Mcp-Session-Id", "m", "X-Session-Id", "s")))).isEqualTo("session:m");
        assertThat(eval(session, exchange(null, Map.of("user_id", "42")))).isNull();
        assertThat(eval(AgentKeys.sessionHeader("Tenant-Session"), exchange(null, Map.of("Tenant-Session", "t"))))
                .isEqualTo("session:t");
        assertThatThrownBy(() -> AgentKeys.sessionHeader("ok", " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sessionHeader");
    }

    @Test
    void promptPrefixReadsEveryBodyShapeToTheSameGoldenKey() {
        Expression prompt = AgentKeys.promptPrefix(PromptPrefix.ofDefaults());
        byte[] bytes = CHAT.getBytes(StandardCharsets.UTF_8);
        assertThat(eval(prompt, exchange(bytes, Map.of()))).isEqualTo(CHAT_KEY);
        assertThat(eval(prompt, exchange(CHAT, Map.of()))).isEqualTo(CHAT_KEY);
        ByteBuffer heap = ByteBuffer.wrap(("xx" + CHAT).getBytes(StandardCharsets.UTF_8));
        heap.position(2);
        assertThat(eval(prompt, exchange(heap, Map.of()))).isEqualTo(CHAT_KEY);
        assertThat(heap.position()).isEqualTo(2);
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        assertThat(eval(prompt, exchange(direct, Map.of()))).isEqualTo(CHAT_KEY);
        assertThat(direct.remaining()).isEqualTo(bytes.length);
        ByteBuf netty = Unpooled.directBuffer().writeBytes(bytes);
        assertThat(eval(prompt, exchange(netty, Map.of()))).isEqualTo(CHAT_KEY);
        assertThat(netty.readableBytes()).isEqualTo(bytes.length);
        netty.release();
    }

    @Test
    void aStreamBodyIsStillReadableAfterKeying() throws Exception {
        Expression prompt = AgentKeys.promptPrefix(PromptPrefix.ofDefaults());
        byte[] bytes = CHAT.getBytes(StandardCharsets.UTF_8);

        Exchange cached = exchange(new InputStreamCache(bytes), Map.of());
        assertThat(eval(prompt, cached)).isEqualTo(CHAT_KEY);
        assertThat(eval(prompt, cached)).isEqualTo(CHAT_KEY);
        assertThat(cached.getMessage().getBody(String.class)).isEqualTo(CHAT);

        Exchange stream = exchange(new ByteArrayInputStream(bytes), Map.of());
        assertThat(eval(prompt, stream)).isEqualTo(CHAT_KEY);
        assertThat(stream.getMessage().getBody()).isInstanceOf(StreamCache.class);
        assertThat(stream.getMessage().getBody(String.class)).isEqualTo(CHAT);
    }

    @Test
    void aStreamBodyKeyedOnTheBalancerReachesTheAgentWhole() {
        byte[] bytes = CHAT.getBytes(StandardCharsets.UTF_8);
        String viaCache = template.requestBodyAndHeaders("direct:standard", new InputStreamCache(bytes), Map.of(), String.class);
        String viaStream = template.requestBodyAndHeaders("direct:standard", new ByteArrayInputStream(bytes), Map.of(),
                String.class);
        String viaString = template.requestBodyAndHeaders("direct:standard", CHAT, Map.of(), String.class);
        assertThat(viaCache).isEqualTo(viaString).isEqualTo(viaStream).endsWith(":" + CHAT);
        // Golden: the chat's key reaches this agent.
        assertThat(viaString).startsWith("A2:");
    }

    @Test
    void aMalformedBodyHasNoPromptKey() {
        Expression prompt = AgentKeys.promptPrefix(PromptPrefix.ofDefaults());
        assertThat(eval(prompt, exchange("{\"messages\":[{\"role\":\"user\",\"content\":\"hi", Map.of()))).isNull();
        assertThat(eval(prompt, exchange("ping", Map.of()))).isNull();
        assertThat(eval(prompt, exchange(null, Map.of()))).isNull();
        assertThat(eval(prompt, exchange(42, Map.of()))).isNull();
        InputStream failing = new InputStream() {
            @Override
            public int read() throws java.io.IOException {
                throw new java.io.IOException("reset by peer");
            }
        };
        assertThat(eval(prompt, exchange(failing, Map.of()))).isNull();
    }

    @Test
    void theStandardChainIsSessionThenPromptThenUserId() {
        Expression standardKey = AgentKeys.standard();
        Map<String, Object> all = Map.of("Mcp-Session-Id", "abc-1", "user_id", "42");
        assertThat(eval(standardKey, exchange(CHAT, all))).isEqualTo("session:abc-1");
        assertThat(eval(standardKey, exchange(CHAT, Map.of("user_id", "42")))).isEqualTo(CHAT_KEY);
        assertThat(eval(standardKey, exchange("ping", Map.of("user_id", "42")))).isEqualTo("42");
        assertThat(eval(standardKey, exchange("ping", Map.of("user_id", " ")))).isNull();
        assertThat(eval(standardKey, exchange("ping", Map.of()))).isNull();
    }

    @Test
    void aUserIdReachesTheAgentTheDefaultKeyHeaderGivesIt() {
        // Golden, as ConsistentHashLBTest: users 1 and 42 on A1, 200 on A3, -7 on A2.
        for (String user : new String[] {"1", "42", "200", "-7"}) {
            String viaStandard = template.requestBodyAndHeader("direct:standard", "ping", "user_id", user, String.class);
            String viaHeader = template.requestBodyAndHeader("direct:user", "ping", "user_id", user, String.class);
            assertThat(viaStandard).as(user).isEqualTo(viaHeader);
        }
        assertThat(template.requestBodyAndHeader("direct:standard", "ping", "user_id", "42", String.class)).isEqualTo("A1:ping");
        assertThat(template.requestBodyAndHeader("direct:standard", "ping", "user_id", "200", String.class))
                .isEqualTo("A3:ping");
        // A session id that equals a user id is another key: kinds never collide.
        assertThat(template.requestBodyAndHeader("direct:standard", "ping", "Mcp-Session-Id", "42", String.class))
                .isEqualTo("A2:ping");
    }

    @Test
    void keysParseFromText() {
        Exchange exchange = exchange(CHAT, Map.of("X-Session-Id", "s", "tenant", "t", "user_id", "u"));
        assertThat(eval(AgentKeys.parse("session,prompt,user_id"), exchange)).isEqualTo("session:s");
        assertThat(eval(AgentKeys.parse(" prompt , session "), exchange)).isEqualTo(CHAT_KEY);
        assertThat(eval(AgentKeys.parse("header:tenant,user_id"), exchange)).isEqualTo("t");
        assertThat(eval(AgentKeys.parse("missing,user_id"), exchange)).isEqualTo("u");
        assertThat(eval(AgentKeys.parse("tenant"), exchange)).isEqualTo("t");
        assertThatThrownBy(() -> AgentKeys.parse("session,,user_id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys must be a comma list of session, prompt, header:<name>, mcp-method, mcp-name,"
                        + " mcp-param:<Name> or a header name,"
                        + " was 'session,,user_id' (an empty part)");
        assertThatThrownBy(() -> AgentKeys.parse("session,cookie:sid")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys has an unknown part 'cookie:sid' (" + PARTS + "), was 'session,cookie:sid'");
        assertThatThrownBy(() -> AgentKeys.parse("header:")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys has an unknown part 'header:' (" + PARTS + "), was 'header:'");
        assertThatThrownBy(() -> AgentKeys.parse("user id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys has an unknown part 'user id' (" + PARTS + "), was 'user id'");
        assertThatThrownBy(() -> AgentKeys.parse(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keys");
        // A part twice would never decide (the first has said it): refused, as sessionMcpHandles refuses a name twice.
        assertThatThrownBy(() -> AgentKeys.parse("session,prompt,prompt")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys names 'prompt' twice, was 'session,prompt,prompt'");
        assertThatThrownBy(() -> AgentKeys.parse("user_id, header:User_Id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys names 'header:User_Id' twice, was 'user_id, header:User_Id'");
        assertThatThrownBy(() -> AgentKeys.parse("mcp-param:handle,mcp-param:Handle")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys names 'mcp-param:Handle' twice, was 'mcp-param:handle,mcp-param:Handle'");
        assertThatThrownBy(() -> AgentKeys.firstOf()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys must not be empty, was []");
    }

    @Test
    void aCachedBodyAlreadyReadIsKeyedFromItsStart() throws Exception {
        Expression prompt = AgentKeys.promptPrefix(PromptPrefix.ofDefaults());
        InputStreamCache cache = new InputStreamCache(CHAT.getBytes(StandardCharsets.UTF_8));
        assertThat(cache.readAllBytes()).hasSize(CHAT.getBytes(StandardCharsets.UTF_8).length);
        assertThat(eval(prompt, exchange(cache, Map.of()))).isEqualTo(CHAT_KEY);
    }

    @Test
    void aCachedBodyThatIsNotAStreamIsReadThroughCamelsConverters() {
        Expression prompt = AgentKeys.promptPrefix(PromptPrefix.ofDefaults());
        Exchange exchange = exchange(new ReaderCache(CHAT), Map.of());
        assertThat(eval(prompt, exchange)).isEqualTo(CHAT_KEY);
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo(CHAT);
    }

    @Test
    void aStreamTheContextWillNotCacheHasNoPromptKeyAndIsLeftAsItWas() throws Exception {
        Expression prompt = AgentKeys.promptPrefix(PromptPrefix.ofDefaults());
        try (CamelContext own = CamelContexts.started(routes -> { });
                CapturedLog log = new CapturedLog(AgentKeys.class.getName(), Level.DEBUG)) {
            own.getStreamCachingStrategy().setDenyClasses(ByteArrayInputStream.class);
            ByteArrayInputStream stream = new ByteArrayInputStream(CHAT.getBytes(StandardCharsets.UTF_8));
            Exchange exchange = new DefaultExchange(own);
            exchange.getMessage().setBody(stream);
            assertThat(eval(prompt, exchange)).isNull();
            assertThat(exchange.getMessage().getBody()).isSameAs(stream);
            assertThat(log.lines()).containsExactly("DEBUG No prompt key for exchange " + exchange.getExchangeId()
                    + ": its body (java.io.ByteArrayInputStream) could not be read: java.lang.IllegalStateException:"
                    + " the context's stream caching strategy did not cache it");
        }
    }

    @Test
    void onlyABodyWithoutAPromptIsLoggedAtDebug() {
        Expression prompt = AgentKeys.promptPrefix(PromptPrefix.ofDefaults());
        try (CapturedLog log = new CapturedLog(AgentKeys.class.getName(), Level.DEBUG)) {
            assertThat(eval(prompt, exchange(CHAT, Map.of()))).isEqualTo(CHAT_KEY);
            assertThat(log.lines()).isEmpty();
            Exchange ping = exchange("ping", Map.of());
            assertThat(eval(prompt, ping)).isNull();
            assertThat(log.lines()).containsExactly("DEBUG No prompt key for exchange " + ping.getExchangeId()
                    + ": its body (java.lang.String) is not a JSON request with messages or prompt");
        }
    }

    @Test
    void eachKeySaysWhatItReads() {
        assertThat(AgentKeys.sessionHeader()).hasToString("session[Mcp-Session-Id, X-Session-Id]");
        assertThat(AgentKeys.header("tenant")).hasToString("header:tenant");
        assertThat(AgentKeys.promptPrefix(PromptPrefix.ofDefaults())).hasToString("prompt" + PromptPrefix.ofDefaults());
        assertThat(AgentKeys.parse("session,tenant"))
                .hasToString("firstOf[session[Mcp-Session-Id, X-Session-Id], header:tenant]");
    }

    @Test
    void aChainInitialisesItsKeys() {
        Expression chain = AgentKeys.firstOf(ExpressionBuilder.simpleExpression("${header.tenant}/${header.user}"),
                AgentKeys.header("user_id"));
        chain.init(context);
        assertThat(eval(chain, exchange(null, Map.of("tenant", "acme", "user", "u1")))).isEqualTo("acme/u1");
    }
}
