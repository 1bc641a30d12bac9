package io.github.agentlb.demo;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

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
    /** Query parameter that keys consistent hashing. */
    public static final String USER_ID_PARAM = "user_id";
    /** Characters of the target quoted in {@link #problem()} at most. */
    static final int MAX_QUOTED_TARGET = 200;

    /** The answer a request gets. */
    public enum Kind {
        /** {@code GET /process/{req_id}}: load-balanced to an agent. */
        PROXY,
        /** {@code /process/{req_id}} with another method: 405. */
        METHOD_NOT_ALLOWED,
        /** Any other path: 404. */
        NOT_FOUND,
        /**
         * A target that is not a valid URI: a malformed percent-escape ({@code %zz}, a trailing
         * {@code %}) or a character that must be escaped ({@code |}, space, ...): 400.
         */
        BAD_REQUEST
    }

    /** A request that is not {@link Kind#BAD_REQUEST}. */
    public ProxyRequest(Kind kind, String rawPath, String rawQuery, String requestId, String userId) {
        this(kind, rawPath, rawQuery, requestId, userId, null);
    }

    /**
     * Classifies a request. Pure; never throws on odd input. A target is bad when
     * {@link URI#URI(String)} rejects it (RFC 2396 syntax), the rule the agents apply too, so a
     * request the proxy accepts never fails there for its syntax.
     *
     * @param method    HTTP method, e.g. {@code GET}
     * @param rawTarget the request target as received, in origin form ({@code /p?q}) or absolute
     *                  form ({@code http://host/p?q})
     */
    public static ProxyRequest parse(String method, String rawTarget) {
        String problem = syntaxProblem(rawTarget);
        if (problem != null) {
            return new ProxyRequest(Kind.BAD_REQUEST, "", null, null, null, problem);
        }
        String target = rawTarget == null ? "" : stripSchemeAndAuthority(rawTarget);
        int fragment = target.indexOf('#');
        if (fragment >= 0) {
            target = target.substring(0, fragment);
        }
        int q = target.indexOf('?');
        String rawPath = q < 0 ? target : target.substring(0, q);
        String rawQuery = q < 0 ? null : target.substring(q + 1);
        if (rawPath.startsWith(PROCESS_PREFIX)) {
            String segment = rawPath.substring(PROCESS_PREFIX.length());
            if (!segment.isEmpty() && segment.indexOf('/') < 0) {
                Kind kind = "GET".equalsIgnoreCase(method) ? Kind.PROXY : Kind.METHOD_NOT_ALLOWED;
                return new ProxyRequest(kind, rawPath, rawQuery, decodePath(segment), queryParameter(rawQuery, USER_ID_PARAM));
            }
        }
        return new ProxyRequest(Kind.NOT_FOUND, rawPath, rawQuery, null, null);
    }

    /** Why {@code rawTarget} is not a URI, or null if it is one. */
    private static String syntaxProblem(String rawTarget) {
        if (rawTarget == null) {
            return null;
        }
        try {
            new URI(rawTarget);
            return null;
        } catch (URISyntaxException e) {
            String quoted = rawTarget.length() <= MAX_QUOTED_TARGET
                    ? rawTarget : rawTarget.substring(0, MAX_QUOTED_TARGET) + "...";
            String reason = e.getReason().isEmpty() ? "malformed"
                    : e.getReason().substring(0, 1).toLowerCase(Locale.ROOT) + e.getReason().substring(1);
            return "malformed request target: " + reason
                    + (e.getIndex() >= 0 ? " at index " + e.getIndex() : "") + " of " + quoted;
        }
    }

    private static String stripSchemeAndAuthority(String target) {
        int scheme = target.indexOf("://");
        if (scheme < 0 || target.startsWith("/")) {
            return target;
        }
        int path = target.indexOf('/', scheme + 3);
        int query = target.indexOf('?', scheme + 3);
        if (path < 0 || (query >= 0 && query < path)) {
            return query < 0 ? "/" : "/" + target.substring(query);
        }
        return target.substring(path);
    }

    /** The decoded value of the first parameter {@code name}, "" without '=', null if absent. */
    static String queryParameter(String rawQuery, String name) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return null;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (name.equals(decodeQuery(key))) {
                return eq < 0 ? "" : decodeQuery(pair.substring(eq + 1));
            }
        }
        return null;
    }

    private static String decodeQuery(String raw) {
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // Unreachable after syntaxProblem() for parse(); kept so that the helper never throws.
            return raw;
        }
    }

    private static String decodePath(String raw) {
        // In a path '+' is a literal plus, not a space.
        return decodeQuery(raw.replace("+", "%2B"));
    }
}
