package io.github.agentlb.camel;

import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.core.session.SessionIds;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions learned from answers, on the request path: a request that carries a session id goes to
 * the agent sealed in it (restoring that agent's own id), and an answer that carries a session id
 * goes back to the client with its agent sealed in ({@link SessionIds}). Immutable and
 * thread-safe; one per {@link LearnedSessions} setting.
 */
final class SessionAffinity {

    private static final Logger LOG = LoggerFactory.getLogger(SessionAffinity.class);

    private final LearnedSessions settings;
    private final SessionIds ids;
    private final String header;
    /** A2A task affinity, null when off. */
    private final A2aTaskAffinity tasks;
    /** MCP handle affinity, null when off. */
    private final McpHandleAffinity handles;

    /**
     * @param settings   the learned sessions (disabled: only handles, no session header)
     * @param keyHandles the arguments named by {@code mcp-param:} keys, whose minted handles are sealed too
     */
    SessionAffinity(LearnedSessions settings, Set<String> keyHandles) {
        this.settings = settings;
        this.ids = settings.ids();
        this.header = settings.header();
        this.tasks = settings.a2aTasks() ? new A2aTaskAffinity(ids) : null;
        // Argument names compared ignoring case, as the headers that mirror them: mcp-param:Handle names argument handle.
        Set<String> names = new LinkedHashSet<>();
        settings.mcpHandles().forEach(name -> names.add(name.toLowerCase(Locale.ROOT)));
        keyHandles.forEach(name -> names.add(name.toLowerCase(Locale.ROOT)));
        this.handles = names.isEmpty() ? null : new McpHandleAffinity(ids, Collections.unmodifiableSet(names));
    }

    /**
     * The affinity of {@code settings} and of the handles the {@code mcp-param:} parts of
     * {@code keys} name; null when sessions are not learned and no key names a handle.
     */
    static SessionAffinity of(LearnedSessions settings, String keys) {
        Set<String> keyHandles = McpKeys.paramNames(keys);
        return settings.isEnabled() || !keyHandles.isEmpty() ? new SessionAffinity(settings, keyHandles) : null;
    }

    /**
     * Logs one WARN line at a balancer's start when ids, task ids or handles are sealed without a
     * secret: by learned sessions ({@link LearnedSessions#warnWithoutSecret}), or by the
     * {@code mcp-param:} parts of {@code keys} alone.
     */
    static void warnWithoutSecret(LearnedSessions settings, String keys, Logger log) {
        settings.warnWithoutSecret(log);
        Set<String> keyHandles = McpKeys.paramNames(keys);
        if (!settings.isEnabled() && !settings.hasSecret() && !keyHandles.isEmpty()) {
            log.warn("MCP handles ({}, of the mcp-param: keys) without a sessionSecret: damaged handles are rejected, forged"
                    + " ones are not; set the same secret on every replica", String.join(",", keyHandles));
        }
    }

    /** The learned sessions' header, null when sessions are not learned (handles only). */
    String header() {
        return header;
    }

    LearnedSessions settings() {
        return settings;
    }

    /**
     * Where an exchange's session takes it.
     *
     * @return null when the exchange has no session id (the strategy decides); a pin to the agent
     *     holding the session; or, when that agent left and the setting is {@code NEW_PICK}, a pin
     *     without agent (the strategy decides and the session header is not sent)
     * @throws SessionRejectedException 400 for an id that is not intact, 404 when the agent left
     *     and the setting is {@code NOT_FOUND}
     */
    Pin pin(Exchange exchange, BalancerState state) throws SessionRejectedException {
        // The client's header, never a query parameter camel-netty-http's consumer made one (a token in a URL is logged).
        String clientId = header == null ? null : ClientHeaders.first(exchange.getIn(), header);
        if (clientId == null) {
            if (header != null && exchange.getIn().getHeader(header) != null) {
                exchange.getIn().removeHeader(header); // a URL's: no session id goes to the agent (the header is the balancer's)
            }
            Pin task = tasks == null ? null : tasks.pin(exchange, state);
            return task != null || handles == null ? task : handles.pin(exchange, state);
        }
        if (clientId.length() > SessionIds.MAX_ID_CHARS) {
            LOG.debug("Rejected {} of {} characters: longer than a session id of this balancer", header, clientId.length());
            throw new SessionRejectedException(header + " is longer than the " + SessionIds.MAX_ID_CHARS + " characters of a"
                    + " session id this balancer reads (" + clientId.length() + "): an agent's own session id of over"
                    + " about 3000 characters cannot be sealed and read back; start a new session without it", exchange, 400);
        }
        SessionIds.Sealed sealed = clientId.isEmpty() ? null : ids.decode(clientId);
        if (sealed == null) {
            LOG.debug("Rejected {} {}: not a session id of this balancer", header, DecisionLog.loggable(clientId));
            throw new SessionRejectedException(header + " is not a session id this balancer gave: damaged, forged or"
                    + " made with another secret; start a new session without it", exchange, 400);
        }
        List<String> members = state.members();
        if (members.contains(sealed.agent())) {
            return new Pin(sealed.agent(), sealed.agentSessionId(), null);
        }
        if (settings.whenAgentGone() == LearnedSessions.WhenAgentGone.NEW_PICK) {
            LOG.debug("Session of agent {} that left: a new pick", sealed.agent());
            return Pin.NEW_PICK;
        }
        throw new SessionRejectedException("The agent holding this session has left (" + DecisionLog.loggable(sealed.agent())
                + "): start a new session", exchange, 404);
    }

    /** The selection of a pinned exchange: the session's agent only, never another (it holds the session). */
    static Selection selectionOf(Pin pin) {
        String agent = pin.agent();
        return new Selection(List.of(agent).iterator(), () -> "session=" + DecisionLog.loggable(agent));
    }

    /** Sets the agent's own session id on an attempt about to be sent, or removes it for a new pick. */
    void restore(Message attempt, Pin pin) {
        if (pin.agent() == null) {
            if (header != null) {
                attempt.removeHeader(header);
            }
        } else if (pin.agentBody() != null) {
            attempt.setBody(pin.agentBody());
            attempt.removeHeader(Exchange.CONTENT_LENGTH);
            pin.agentHeaders().forEach(attempt::setHeader);
        } else {
            attempt.setHeader(header, pin.agentSessionId());
        }
    }

    /**
     * Readies the message of the attempt that ends the exchange for the client, before it becomes the
     * exchange's: an answer's session id sealed ({@link #learned}); after a failure, what
     * {@link #restore} set undone, the client's own session id, body and headers back as
     * {@code client} still holds them, so that a route answering the failure itself never hands the
     * client what only the agent was sent.
     *
     * @param pin the exchange's pin, or null when it has none
     */
    void ended(String agent, Exchange attempt, Message client, Pin pin) {
        if (attempt.getException() == null) {
            learned(agent, attempt.getMessage());
        } else if (pin != null) {
            unrestore(attempt.getMessage(), client, pin);
        }
    }

    private void unrestore(Message failed, Message client, Pin pin) {
        if (pin.agentBody() != null) {
            failed.setBody(client.getBody());
            putBack(failed, client, Exchange.CONTENT_LENGTH);
            pin.agentHeaders().keySet().forEach(name -> putBack(failed, client, name));
        } else if (header != null) {
            putBack(failed, client, header);
        }
    }

    private static void putBack(Message failed, Message client, String name) {
        Object value = client.getHeader(name);
        if (value == null) {
            failed.removeHeader(name);
        } else {
            failed.setHeader(name, value);
        }
    }

    /** Seals {@code agent} into the session id an answer carries, if any, for the client. */
    private void learned(String agent, Message answer) {
        String agentId = header == null ? null : answer.getHeader(header, String.class);
        if (agentId != null && !agentId.isEmpty() && ids.decode(agentId) == null) {
            answer.setHeader(header, clientId(agent, agentId));
        }
        if (tasks != null) {
            tasks.sealAnswer(agent, answer);
        }
        if (handles != null) {
            handles.sealAnswer(agent, answer);
        }
    }

    /**
     * Whether the answer to {@code exchange} has ids sealed in its body: A2A tasks are on and it is
     * an A2A request, or MCP handles are on and it is a 2026-07-28 tool call.
     */
    boolean sealsAnswerOf(Exchange exchange) {
        return tasks != null && exchange.getProperty(A2aTaskAffinity.METHOD_PROPERTY) != null
                || handles != null && exchange.getProperty(McpHandleAffinity.TOOL_CALL_PROPERTY) != null;
    }

    /** The answer's body to {@code exchange} with {@code agent} sealed into its task ids or handles ({@link #sealsAnswerOf}). */
    byte[] sealedAnswer(Exchange exchange, String agent, byte[] body) {
        if (tasks != null && exchange.getProperty(A2aTaskAffinity.METHOD_PROPERTY) != null) {
            return tasks.sealed(agent, body);
        }
        return handles != null && exchange.getProperty(McpHandleAffinity.TOOL_CALL_PROPERTY) != null
                ? handles.sealed(exchange, agent, body) : body;
    }

    /**
     * The id a client sees for session {@code agentSessionId} of {@code agent}. One over
     * {@link SessionIds#MAX_ID_CHARS} is still given (the agent made the session), with a warning:
     * its client's next request will get 400.
     */
    String clientId(String agent, String agentSessionId) {
        String sealed = ids.encode(agent, agentSessionId);
        if (sealed.length() > SessionIds.MAX_ID_CHARS) {
            LOG.warn("Agent {} gave a session id of {} characters: sealed it has {}, over the {} a balancer reads back,"
                    + " so its client's next request will get 400; keep agents' session ids under about 3000 characters",
                    DecisionLog.loggable(agent), agentSessionId.length(), sealed.length(), SessionIds.MAX_ID_CHARS);
        }
        return sealed;
    }

    /**
     * A session's agent and that agent's own session id; all null for a new pick. An A2A task's or
     * MCP handle's pin has no session id but the request body the agent is sent
     * ({@link A2aTaskAffinity}, {@link McpHandleAffinity}), and a handle's the headers that mirror it.
     *
     * @param agentHeaders request headers set to the agent's own values (names as the client sent them)
     */
    record Pin(String agent, String agentSessionId, byte[] agentBody, Map<String, String> agentHeaders) {
        static final Pin NEW_PICK = new Pin(null, null, null);

        /** A pin that sets no request header but the session's. */
        Pin(String agent, String agentSessionId, byte[] agentBody) {
            this(agent, agentSessionId, agentBody, Map.of());
        }
    }
}
