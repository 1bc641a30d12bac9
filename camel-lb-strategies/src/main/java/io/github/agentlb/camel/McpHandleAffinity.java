package io.github.agentlb.camel;

import io.github.agentlb.core.key.McpHeaders;
import io.github.agentlb.core.session.McpHandles;
import io.github.agentlb.core.session.SessionIds;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP handle affinity, part of learned sessions ({@link io.github.agentlb.core.session.LearnedSessions#mcpHandles()}):
 * a handle a server mints and returns in a 2026-07-28 tool result is sealed with the server's name as
 * session ids are ({@link SessionIds}, the same secret), and a tool call that carries it as an
 * argument goes to that server, with the server's own handle in the body and in the
 * {@code Mcp-Param-*} headers that mirror it. Read only for requests whose {@code MCP-Protocol-Version}
 * is 2026-07-28 or later ({@link McpHeaders#mirrorsTrusted}) and whose {@code Mcp-Method}, when
 * sent, is {@code tools/call}; bodies up to {@value A2aTaskAffinity#MAX_BODY_BYTES} bytes. A handle
 * the client chose (not of {@link SessionIds}' form) is passed as it is, and given back as it is: the
 * strategy decides (a {@code mcp-param:} key hashes it). Immutable and thread-safe.
 */
final class McpHandleAffinity {

    /**
     * Exchange property set on a 2026-07-28 tool call: its answer's handles are sealed. Its value:
     * the handle the client chose when the call carries one that is not sealed (the answer gives it
     * back as it is), else empty.
     */
    static final String TOOL_CALL_PROPERTY = "agentlb.mcpToolCall";
    private static final Logger LOG = LoggerFactory.getLogger(McpHandleAffinity.class);

    private final SessionIds ids;
    private final Set<String> names;

    McpHandleAffinity(SessionIds ids, Set<String> names) {
        this.ids = ids;
        this.names = names;
    }

    /**
     * Where a tool call's handle takes it.
     *
     * @return null when the exchange is no 2026-07-28 tool call carrying a handle this balancer
     *     sealed (the strategy decides); else a pin to the handle's server, with the body and
     *     headers that server is sent
     * @throws SessionRejectedException 400 for a handle of this balancer's form that it did not
     *     seal (damaged, forged, another secret's), 404 when the handle's server left (its state
     *     cannot move to another)
     */
    SessionAffinity.Pin pin(Exchange exchange, BalancerState state) throws SessionRejectedException {
        Message in = exchange.getIn();
        if (!McpHeaders.mirrorsTrusted(in.getHeader(McpHeaders.PROTOCOL_VERSION, String.class))) {
            return null;
        }
        String method = in.getHeader(McpHeaders.METHOD, String.class);
        if (method != null && !method.equals(McpHandles.TOOLS_CALL)) {
            return null;
        }
        byte[] body = A2aTaskAffinity.body(in);
        McpHandles.Call call = body == null || body.length > A2aTaskAffinity.MAX_BODY_BYTES ? null : McpHandles.call(body, names);
        if (call == null) {
            return null;
        }
        boolean chosen = call.handle() != null && !SessionIds.looksSealed(call.handle());
        exchange.setProperty(TOOL_CALL_PROPERTY, chosen ? call.handle() : "");
        if (call.handle() == null || chosen) {
            return null;
        }
        SessionIds.Sealed sealed = ids.decode(call.handle());
        if (sealed == null) {
            LOG.debug("Rejected MCP handle {} {}: not a handle of this balancer", call.argument(),
                    DecisionLog.loggable(call.handle()));
            throw new SessionRejectedException("The " + call.argument() + " of this tools/call is not a handle this"
                    + " balancer gave: damaged, forged or made with another secret", exchange, 400, "bad handle");
        }
        if (!state.members().contains(sealed.agent())) {
            throw new SessionRejectedException("The server holding this " + call.argument() + " has left ("
                    + DecisionLog.loggable(sealed.agent()) + "): the handle is gone; create a new one", exchange, 404,
                    "handle not found");
        }
        // The headers that mirror the handle (x-mcp-header) get the server's own, as the body does.
        Map<String, String> headers = new LinkedHashMap<>();
        in.getHeaders().forEach((name, value) -> {
            if (name.regionMatches(true, 0, McpHeaders.PARAM_PREFIX, 0, McpHeaders.PARAM_PREFIX.length())
                    && value instanceof String text && call.handle().equals(McpHeaders.decode(text))) {
                headers.put(name, headerValue(sealed.agentSessionId()));
            }
        });
        return new SessionAffinity.Pin(sealed.agent(), null,
                McpHandles.withHandle(body, call.argument(), sealed.agentSessionId()), Map.copyOf(headers));
    }

    /** Seals {@code agent} into the handles of the answer to a tool call, if it is one. */
    void sealAnswer(String agent, Message answer) {
        if (answer.getExchange().getProperty(TOOL_CALL_PROPERTY) == null) {
            return;
        }
        byte[] body = A2aTaskAffinity.body(answer);
        if (body != null && body.length <= A2aTaskAffinity.MAX_BODY_BYTES) {
            byte[] sealed = sealed(answer.getExchange(), agent, body);
            if (sealed != body) {
                answer.setBody(sealed);
                answer.removeHeader(Exchange.CONTENT_LENGTH);
            }
        }
    }

    /**
     * The answer {@code body} to tool call {@code exchange} with {@code agent} sealed into its
     * handles; those already sealed, and the one the client chose for the call, left as they are.
     */
    byte[] sealed(Exchange exchange, String agent, byte[] body) {
        String chosen = exchange.getProperty(TOOL_CALL_PROPERTY, "", String.class);
        return McpHandles.sealAnswer(body, names, h -> h.equals(chosen) || ids.decode(h) != null ? h : ids.encode(agent, h));
    }

    /** A mirrored header's value for {@code handle}: as it is when it may be, else MCP's base64 form. */
    private static String headerValue(String handle) {
        return handle.equals(McpHeaders.decode(handle)) && handle.strip().equals(handle) ? handle
                : "=?base64?" + Base64.getEncoder().encodeToString(handle.getBytes(StandardCharsets.UTF_8)) + "?=";
    }
}
