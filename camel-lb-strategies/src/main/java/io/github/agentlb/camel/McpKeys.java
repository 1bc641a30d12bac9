package io.github.agentlb.camel;

import io.github.agentlb.core.key.McpHeaders;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Message;
import org.apache.camel.support.ExpressionAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keys from the headers in which an MCP client of revision 2026-07-28 or later mirrors its
 * request ({@link McpHeaders}): a stateful server's handle carried as {@code Mcp-Param-<Name>}
 * keeps every call of that handle on one agent, on every balancer replica, without a table and
 * without reading the body. Part of {@link AgentKeys#parse}'s chain:
 *
 * <table>
 *   <caption>MCP keys</caption>
 *   <tr><th>part</th><th>header read</th><th>key</th></tr>
 *   <tr><td>{@code mcp-method}</td><td>{@code Mcp-Method}</td><td>{@code mcp-method:<value>}</td></tr>
 *   <tr><td>{@code mcp-name}</td><td>{@code Mcp-Name}</td><td>{@code mcp-name:<decoded value>}</td></tr>
 *   <tr><td>{@code mcp-param:<Name>}</td><td>{@code Mcp-Param-<Name>}</td>
 *       <td>{@code mcp-param:<name in lower case>:<decoded value>}</td></tr>
 * </table>
 *
 * <p>Trusted only when the request's {@code MCP-Protocol-Version} is 2026-07-28 or later
 * ({@link McpHeaders#mirrorsTrusted}): servers of those revisions reject a request whose mirrored
 * headers differ from its body, so a client cannot steer its call to another agent by a header
 * alone. Older, absent or malformed versions: the key is absent (the chain goes on, else the
 * request is spread round-robin), with a DEBUG line when the header was there. A value that is not
 * a valid header value or base64 sentinel ({@link McpHeaders#decode}) is absent as well. Keys of
 * {@code mcp-method} and {@code mcp-name} go through the load bound as every key does; a key of a
 * {@code mcp-param:} part names a stateful server's handle, and the bound leaves it on its ring
 * owner, where its state is ({@link #isParam}).
 *
 * <p>Stateless and thread-safe; a few header lookups per exchange.
 */
final class McpKeys {

    static final String METHOD = "mcp-method";
    static final String NAME = "mcp-name";
    static final String PARAM = "mcp-param:";

    private static final Logger LOG = LoggerFactory.getLogger(McpKeys.class);

    private McpKeys() {
    }

    /**
     * Whether {@code key} is a key of a {@code mcp-param:} part: a handle of a stateful server, which
     * the load bound leaves on its ring owner ({@link io.github.agentlb.core.bounded.BoundedLoads#placeStateful}).
     */
    static boolean isParam(String key) {
        return key.startsWith(PARAM);
    }

    /** Whether {@code lowerCasePart} of a key list names an MCP key. */
    static boolean names(String lowerCasePart) {
        return lowerCasePart.equals(METHOD) || lowerCasePart.equals(NAME) || lowerCasePart.startsWith(PARAM);
    }

    /**
     * The key of one part of a key list ({@link #names} is true for it).
     *
     * @throws IllegalArgumentException naming {@code keys} and the part when a param has no name or
     *     one that is not a header token
     */
    static Expression parse(String part, String keys) {
        String lower = part.toLowerCase(Locale.ROOT);
        if (lower.equals(METHOD)) {
            return mirrored(McpHeaders.METHOD, METHOD + ':');
        }
        if (lower.equals(NAME)) {
            return mirrored(McpHeaders.NAME, NAME + ':');
        }
        String name = part.substring(PARAM.length()).strip();
        if (name.isEmpty() || !isToken(name)) {
            throw new IllegalArgumentException("keys has an unknown part '" + part + "' (mcp-param:<Name>, the Name of an"
                    + " x-mcp-header, a header token), was '" + keys + "'");
        }
        return mirrored(McpHeaders.paramHeader(name), PARAM + name.toLowerCase(Locale.ROOT) + ':');
    }

    /** {@code prefix + decoded value} of {@code header} when the request's revision is trusted, else null. */
    static Expression mirrored(String header, String prefix) {
        return new ExpressionAdapter() {
            @Override
            public Object evaluate(Exchange exchange) {
                Message message = exchange.getMessage();
                String raw = message.getHeader(header, String.class);
                if (raw == null) {
                    return null;
                }
                String version = message.getHeader(McpHeaders.PROTOCOL_VERSION, String.class);
                if (!McpHeaders.mirrorsTrusted(version)) {
                    LOG.debug("Not keyed by {} of exchange {}: {} {} mirrors unchecked headers (trusted from {})", header,
                            exchange.getExchangeId(), McpHeaders.PROTOCOL_VERSION,
                            version == null ? "absent" : DecisionLog.loggable(version), McpHeaders.FIRST_VALIDATED_VERSION);
                    return null;
                }
                String value = McpHeaders.decode(raw);
                if (value == null) {
                    LOG.debug("Not keyed by {} of exchange {}: not a valid value", header, exchange.getExchangeId());
                    return null;
                }
                return prefix + value;
            }

            @Override
            public String toString() {
                return prefix.substring(0, prefix.length() - 1);
            }
        };
    }

    /**
     * The names of the {@code mcp-param:} parts of a key list, as written ({@code mcp-param:handle}
     * gives {@code handle}): the tool arguments whose server-minted handles are sealed too
     * ({@link McpHandleAffinity}). Empty for none.
     */
    static Set<String> paramNames(String keys) {
        Set<String> names = new LinkedHashSet<>();
        for (String part : keys.split(",")) {
            String p = part.strip();
            if (p.regionMatches(true, 0, PARAM, 0, PARAM.length()) && !p.substring(PARAM.length()).isBlank()) {
                names.add(p.substring(PARAM.length()).strip());
            }
        }
        return names;
    }

    /** RFC 9110 {@code token}: 1*tchar. */
    private static boolean isToken(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean tchar = c > ' ' && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
            if (!tchar) {
                return false;
            }
        }
        return true;
    }
}
