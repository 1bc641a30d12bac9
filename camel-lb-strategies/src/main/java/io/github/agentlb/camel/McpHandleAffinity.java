package io.github.agentlb.camel;

import io.github.agentlb.core.key.McpHeaders;
import io.github.agentlb.core.session.McpHandles;
import io.github.agentlb.core.session.SessionIds;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
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
     * the set of handles the call carries that are not sealed (the client chose them; the answer
     * gives them back as they are), empty for none.
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
     *     seal (damaged, forged, another secret's) or for handles of two servers in one call, 404
     *     when the handles' server left (its state cannot move to another)
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
        if (call == null && body != null && (body.length > A2aTaskAffinity.MAX_BODY_BYTES || A2aTaskAffinity.heldInPart(exchange, body))
                && McpHandles.leadingSealedHandle(body, A2aTaskAffinity.MAX_BODY_BYTES, names)) {
            // About a handle, too long to route by it: only its server may take it (an A2A task call's rule).
            throw new SessionRejectedException("This tools/call carries a handle and is longer than the "
                    + A2aTaskAffinity.MAX_BODY_BYTES + " bytes the balancer reads whole to send it to the handle's server:"
                    + " send large arguments by reference", exchange, 413, "tool call too long");
        }
        if (call == null) {
            return null;
        }
        // Handles the client chose (not of the sealed form) go as they are, and come back so.
        Set<String> chosen = new HashSet<>();
        Map<String, String> raw = new LinkedHashMap<>();
        String agent = null;
        for (Map.Entry<String, String> handle : call.handles().entrySet()) {
            if (!SessionIds.looksSealed(handle.getValue())) {
                chosen.add(handle.getValue());
                continue;
            }
            SessionIds.Sealed sealed = ids.decode(handle.getValue());
            if (sealed == null) {
                LOG.debug("Rejected MCP handle {} {}: not a handle of this balancer", handle.getKey(),
                        DecisionLog.loggable(handle.getValue()));
                throw new SessionRejectedException("The " + handle.getKey() + " of this tools/call is not a handle this"
                        + " balancer gave: damaged, forged or made with another secret", exchange, 400, "bad handle");
            }
            if (agent != null && !agent.equals(sealed.agent())) {
                throw new SessionRejectedException("This tools/call carries handles of two servers ("
                        + DecisionLog.loggable(agent) + ", " + DecisionLog.loggable(sealed.agent()) + "): no server holds both",
                        exchange, 400, "bad handle");
            }
            agent = sealed.agent();
            raw.put(handle.getKey(), sealed.agentSessionId());
        }
        exchange.setProperty(TOOL_CALL_PROPERTY, chosen);
        if (agent == null) {
            return null;
        }
        if (!state.members().contains(agent)) {
            throw new SessionRejectedException("The server holding this " + String.join(", ", raw.keySet()) + " has left ("
                    + DecisionLog.loggable(agent) + "): the handle is gone; create a new one", exchange, 404,
                    "handle not found");
        }
        // The headers that mirror a handle (x-mcp-header) get the server's own, as the body does.
        Map<String, String> headers = new LinkedHashMap<>();
        in.getHeaders().forEach((name, value) -> {
            if (name.regionMatches(true, 0, McpHeaders.PARAM_PREFIX, 0, McpHeaders.PARAM_PREFIX.length())
                    && value instanceof String text) {
                String decoded = McpHeaders.decode(text);
                call.handles().forEach((argument, handle) -> {
                    if (handle.equals(decoded) && raw.containsKey(argument)) {
                        headers.put(name, headerValue(raw.get(argument)));
                    }
                });
            }
        });
        return new SessionAffinity.Pin(agent, null, McpHandles.withHandles(body, raw), Map.copyOf(headers));
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
     * handles; those already sealed, those the client chose for the call, and one too long to seal
     * (over {@link SessionIds#MAX_ID_CHARS} characters sealed, WARN) left as they are.
     */
    byte[] sealed(Exchange exchange, String agent, byte[] body) {
        Set<?> chosen = exchange.getProperty(TOOL_CALL_PROPERTY, Set.class);
        return McpHandles.sealAnswer(body, names, h -> {
            if (chosen != null && chosen.contains(h) || ids.decode(h) != null) {
                return h;
            }
            String sealed = ids.encode(agent, h);
            if (sealed.length() > SessionIds.MAX_ID_CHARS) {
                LOG.warn("Server {} minted a handle of {} characters: sealed it would have {}, over the {} a balancer reads"
                        + " back, so it goes to the client as it is and its calls to the strategy's pick; keep handles under"
                        + " about 3000 characters", DecisionLog.loggable(agent), h.length(), sealed.length(),
                        SessionIds.MAX_ID_CHARS);
                return h;
            }
            return sealed;
        });
    }

    /** A mirrored header's value for {@code handle}: as it is when it may be, else MCP's base64 form. */
    private static String headerValue(String handle) {
        return handle.equals(McpHeaders.decode(handle)) && handle.strip().equals(handle) ? handle
                : "=?base64?" + Base64.getEncoder().encodeToString(handle.getBytes(StandardCharsets.UTF_8)) + "?=";
    }
}
