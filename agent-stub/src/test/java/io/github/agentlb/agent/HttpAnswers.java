package io.github.agentlb.agent;

/**
 * Expected HTTP/1.1 answers, byte for byte, as the agent and the proxy write them: status line,
 * Content-Length first, then the given header lines, then the body.
 */
public final class HttpAnswers {

    public static final String JSON = "content-type: application/json";
    public static final String KEEP_ALIVE = "connection: keep-alive";
    public static final String CLOSE = "connection: close";

    private HttpAnswers() {
    }

    /** Status line, Content-Length (one byte per char), the header lines, the body. */
    public static String answer(String statusLine, String body, String... headerLines) {
        StringBuilder out = new StringBuilder(statusLine).append("\r\n");
        out.append("content-length: ").append(body.length()).append("\r\n");
        for (String line : headerLines) {
            out.append(line).append("\r\n");
        }
        return out.append("\r\n").append(body).toString();
    }

    /** The JSON 404 for a path no route serves. */
    public static String notFound(String path, String connection) {
        return answer("HTTP/1.1 404 Not Found", "{\"error\":\"not found\",\"detail\":\"no route for " + path + "\"}",
                JSON, connection);
    }

    /** The JSON 400 with {@code detail}. */
    public static String badRequest(String detail, String connection) {
        return answer("HTTP/1.1 400 Bad Request", "{\"error\":\"bad request\",\"detail\":\"" + detail + "\"}",
                JSON, connection);
    }

    /** {@code answer} up to and with the blank line after its headers: what a HEAD gets. */
    public static String headersOnly(String answer) {
        return answer.substring(0, answer.indexOf("\r\n\r\n") + 4);
    }
}
