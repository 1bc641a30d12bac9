package io.github.agentlb.agent.llm;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The canonical text of an OpenAI-style request's prompt, the text {@link PrefixCache} cuts into
 * blocks: for chat completions each message of {@code messages} as {@code role + "\n" + content +
 * "\n\n"}, where a content given as an array of parts is the concatenation of their
 * {@code text} fields; for completions the {@code prompt} string (or the concatenation of an
 * array of strings). Key order and white space of the JSON do not change it; the text inside
 * strings does. A request with neither gives the empty text. Pure and thread-safe.
 */
public final class PromptText {

    private PromptText() {
    }

    /**
     * @param request a parsed request body, any JSON value
     * @return the canonical prompt text, never null
     */
    public static String of(JsonNode request) {
        StringBuilder out = new StringBuilder();
        JsonNode messages = request.path("messages");
        if (messages.isArray()) {
            for (JsonNode message : messages) {
                out.append(message.path("role").asText("")).append('\n');
                appendContent(out, message.path("content"));
                out.append("\n\n");
            }
            return out.toString();
        }
        appendContent(out, request.path("prompt"));
        return out.toString();
    }

    private static void appendContent(StringBuilder out, JsonNode content) {
        if (content.isTextual()) {
            out.append(content.asText());
        } else if (content.isArray()) {
            for (JsonNode part : content) {
                out.append(part.isTextual() ? part.asText() : part.path("text").asText(""));
            }
        }
    }
}
