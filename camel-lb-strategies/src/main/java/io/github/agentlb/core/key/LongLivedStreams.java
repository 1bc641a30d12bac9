package io.github.agentlb.core.key;

/**
 * Which requests open a long-lived stream rather than ask for an answer: a balancer counts them
 * apart from the requests in flight, since an open stream that waits for events is no load, and
 * counted as one it would keep its agent looking busy for minutes.
 *
 * <ul>
 *   <li>MCP 2026-07-28 {@code subscriptions/listen} ({@value McpHeaders#METHOD}), when the
 *       request's {@value McpHeaders#PROTOCOL_VERSION} is one whose servers check the mirrored
 *       headers ({@link McpHeaders#mirrorsTrusted}), which reject a call whose headers do not
 *       match its body. A server that is not MCP's (an LLM server) checks neither header: in front
 *       of one, a client sending both makes its call look like a stream, so a route to such
 *       servers removes them ({@code removeHeaders("Mcp-*")} before {@code loadBalance()}).</li>
 *   <li>MCP 2025-11-25 and earlier: a {@code GET} with {@value #SESSION_ID}, the session's stream
 *       of server messages, or its resumption with {@code Last-Event-ID} (streamable HTTP
 *       transport); those revisions have no mirrored headers to check.</li>
 *   <li>A {@code GET} whose {@code Accept} names {@code text/event-stream}: MCP 2024-11-05's HTTP+SSE
 *       transport opens its session so ({@code GET /sse}, no session header yet), as a browser's
 *       {@code EventSource} listens.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class LongLivedStreams {

    /** The MCP 2026-07-28 method that opens a stream of notifications. */
    public static final String LISTEN = "subscriptions/listen";
    private static final String EVENT_STREAM = "text/event-stream";
    /** The MCP session header of a legacy {@code GET} stream. */
    public static final String SESSION_ID = "Mcp-Session-Id";

    private LongLivedStreams() {
    }

    /**
     * Whether a request opens a long-lived stream.
     *
     * @param httpMethod      the request's HTTP method, e.g. {@code GET}; null when unknown
     * @param sessionId       its {@value #SESSION_ID}, or null
     * @param mcpMethod       its {@value McpHeaders#METHOD}, or null
     * @param protocolVersion its {@value McpHeaders#PROTOCOL_VERSION}, or null
     * @param accept          its {@code Accept} (one value, or several joined by commas), or null
     */
    public static boolean opens(String httpMethod, String sessionId, String mcpMethod, String protocolVersion,
            String accept) {
        if ("GET".equals(httpMethod)) {
            return sessionId != null || asksForEventStream(accept);
        }
        return LISTEN.equals(mcpMethod) && McpHeaders.mirrorsTrusted(protocolVersion);
    }

    /** Whether an {@code Accept} names {@code text/event-stream} (in any case). */
    private static boolean asksForEventStream(String accept) {
        return accept != null && accept.toLowerCase(java.util.Locale.ROOT).contains(EVENT_STREAM);
    }
}
