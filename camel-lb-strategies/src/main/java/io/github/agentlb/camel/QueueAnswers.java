package io.github.agentlb.camel;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.Exchange;

/**
 * How {@link RequestQueue} answers an exchange that leaves it without an agent, each with the
 * exception its route catches (docs/llm-agents.md, "How an exchange leaves the queue without an
 * agent"): the queue full, the queue timeout, the client gone, the balancer stopping, the
 * exchange's tenant unreadable; none hands back a client's own answer headers
 * ({@link AnswerRules#dropClientEchoes}). Stateless; called outside the queue's lock.
 */
final class QueueAnswers {

    private QueueAnswers() {
    }

    /** Sets on {@code exchange} the answer of a full queue: {@link AgentsBusyException}, {@code Retry-After: 1}. */
    static void full(Exchange exchange, FlowControl flow) {
        exchange.getMessage().setHeader(AnswerRules.RETRY_AFTER, "1");
        exchange.setException(new AgentsBusyException("Every agent is at its limit of "
                + flow.maxInFlightPerAgent() + " requests in flight and the queue is full (" + flow.queueSize()
                + "): retry after 1 s", exchange, 1));
        AnswerRules.dropClientEchoes(exchange);
    }

    /**
     * Sets on {@code exchange}, which reached no agent, the answer of a balancer that is stopping
     * or has no agent left to try: {@link NoAgentAvailableException} naming the agents ejected or
     * marked down.
     */
    static void noAgentToTry(Exchange exchange, boolean stopping, BalancerState state) {
        if (stopping) {
            exchange.setException(new NoAgentAvailableException("The balancer is stopping: no agent had room", exchange, null));
            AnswerRules.dropClientEchoes(exchange);
            return;
        }
        Set<String> ejected = state.detector.ejected();
        exchange.setException(new NoAgentAvailableException("No agent to try: every agent is ejected, marked down or failing"
                + (ejected.isEmpty() ? "" : " (ejected: " + String.join(", ", ejected) + ")")
                + ", so the request does not wait in the queue", exchange, null, List.of(), ejected));
        AnswerRules.dropClientEchoes(exchange);
    }

    /** The waiting when no agent was left to try ({@link #noAgentToTry(Exchange, boolean, BalancerState)}). */
    static void noAgentToTry(List<WaitingExchange> waiting, BalancerState state) {
        for (WaitingExchange w : waiting) {
            noAgentToTry(w.exchange, false, state);
            w.callback.done(false);
        }
    }

    /** Fails {@code exchange} at once with {@code e} (its tenant could not be read): answered, never left waiting. */
    static boolean failed(Exchange exchange, AsyncCallback callback, Throwable e) {
        exchange.setException(e);
        AnswerRules.dropClientEchoes(exchange);
        callback.done(true);
        return true;
    }

    /** The waiting whose deadline passed at {@code nowNanos}: {@link QueueTimeoutException}, with how long each waited. */
    static void expired(List<WaitingExchange> expired, long nowNanos) {
        for (WaitingExchange w : expired) {
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(nowNanos - w.sinceNanos);
            w.exchange.setException(new QueueTimeoutException("No agent had room within the queue timeout: waited "
                    + waitedMs + " ms", w.exchange, waitedMs));
            AnswerRules.dropClientEchoes(w.exchange);
            w.callback.done(false);
        }
    }

    /** An exchange whose client left while it waited. */
    static void left(WaitingExchange w) {
        w.exchange.removeProperty(AgentLb.QUEUED_PROPERTY);
        w.exchange.setException(new CamelExchangeException("The client left while the exchange was queued", w.exchange));
        AnswerRules.dropClientEchoes(w.exchange);
        w.callback.done(false);
    }

    /** The waiting when the balancer stopped, or its context began to stop. */
    static void stopped(List<WaitingExchange> waiting) {
        for (WaitingExchange w : waiting) {
            w.exchange.setException(new NoAgentAvailableException("The balancer stopped while the exchange was queued",
                    w.exchange, null));
            AnswerRules.dropClientEchoes(w.exchange);
            w.callback.done(false);
        }
    }
}
