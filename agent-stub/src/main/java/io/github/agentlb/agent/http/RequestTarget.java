package io.github.agentlb.agent.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A request-target as RFC 9112 §3.2 and RFC 3986 define it, checked character by character and
 * split into its raw path and query, which are never decoded or re-encoded here.
 *
 * <p>Accepted: origin-form ({@code /a/b?q}); absolute-form with scheme {@code http} or
 * {@code https} and no user info ({@code http://host:8080/a?q}, whose authority is dropped);
 * {@code *} for OPTIONS and authority-form ({@code host:443}) for CONNECT, both with the whole
 * target as {@link #path()}. Refused: any byte outside the printable ASCII range (a target is
 * ASCII; a server reading bytes as ISO-8859-1 sees non-ASCII bytes as chars 0x80-0xFF), a
 * character that RFC 3986 does not allow where it stands ({@code |}, {@code "}, {@code [} in a
 * path, {@code #}, ...), a {@code %} not followed by two hex digits. {@link #decodePath} and
 * {@link #queryParameter} decode what the agent and the proxy read from a target.
 *
 * <p>The path has its dot-segments removed (RFC 3986 §5.2.4), {@code .} and {@code ..} written
 * plainly or percent-encoded ({@code %2e}, RFC 3986 §6.2.2.2 makes them the same): the proxy and
 * the agent route on the path an origin server that normalizes would serve, so
 * {@code /process/..} is {@code /}, never a request id {@code ..} (the shape of CVE-2019-9901).
 * Other segments are kept byte for byte.
 *
 * @param path    the raw path without dot-segments, e.g. {@code /process/a%2Fb}; "" when refused
 * @param query   the raw query without '?', or null when there is none
 * @param problem for a refused target, what is wrong, quoting the target ({@link #quote}); else null
 */
public record RequestTarget(String path, String query, String problem) {

    /** Characters of a target quoted in {@link #problem()} at most. */
    public static final int MAX_QUOTED = 200;

    private static final String PREFIX = "malformed request target: ";
    private static final String SUB_DELIMS = "!$&'()*+,;=";

    /** Whether the target was accepted. */
    public boolean valid() {
        return problem == null;
    }

    /**
     * Checks and splits {@code target}. Pure; never throws.
     *
     * @param method the request method, for the forms only one method may use
     * @param target the request-target as received, one char per byte, or null
     */
    public static RequestTarget parse(String method, String target) {
        if (target == null || target.isEmpty()) {
            return refused("empty", -1, "");
        }
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                String what = c >= 0x80 ? String.format("non-ASCII byte 0x%02X", (int) c) : "control character or space";
                return refused(what, i, target);
            }
        }
        if (target.charAt(0) == '/') {
            return originForm(target, 0, target);
        }
        if (target.equals("*")) {
            return "OPTIONS".equals(method) ? new RequestTarget(target, null, null)
                    : refused("* is for OPTIONS only", 0, target);
        }
        int colonSlashSlash = target.indexOf("://");
        if (colonSlashSlash < 0) {
            return "CONNECT".equals(method) && authorityProblem(target, 0, target.length()) < 0
                    ? new RequestTarget(target, null, null)
                    : refused("not in origin or absolute form", 0, target);
        }
        String scheme = target.substring(0, colonSlashSlash).toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return refused("scheme is not http or https", 0, target);
        }
        int authorityStart = colonSlashSlash + 3;
        int authorityEnd = authorityStart;
        while (authorityEnd < target.length() && target.charAt(authorityEnd) != '/' && target.charAt(authorityEnd) != '?') {
            authorityEnd++;
        }
        int bad = authorityProblem(target, authorityStart, authorityEnd);
        if (bad >= 0 || authorityEnd == authorityStart) {
            return refused("illegal character in authority", bad >= 0 ? bad : authorityStart, target);
        }
        if (authorityEnd == target.length() || target.charAt(authorityEnd) == '?') {
            // An empty path in absolute form stands for "/" (RFC 9112 §3.2.2).
            return originForm("/" + target.substring(authorityEnd), authorityEnd - 1, target);
        }
        return originForm(target.substring(authorityEnd), authorityEnd, target);
    }

    /**
     * What is wrong with a request's {@code Host} header lines (RFC 9112 §3.2: one line whose value
     * is {@code uri-host [ ":" port ]}), or null when nothing is. No line at all is left to the
     * caller, as an HTTP/1.0 request may have none.
     *
     * @param values the value of each {@code Host} line, as received
     */
    public static String hostProblem(List<String> values) {
        if (values.size() > 1) {
            return "more than one Host header";
        }
        if (values.size() == 1) {
            String host = values.get(0);
            int bad = authorityProblem(host, 0, host.length());
            if (bad >= 0) {
                return "malformed Host header: illegal character at index " + bad + " of " + quote(host);
            }
            if (!isHostAndPort(host)) {
                return "malformed Host header: not uri-host[:port]: " + quote(host);
            }
        }
        return null;
    }

    /**
     * A raw path (or path segment) percent-decoded as UTF-8; {@code +} stays a plus, as it means a
     * space only in a query. Pure; never throws: a malformed escape leaves the text as sent.
     */
    public static String decodePath(String rawPath) {
        return decode(rawPath.replace("+", "%2B"));
    }

    /**
     * The decoded value of the first query parameter {@code name} (names are compared decoded),
     * "" when it has no {@code =}, null when absent or the query is null. Pure; never throws: a
     * malformed escape is kept as sent.
     *
     * @param rawQuery the query as sent, without '?', or null
     */
    public static String queryParameter(String rawQuery, String name) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return null;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            if (name.equals(decode(eq < 0 ? pair : pair.substring(0, eq)))) {
                return eq < 0 ? "" : decode(pair.substring(eq + 1));
            }
        }
        return null;
    }

    private static String decode(String raw) {
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // parse() refuses such targets; kept so that a caller with other text never fails.
            return raw;
        }
    }

    /** {@code absolute-path [ "?" query ]}; {@code offset} is where {@code form} starts in {@code target}. */
    private static RequestTarget originForm(String form, int offset, String target) {
        int q = form.indexOf('?');
        int pathEnd = q < 0 ? form.length() : q;
        for (int i = 0; i < form.length(); i++) {
            char c = form.charAt(i);
            if (c == '%') {
                if (i + 2 >= form.length() || !hex(form.charAt(i + 1)) || !hex(form.charAt(i + 2))) {
                    return refused("malformed escape pair", offset + i, target);
                }
                i += 2;
            } else if (!(pchar(c) || c == '/' || (i >= pathEnd && c == '?'))) {
                return refused("illegal character in " + (i < pathEnd ? "path" : "query"), offset + i, target);
            }
        }
        return new RequestTarget(removeDotSegments(form.substring(0, pathEnd)), q < 0 ? null : form.substring(q + 1), null);
    }

    /**
     * RFC 3986 §5.2.4 on an absolute path: {@code .} segments dropped, {@code ..} drops the one
     * before it (none above the root); a dot-segment at the end leaves a trailing slash. A
     * segment is a dot-segment plain or percent-encoded ({@code %2e}, {@code .%2E}). Pure.
     */
    public static String removeDotSegments(String path) {
        if (path.indexOf('.') < 0 && path.indexOf('%') < 0) {
            return path;
        }
        String[] parts = path.split("/", -1);
        List<String> out = new java.util.ArrayList<>(parts.length);
        for (int i = 1; i < parts.length; i++) {
            String segment = parts[i].replace("%2e", ".").replace("%2E", ".");
            boolean last = i == parts.length - 1;
            if (segment.equals(".") || segment.equals("..")) {
                if (segment.equals("..") && !out.isEmpty()) {
                    out.remove(out.size() - 1);
                }
                if (last) {
                    out.add("");
                }
            } else {
                out.add(parts[i]);
            }
        }
        return "/" + String.join("/", out);
    }

    /**
     * Whether {@code value} is {@code uri-host [":" port]} (RFC 9110 §7.2, RFC 3986 §3.2.2-3): an
     * IP literal in brackets or a name without {@code :}, {@code [} and {@code ]}, then optionally
     * a colon and digits. Characters are checked by {@link #authorityProblem} before.
     */
    static boolean isHostAndPort(String value) {
        int portColon;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 2) {
                return false;
            }
            for (int i = 1; i < close; i++) {
                char c = value.charAt(i);
                if (!(hex(c) || c == ':' || c == '.' || c == 'v' || c == 'V')) {
                    return false;
                }
            }
            if (close == value.length() - 1) {
                return true;
            }
            portColon = close + 1;
            if (value.charAt(portColon) != ':') {
                return false;
            }
        } else {
            portColon = value.indexOf(':');
            if (value.indexOf('[') >= 0 || value.indexOf(']') >= 0) {
                return false;
            }
            if (portColon < 0) {
                return true;
            }
        }
        for (int i = portColon + 1; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Index of the first character not allowed in an authority (no user info), or -1. */
    private static int authorityProblem(String target, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = target.charAt(i);
            if (!(unreserved(c) || SUB_DELIMS.indexOf(c) >= 0 || c == ':' || c == '[' || c == ']' || c == '%')) {
                return i;
            }
        }
        return -1;
    }

    private static boolean pchar(char c) {
        return unreserved(c) || SUB_DELIMS.indexOf(c) >= 0 || c == ':' || c == '@';
    }

    private static boolean unreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static boolean hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static RequestTarget refused(String reason, int index, String target) {
        return new RequestTarget("", null,
                PREFIX + reason + (index >= 0 ? " at index " + index : "") + " of " + quote(target));
    }

    /**
     * {@code target} in printable ASCII: every char outside 0x21-0x7E as {@code \xNN} (its byte),
     * and a backslash as {@code \x5C}, cut to {@value #MAX_QUOTED} characters with "...".
     */
    public static String quote(String target) {
        StringBuilder out = new StringBuilder(Math.min(target.length(), MAX_QUOTED) + 8);
        for (int i = 0; i < target.length(); i++) {
            if (out.length() >= MAX_QUOTED) {
                return out.append("...").toString();
            }
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7f || c == '\\') {
                out.append(String.format(c > 0xff ? "\\u%04X" : "\\x%02X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
