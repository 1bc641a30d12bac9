package io.github.agentlb.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Server-minted MCP handles in JSON-RPC bodies, as the 2026-07-28 specification's basket example has them. */
class McpHandlesTest {

    private static final Set<String> NAMES = Set.of("basket_id");

    private static McpHandles.Call call(String... argumentHandles) {
        Map<String, String> handles = new LinkedHashMap<>();
        for (int i = 0; i < argumentHandles.length; i += 2) {
            handles.put(argumentHandles[i], argumentHandles[i + 1]);
        }
        return new McpHandles.Call(handles);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static com.fasterxml.jackson.databind.JsonNode read(byte[] b) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(b);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aToolCallCarriesItsHandleAsTheNamedArgument() {
        assertThat(McpHandles.call(bytes("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add_item\","
                + "\"arguments\":{\"sku\":\"s-1\",\"basket_id\":\"bsk_a1b2c3\"}}}"), NAMES))
                .isEqualTo(call("basket_id", "bsk_a1b2c3"));
        // The creation call carries none; a handle elsewhere in the body is no argument.
        assertThat(McpHandles.call(bytes("{\"method\":\"tools/call\",\"params\":{\"name\":\"create_basket\",\"arguments\":{},"
                + "\"_meta\":{\"basket_id\":\"x\"}}}"), NAMES)).isEqualTo(call());
        // The params may come before the method; a number is no handle.
        assertThat(McpHandles.call(bytes("{\"params\":{\"arguments\":{\"basket_id\":\"h\"}},\"method\":\"tools/call\"}"), NAMES))
                .isEqualTo(call("basket_id", "h"));
        assertThat(McpHandles.call(bytes("{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"basket_id\":7}}}"), NAMES))
                .isEqualTo(call());
        // Names ignore case (given in lower case), as the headers that mirror them; the body keeps its own.
        assertThat(McpHandles.call(bytes("{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"Basket_ID\":\"h\"}}}"), NAMES))
                .isEqualTo(call("Basket_ID", "h"));
    }

    /** The first bytes of a call too long to read whole: whether they hold a sealed handle in a named argument. */
    @Test
    void theFirstBytesOfALongCallTellWhetherItCarriesASealedHandle() {
        String sealed = "{\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"basket_id\":\"a1.QTE.x.y\",\"pad\":\"xxxx";
        assertThat(McpHandles.leadingSealedHandle(bytes(sealed), 1 << 20, NAMES)).isTrue();
        assertThat(McpHandles.leadingSealedHandle(bytes(sealed), sealed.indexOf("a1.QTE") + 3, NAMES)).as("cut inside it").isFalse();
        assertThat(McpHandles.leadingSealedHandle(bytes(sealed.replace("a1.QTE.x.y", "bsk-1")), 1 << 20, NAMES)).as("chosen").isFalse();
        assertThat(McpHandles.leadingSealedHandle(bytes(sealed.replace("basket_id", "cart_id")), 1 << 20, NAMES)).as("unnamed").isFalse();
        assertThat(McpHandles.leadingSealedHandle(bytes(sealed.replace("tools/call", "tools/list")), 1 << 20, NAMES)).isFalse();
        assertThat(McpHandles.leadingSealedHandle(bytes("[" + sealed), 1 << 20, NAMES)).as("no object").isFalse();
        assertThat(McpHandles.leadingSealedHandle(bytes("{\"params\":{\"arguments\":{\"basket_id\":\"a1.QTE.x.y\"}},\"method\":\"tools/call\"}"),
                1 << 20, NAMES)).as("method after params").isTrue();
    }

    @Test
    void aCallMayCarrySeveralHandlesEachRead() {
        assertThat(McpHandles.call(bytes("{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"cart_id\":\"c\",\"x\":{\"basket_id\":"
                + "\"no\"},\"basket_id\":\"b\"}}}"), Set.of("basket_id", "cart_id")))
                .isEqualTo(call("cart_id", "c", "basket_id", "b"));
        String body = "{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"cart_id\":\"S1\",\"basket_id\":\"S2\"}}}";
        assertThat(text(McpHandles.withHandles(bytes(body), Map.of("cart_id", "c", "basket_id", "b"))))
                .isEqualTo(body.replace("S1", "c").replace("S2", "b"));
    }

    @Test
    void aBodyThatIsNoSingleToolCallCarriesNoHandle() {
        String args = "\"params\":{\"arguments\":{\"basket_id\":\"h\"}}";
        for (String body : new String[] {"{\"method\":\"tools/list\"," + args + "}",
                "{\"method\":\"tools/call\",\"method\":\"tools/call\"," + args + "}",
                "{\"method\":\"tools/call\"," + args + "} {}",
                "{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"basket_id\":\"h\",\"basket_id\":\"i\"}}}",
                "[{\"method\":\"tools/call\"," + args + "}]", "{\"params\":{\"method\":\"tools/call\"}}", "not json", ""}) {
            assertThat(McpHandles.call(bytes(body), NAMES)).as(body).isNull();
        }
    }

    @Test
    void theRequestGetsTheServersOwnHandleEveryOtherByteKept() {
        String body = "{\"method\":\"tools/call\", \"params\":{\"name\":\"add_item\",\"arguments\":{\"basket_id\":\"a1.QTE.x.y\","
                + "\"n\":1.50e3}}}";
        assertThat(text(McpHandles.withHandles(bytes(body), Map.of("basket_id", "bsk_\"1\""))))
                .isEqualTo(body.replace("a1.QTE.x.y", "bsk_\\\"1\\\""));
    }

    @Test
    void anAnswersHandleIsSealedInStructuredContentAndInItsTextWhereverTheyCome() {
        String answer = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Created basket"
                + " bsk_a1b2c3 (bsk_a1b2c3)\"}],\"structuredContent\":{\"basket_id\":\"bsk_a1b2c3\",\"items\":0}}}";
        String sealed = text(McpHandles.sealAnswer(bytes(answer), NAMES, h -> "S(" + h + ")"));
        assertThat(sealed).isEqualTo(answer.replace("bsk_a1b2c3", "S(bsk_a1b2c3)"));
        // structuredContent first; a handle already sealed (seal gives it back) changes nothing.
        String first = "{\"result\":{\"structuredContent\":{\"basket_id\":\"bsk_00000001\"},\"content\":[{\"text\":\"bsk_00000001\"}]}}";
        assertThat(text(McpHandles.sealAnswer(bytes(first), NAMES, h -> "S")))
                .isEqualTo("{\"result\":{\"structuredContent\":{\"basket_id\":\"S\"},\"content\":[{\"text\":\"S\"}]}}");
        byte[] same = bytes(first);
        assertThat(McpHandles.sealAnswer(same, NAMES, h -> h)).isSameAs(same);
    }

    @Test
    void onlyTheResultsStructuredContentHoldsHandlesAtAnyDepthAndAShortOneIsNotReplacedInText() {
        byte[] outside = bytes("{\"result\":{\"content\":[{\"basket_id\":\"bsk_a1b2c3\"}]},\"basket_id\":\"bsk_a1b2c3\"}");
        assertThat(McpHandles.sealAnswer(outside, NAMES, h -> "S")).isSameAs(outside);
        // Nested in structuredContent's objects and arrays (a basket object, a list of baskets), each is a handle.
        String nested = "{\"result\":{\"structuredContent\":{\"basket\":{\"basket_id\":\"bsk_a1b2c3\"},"
                + "\"baskets\":[{\"basket_id\":\"bsk_d4e5f6\",\"n\":1},{\"basket_id\":\"bsk_a1b2c3\"}],\"ids\":[\"bsk_a1b2c3\"]},"
                + "\"content\":[{\"text\":\"bsk_d4e5f6 and bsk_a1b2c3\"}]},\"basket_id\":\"bsk_a1b2c3\"}";
        assertThat(text(McpHandles.sealAnswer(bytes(nested), NAMES, h -> "S(" + h + ")"))).isEqualTo(nested
                .replace("\"basket_id\":\"bsk_a1b2c3\"}", "\"basket_id\":\"S(bsk_a1b2c3)\"}")
                .replace("\"basket_id\":\"bsk_d4e5f6\"", "\"basket_id\":\"S(bsk_d4e5f6)\"")
                .replace("\"text\":\"bsk_d4e5f6 and bsk_a1b2c3\"", "\"text\":\"S(bsk_d4e5f6) and S(bsk_a1b2c3)\"")
                .replace("]},\"basket_id\":\"S(bsk_a1b2c3)\"}", "]},\"basket_id\":\"bsk_a1b2c3\"}"));
        String shortOne = "{\"result\":{\"content\":[{\"text\":\"b7 of b7\"}],\"structuredContent\":{\"basket_id\":\"b7\"}}}";
        assertThat(text(McpHandles.sealAnswer(bytes(shortOne), NAMES, h -> "S")))
                .isEqualTo("{\"result\":{\"content\":[{\"text\":\"b7 of b7\"}],\"structuredContent\":{\"basket_id\":\"S\"}}}");
        // In text, a handle that is part of a longer word is another word.
        String words = "{\"result\":{\"content\":[{\"text\":\"bsk_a1b2c3: not bsk_a1b2c30, xbsk_a1b2c3 or bsk_a1b2c3-2;"
                + " (bsk_a1b2c3)\"}],\"structuredContent\":{\"basket_id\":\"bsk_a1b2c3\"}}}";
        assertThat(text(McpHandles.sealAnswer(bytes(words), NAMES, h -> "S$1")))
                .isEqualTo(words.replace("bsk_a1b2c3: ", "S$1: ").replace("(bsk_a1b2c3)", "(S$1)")
                        .replace("\"basket_id\":\"bsk_a1b2c3\"", "\"basket_id\":\"S$1\""));
        // Of two handles, one inside the other, the text's word is the longer (found: the cart shown as the sealed basket).
        String inside = "{\"result\":{\"content\":[{\"text\":\"basket bsk_a1b2c3, cart bsk_a1b2c3.x, cart of bsk_a1b2c3 more\"}],"
                + "\"structuredContent\":{\"basket_id\":\"bsk_a1b2c3\",\"cart_id\":\"bsk_a1b2c3.x\",\"c2\":\"bsk_a1b2c3 more\"}}}";
        assertThat(read(McpHandles.sealAnswer(bytes(inside), Set.of("basket_id", "cart_id", "c2"), h -> "<" + h.length() + ">"))
                .path("result").path("content").get(0).path("text").asText())
                .isEqualTo("basket <10>, cart <12>, cart of <15>");
        // An empty handle is a handle.
        assertThat(text(McpHandles.sealAnswer(bytes("{\"result\":{\"structuredContent\":{\"basket_id\":\"\"}}}"), NAMES,
                h -> "S"))).isEqualTo("{\"result\":{\"structuredContent\":{\"basket_id\":\"S\"}}}");
        byte[] notJson = bytes("data: {}");
        assertThat(McpHandles.sealAnswer(notJson, NAMES, h -> "S")).isSameAs(notJson);
    }
}
