package io.github.agentlb.agent;

import io.github.agentlb.agent.http.RequestTarget;
/**
 * What an inbound HTTP request asks of the agent, decided from its method, path and query.
 *
 * @param kind which endpoint answers
 * @param requestId the {@code req_id} path segment of {@code /process/{req_id}}, else null
 * @param userId the {@code user_id} query parameter as given, null if absent
 */
public record AgentRequest(Kind kind, String requestId, String userId) {

    /** Path of the health endpoint. */
    public static final String HEALTH_PATH = "/health";
    /** Path prefix of the process endpoint; one more non-empty segment follows. */
    public static final String PROCESS_PREFIX = "/process/";
    /** Query parameter echoed as {@code user_id}. */
    public static final String USER_ID_PARAM = "user_id";

    /** The endpoint that answers a request. */
    public enum Kind {
        /** {@code GET /process/{req_id}}: delayed JSON answer with load headers. */
        PROCESS,
        /** {@code GET /health}. */
        HEALTH,
        /**
         * {@code POST /v1/chat/completions}, or a POST on {@code /process/{req_id}} (what the demo
         * proxy forwards): an LLM-shaped answer, JSON or SSE ({@link ChatCompletions}).
         */
        CHAT,
        /** A known path with another method than its own (GET or POST on /process, GET on /health, POST for chat): 405. */
        METHOD_NOT_ALLOWED,
        /** Any other path: 404. */
        NOT_FOUND
    }

    /**
     * Classifies a request. Pure; never throws on odd input.
     *
     * @param method HTTP method, e.g. {@code GET}
     * @param path decoded request path, e.g. {@code /process/r1}
     * @param rawQuery the undecoded query string without '?', or null
     */
    public static AgentRequest classify(String method, String path, String rawQuery) {
        boolean get = "GET".equalsIgnoreCase(method);
        if (ChatCompletions.PATH.equals(path)) {
            return new AgentRequest("POST".equals(method) ? Kind.CHAT : Kind.METHOD_NOT_ALLOWED, null, null);
        }
        if (HEALTH_PATH.equals(path)) {
            return new AgentRequest(get ? Kind.HEALTH : Kind.METHOD_NOT_ALLOWED, null, null);
        }
        if (path != null && path.startsWith(PROCESS_PREFIX)) {
            String requestId = path.substring(PROCESS_PREFIX.length());
            if (!requestId.isEmpty() && requestId.indexOf('/') < 0) {
                if ("POST".equals(method)) {
                    return new AgentRequest(Kind.CHAT, requestId, RequestTarget.queryParameter(rawQuery, USER_ID_PARAM));
                }
                return get
                        ? new AgentRequest(Kind.PROCESS, requestId, RequestTarget.queryParameter(rawQuery, USER_ID_PARAM))
                        : new AgentRequest(Kind.METHOD_NOT_ALLOWED, requestId, null);
            }
        }
        return new AgentRequest(Kind.NOT_FOUND, null, null);
    }
}
