package io.github.agentlb.camel.http;

import io.github.agentlb.core.key.McpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import java.util.List;
import java.util.Locale;

/**
 * Which answers are MCP 2025-11-25 (and earlier) session streams, which an {@link AgentCall} lets
 * a client resume (its class comment says how): a Server-Sent Events answer to a request with
 * {@code Mcp-Session-Id} (or to a {@code GET} that names {@code text/event-stream} in its {@code Accept}), whose {@code MCP-Protocol-Version} is absent or before 2026-07-28, from a
 * client whose {@code Accept} is an MCP client's ({@link #acceptsEventStreams}). Stateless.
 */
final class LegacyMcpStreams {

    private LegacyMcpStreams() {
    }

    /**
     * Whether {@code request}, sent with {@code method}, and its answer's head make a legacy MCP session
     * stream; a {@code GET} whose {@code Accept} names {@code text/event-stream} needs no session header
     * (MCP 2024-11-05's HTTP+SSE transport opens its session with {@code GET /sse}; a browser's
     * EventSource listens so): it waits for events all the same.
     */
    static boolean opens(HttpHeaders request, HttpMethod method, HttpResponse response) {
        String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
        boolean session = request.contains("Mcp-Session-Id");
        return type != null && type.regionMatches(true, 0, "text/event-stream", 0, 17)
                && (session || HttpMethod.GET.equals(method) && namesEventStream(request.getAll(HttpHeaderNames.ACCEPT)))
                && !McpHeaders.mirrorsTrusted(request.get(McpHeaders.PROTOCOL_VERSION))
                && acceptsEventStreams(request.getAll(HttpHeaderNames.ACCEPT), HttpMethod.GET.equals(method));
    }

    /**
     * Whether a client's {@code Accept} values are an MCP client's for an event stream. A
     * {@code POST}'s must name {@code text/event-stream}, as MCP's clients must ("listing both
     * application/json and text/event-stream"): an LLM client that accepts only JSON (the OpenAI
     * SDKs) or anything ({@code *}{@code /*}: curl, fetch, Python's requests) is not one. A
     * {@code GET} (LLM calls are never one) may also send none, {@code text/*} or any type.
     */
    static boolean acceptsEventStreams(List<String> accept, boolean get) {
        if (accept.isEmpty()) {
            return get;
        }
        for (String value : accept) {
            for (String range : value.split(",")) {
                String[] parts = range.split(";");
                String type = parts[0].trim().toLowerCase(Locale.ROOT);
                if ((type.equals("text/event-stream") || get && (type.equals("text/*") || type.equals("*/*"))) && !refused(parts)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether {@code accept} names {@code text/event-stream} itself (not by a wildcard), not refused. */
    private static boolean namesEventStream(List<String> accept) {
        return !accept.isEmpty() && acceptsEventStreams(accept, false);
    }

    /** Whether a media range's parameters give it {@code q=0}: "not acceptable" (RFC 9110, 12.4.2). */
    private static boolean refused(String[] rangeParts) {
        for (int i = 1; i < rangeParts.length; i++) {
            String parameter = rangeParts[i].trim().toLowerCase(Locale.ROOT);
            if (parameter.startsWith("q=")) {
                try {
                    return Double.parseDouble(parameter.substring(2).trim()) == 0;
                } catch (NumberFormatException e) {
                    return false;
                }
            }
        }
        return false;
    }
}
