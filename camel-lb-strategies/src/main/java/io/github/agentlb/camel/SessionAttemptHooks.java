package io.github.agentlb.camel;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.camel.Exchange;

/**
 * The hooks of one attempt while learned sessions are on: the bodies of A2A tasks and MCP handles
 * ({@link io.github.agentlb.core.session.LearnedSessions#a2aTasks()},
 * {@link io.github.agentlb.core.session.LearnedSessions#mcpHandles()}) answered here, from the
 * state the exchange started with; everything else as its {@link Attempts} answers it. The request
 * body is the pinned task's or handle's, with its agent's own id ({@link SessionAffinity.Pin#agentBody()}),
 * and a handle's mirrored headers are set too; a JSON answer to an A2A request or a 2026-07-28 tool
 * call has its task ids or handles sealed with this attempt's agent.
 *
 * <p>One small record per attempt while learned sessions are on; none otherwise (the attempt's
 * hooks are then its {@link Attempts}). Immutable and thread-safe, as the hooks it wraps are.
 *
 * @param attempts the exchange's attempts, whose hooks these extend
 * @param sessions the learned sessions of the state the exchange started with
 * @param exchange the exchange (not the attempt's copy): whether it is an A2A request or a tool call
 * @param pin      where the exchange's session or task took it, null when it has none
 * @param agent    the attempt's agent
 */
record SessionAttemptHooks(AttemptHooks attempts, SessionAffinity sessions, Exchange exchange, SessionAffinity.Pin pin,
        String agent) implements AttemptHooks {

    /** The hooks of an attempt of {@code attempts}: these with learned sessions on, else {@code attempts} itself. */
    static AttemptHooks of(AttemptHooks attempts, SessionAffinity sessions, Exchange exchange, SessionAffinity.Pin pin,
            String agent) {
        return sessions == null ? attempts : new SessionAttemptHooks(attempts, sessions, exchange, pin, agent);
    }

    @Override
    public Collection<String> requestHeaders() {
        if (pin == null || pin.agentHeaders().isEmpty()) {
            return attempts.requestHeaders();
        }
        List<String> headers = new ArrayList<>(attempts.requestHeaders());
        headers.addAll(pin.agentHeaders().keySet());
        return headers;
    }

    @Override
    public byte[] requestBody() {
        return pin == null ? null : pin.agentBody();
    }

    @Override
    public boolean repeatable(boolean byRfc) {
        return attempts.repeatable(byRfc);
    }

    @Override
    public boolean isBusy(int status, String retryAfter) {
        return attempts.isBusy(status, retryAfter);
    }

    @Override
    public String clientValue(String header, String value) {
        return attempts.clientValue(header, value);
    }

    @Override
    public boolean rewritesJsonAnswer() {
        return sessions.sealsAnswerOf(exchange);
    }

    @Override
    public byte[] clientAnswer(byte[] body) {
        return sessions.sealsAnswerOf(exchange) ? sessions.sealedAnswer(exchange, agent, body) : body;
    }

    @Override
    public Runnable whenAgentDown(Runnable end) {
        return attempts.whenAgentDown(end);
    }

    @Override
    public boolean answerHead() {
        return attempts.answerHead();
    }

    @Override
    public void answerEnds() {
        attempts.answerEnds();
    }

    @Override
    public boolean passesOnUnsettled() {
        return attempts.passesOnUnsettled();
    }

    @Override
    public Runnable whenHedgeLost(Runnable end) {
        return attempts.whenHedgeLost(end);
    }
}
