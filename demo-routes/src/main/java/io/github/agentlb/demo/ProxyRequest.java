package io.github.agentlb.demo;

import io.github.agentlb.agent.http.RequestTarget;

/**
 * What an inbound request asks of the proxy, read from its method and raw request target.
 *
 * <p>The path and query are kept exactly as the client encoded them, so they reach the agent
 * unchanged ({@code /process/a%2Fb?user_id=a%20b} stays so); {@code req_id} and
 * {@code user_id} are also decoded for the balancer's key and the decision log.
 *
 * @param kind        which answer the request gets
 * @param rawPath     the path as sent, e.g. {@code /process/r%2F1}; never null
 * @param rawQuery    the query as sent without '?', or null when there is none
 * @param requestId   the decoded {@code req_id} path segment of {@code /process/{req_id}}, else null
 * @param userId      the decoded first {@code user_id} query parameter, "" when given without a
 *                    value, null when absent
 * @param problem     for {@link Kind#BAD_REQUEST}, what is wrong with the target, for the client;
 *                    else null
 */
public record ProxyRequest(Kind kind, String rawPath, String rawQuery, String requestId, String userId,
                           String problem) {

    /** Path prefix of the proxied endpoint; exactly one more non-empty segment follows. */
    public static final String PROCESS_PREFIX = "/process/";
    /** Path prefix of OpenAI-compatible model servers' APIs, forwarded as they are. */
    public static final String MODEL_API_PREFIX = "/v1/";
    /** Path of MCP's Streamable HTTP endpoint, forwarded as it is. */
    public static final String MCP_PATH = "/mcp";
    /** Path of an A2A agent's JSON-RPC endpoint, forwarded as it is. */
    public static final String A2A_PATH = "/a2a";
    /** Query parameter that keys consistent hashing. */
    public static final String USER_ID_PARAM = "user_id";
    /** The answer a request gets. */
    public enum Kind {
        /**
         * {@code /process/{req_id}}, {@code /v1/...}, {@code /mcp} or {@code /a2a} with any method but CONNECT:
         * load-balanced to an agent.
         */
        PROXY,
        /** {@code CONNECT} on a forwarded path: 405. */
        METHOD_NOT_ALLOWED,
        /** Any other path: 404. */
        NOT_FOUND,
        /**
         * A target that is not a valid request-target: a malformed percent-escape ({@code %zz}, a
         * trailing {@code %}), a character that must be escaped ({@code |}, space, ...), a
         * non-ASCII byte; or a bad {@code Host}: 400.
         */
        BAD_REQUEST
    }

    /** A request that is not {@link Kind#BAD_REQUEST}. */
    public ProxyRequest(Kind kind, String rawPath, String rawQuery, String requestId, String userId) {
        this(kind, rawPath, rawQuery, requestId, userId, null);
    }

    /**
     * Classifies a request. Pure; never throws on odd input. A target is bad when
     * {@link RequestTarget} refuses it (RFC 9112 §3.2, RFC 3986: printable ASCII, each character
     * allowed where it stands, well-formed percent-escapes), the rule the agents apply too, so a
     * request the proxy accepts never fails there for its syntax.
     *
     * @param method    HTTP method, e.g. {@code GET}
     * @param rawTarget the request target as received, one char per byte, in origin form
     *                  ({@code /p?q}) or absolute form ({@code http://host/p?q})
     */
    public static ProxyRequest parse(String method, String rawTarget) {
        RequestTarget target = RequestTarget.parse(method, rawTarget);
        if (!target.valid()) {
            return badRequest(target.problem());
        }
        String rawPath = target.path();
        String rawQuery = target.query();
        if (rawPath.startsWith(PROCESS_PREFIX)) {
            String segment = rawPath.substring(PROCESS_PREFIX.length());
            if (!segment.isEmpty() && segment.indexOf('/') < 0) {
                Kind kind = "CONNECT".equals(method) ? Kind.METHOD_NOT_ALLOWED : Kind.PROXY;
                return new ProxyRequest(kind, rawPath, rawQuery, RequestTarget.decodePath(segment),
                        RequestTarget.queryParameter(rawQuery, USER_ID_PARAM));
            }
        }
        if (isAgentApi(rawPath)) {
            Kind kind = "CONNECT".equals(method) ? Kind.METHOD_NOT_ALLOWED : Kind.PROXY;
            return new ProxyRequest(kind, rawPath, rawQuery, null, RequestTarget.queryParameter(rawQuery, USER_ID_PARAM));
        }
        return new ProxyRequest(Kind.NOT_FOUND, rawPath, rawQuery, null, null);
    }

    /**
     * Whether {@code rawPath} is an agent API the proxy forwards besides {@code /process/{req_id}}:
     * OpenAI-compatible model servers' {@value #MODEL_API_PREFIX}... ({@code /v1/chat/completions},
     * {@code /v1/completions}, ...), MCP's Streamable HTTP endpoint {@value #MCP_PATH} and A2A's
     * JSON-RPC endpoint {@value #A2A_PATH} (each with what is below it). Such requests have no request id in their path: the decision log names the
     * exchange.
     */
    static boolean isAgentApi(String rawPath) {
        return rawPath.startsWith(MODEL_API_PREFIX) && rawPath.length() > MODEL_API_PREFIX.length()
                || isMcp(rawPath) || rawPath.equals(A2A_PATH) || rawPath.startsWith(A2A_PATH + "/");
    }

    /** Whether {@code rawPath} is MCP's endpoint {@value #MCP_PATH} (or below it): the only path whose MCP headers the proxy reads. */
    static boolean isMcp(String rawPath) {
        return rawPath.equals(MCP_PATH) || rawPath.startsWith(MCP_PATH + "/");
    }

    /** A {@link Kind#BAD_REQUEST} for {@code problem}, which must quote client text safely. */
    public static ProxyRequest badRequest(String problem) {
        return new ProxyRequest(Kind.BAD_REQUEST, "", null, null, null, problem);
    }
}
