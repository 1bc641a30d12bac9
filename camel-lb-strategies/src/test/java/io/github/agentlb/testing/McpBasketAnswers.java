package io.github.agentlb.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * How a scripted stateful MCP 2026-07-28 server answers a {@code tools/call}, for tests (the
 * specification's basket example, {@code server/tools.mdx} "Stateful Tools"): a call without
 * {@code arguments.basket_id} mints basket {@code <name>-bsk-<n>} and returns it in
 * {@code structuredContent} and in its text; a call carrying one of its own baskets adds an item
 * and returns the count; any other basket gets a tool error ({@code isError}, "unknown basket").
 * Shared with the demo's tests.
 */
public final class McpBasketAnswers {

    private static final ObjectMapper JSON = new ObjectMapper();

    private McpBasketAnswers() {
    }

    /** The basket {@code request} carries, null for none. */
    public static String basket(JsonNode request) {
        return request.path("params").path("arguments").path("basket_id").asText(null);
    }

    /**
     * The answer of server {@code name} to {@code request}; a new basket is added to {@code baskets}
     * (basket to items). Not thread-safe for one {@code baskets}, unless it is.
     */
    public static ObjectNode answer(String name, Map<String, Integer> baskets, JsonNode request) {
        String basket = basket(request);
        ObjectNode result = JSON.createObjectNode();
        if (basket == null) {
            String id = name + "-bsk-" + (baskets.size() + 1);
            baskets.put(id, 0);
            result.putArray("content").addObject().put("type", "text").put("text", "Created basket " + id);
            result.putObject("structuredContent").put("basket_id", id).put("items", 0);
        } else if (baskets.containsKey(basket)) {
            result.putObject("structuredContent").put("basket_id", basket).put("items", baskets.merge(basket, 1, Integer::sum));
        } else {
            result.put("isError", true).putArray("content").addObject().put("type", "text").put("text", "unknown basket");
        }
        ObjectNode answer = JSON.createObjectNode().put("jsonrpc", "2.0").set("id", request.path("id"));
        answer.set("result", result);
        return answer;
    }
}
