package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReports;
import java.util.Collection;
import java.util.List;

/**
 * What a child that sends the client's request and writes an agent's answer to the client itself
 * (a streaming child) asks the balancer, before the balancer sees the answer: which request headers
 * the attempt sets and which body it sends (an A2A task's agent's own id restored), whether the
 * answer is busy (to be held back, as the balancer may try another agent), what the client sees of
 * each answer header (a learned session id sealed, a load report left for the balancer) and of a
 * JSON answer's body (A2A task ids sealed). The balancer sets its hooks on each attempt's exchange copy as
 * property {@value #PROPERTY}, answered from the state the attempt was chosen with; a child that
 * finds none (Camel's own balancers, no balancer) uses {@link #NONE}. The child calls no
 * balancer method: these hooks are all it needs.
 *
 * <p>Thread-safe: a child may call them from any thread, while its attempt runs.
 */
public interface AttemptHooks {

    /** Exchange property of an attempt holding its hooks. */
    String PROPERTY = "agentlb.attemptHooks";

    /**
     * No balancer of this library: no learned sessions, {@link AnswerRules#DEFAULT}'s busy answers,
     * load reports still kept from the client.
     */
    AttemptHooks NONE = new AttemptHooks() {
        @Override
        public Collection<String> requestHeaders() {
            return List.of(LoadReports.FORMAT_HEADER);
        }

        @Override
        public boolean isBusy(int status, String retryAfter) {
            return AnswerRules.DEFAULT.isBusy(status, retryAfter);
        }

        @Override
        public String clientValue(String header, String value) {
            return value;
        }
    };

    /**
     * The request headers the balancer sets on this attempt (the ORCA load report ask; the agent's
     * own session id, restored): the child sends each as the attempt's message has it, or not at
     * all when the message has none; never the client's own value. Case-insensitive names.
     */
    Collection<String> requestHeaders();

    /**
     * The request body this attempt sends in place of the client's, or null (the default) to send
     * the client's: the body of an A2A task call with the task's agent's own id restored
     * ({@link io.github.agentlb.core.session.LearnedSessions#a2aTasks()}). The child sends it whole,
     * with its own {@code Content-Length}. Only asked for a request whose body the child holds
     * whole; a body still arriving from the client goes as it came.
     */
    default byte[] requestBody() {
        return null;
    }

    /**
     * Whether this attempt's answer, when it is JSON ({@code Content-Type: application/json}) of
     * at most {@value #MAX_REWRITTEN_ANSWER_BYTES} bytes, is held whole and passed through
     * {@link #clientAnswer} before the client gets it: the answer to an A2A request, whose task ids
     * are sealed. When it is Server-Sent Events ({@code text/event-stream}), the answer streams and
     * each event's data (up to {@value #MAX_REWRITTEN_ANSWER_BYTES} bytes an event) passes through
     * {@link #clientAnswer} as the event ends. A larger answer or event, or any other type, goes to
     * the client as it came. False by default.
     */
    default boolean rewritesJsonAnswer() {
        return false;
    }

    /** The largest answer body {@link #rewritesJsonAnswer} holds, bytes (1 MiB). */
    int MAX_REWRITTEN_ANSWER_BYTES = A2aTaskAffinity.MAX_BODY_BYTES;

    /**
     * The body the client gets for a JSON answer held whole, or the data of one Server-Sent Event
     * ({@link #rewritesJsonAnswer}): the A2A task ids in {@code body} sealed with the attempt's
     * agent; {@code body} itself when nothing changes (the default). The child sends a whole
     * answer with its own {@code Content-Length}.
     */
    default byte[] clientAnswer(byte[] body) {
        return body;
    }

    /**
     * Whether this attempt's request may be sent twice: when a pooled connection fails before any
     * byte of the answer, after the request was written (the agent may have closed it as idle while
     * the request was on its way), the child sends it again on a new connection only then. The
     * balancer's one rule ({@link FailoverPolicy#repeatable}: its {@code idempotentMethods}, or an
     * {@code Idempotency-Key}), the one its failover and hedging follow; without a balancer
     * (the default) {@code byRfc}, the child's own reading of RFC 9110's idempotent methods and the key.
     */
    default boolean repeatable(boolean byRfc) {
        return byRfc;
    }

    /**
     * Whether an answer with {@code status} and this {@code Retry-After} (or null) is busy
     * ({@link AttemptOutcome#BUSY}), or a 503 without {@code Retry-After} that may go elsewhere
     * (an idempotent request: {@link AnswerRules}): the balancer may send the request to another
     * agent, so the child holds the answer back rather than streaming it, and leaves it on the
     * attempt's message.
     */
    boolean isBusy(int status, String retryAfter);

    /**
     * The {@code Retry-After} a client gets with an answer passed on as it came (not held back) that
     * rests its agent but names none: a 429, or a 503 that rests its agent (a POST's, which goes to
     * no other agent), so that the client waits as long as the balancer keeps the agent resting.
     * Null (the default) to pass the answer's own.
     *
     * @return delta-seconds, or null
     */
    default String clientRetryAfter(int status, String retryAfter) {
        return null;
    }

    /**
     * The value of an answer header as the client sees it: a session id the agent minted sealed
     * with the agent's name (learned sessions), any other value unchanged.
     */
    String clientValue(String header, String value);

    /**
     * Whether an answer header is a load report ({@code X-Agent-*}, ORCA's
     * {@value LoadReports#HEADER}): never passed to the client; the child leaves it on the
     * attempt's message, where the balancer reads it when the attempt completes.
     */
    default boolean isLoadReport(String header) {
        return header.regionMatches(true, 0, "X-Agent-", 0, 8) || LoadReports.HEADER.equalsIgnoreCase(header);
    }

    /**
     * The answer's last bytes are about to go to the client, before the child's call ends: the
     * balancer counts the attempt out of its agent's requests in flight now (its outcome still comes
     * with the callback), so that a client that sends again as soon as it has the answer finds the
     * place free ({@code maxInFlightPerAgent}, a least-request count). Idempotent; nothing by default.
     */
    default void answerEnds() {
    }

    /**
     * Registers {@code end}, which ends this attempt's call when its agent is marked down by active
     * health checks while the call waits for its answer (HAProxy's {@code on-marked-down
     * shutdown-sessions}; {@link HealthCheckSettings}). {@code end} may run on any thread and only
     * once; it should end the call as failed after send (an idempotent request then goes to another
     * agent). The child runs the returned action when its call ends, or once its answer has begun.
     * By default, and while health checks do not end calls, nothing is registered.
     *
     * @return what deregisters {@code end}
     */
    default Runnable whenAgentDown(Runnable end) {
        return NOTHING;
    }

    /**
     * The answer's head came and is about to go to the client (not held back as busy): whether this
     * attempt may answer. False when another attempt of the same hedged request answered first
     * ({@link HedgingSettings}): the child then sends nothing to the client, ends its call as
     * cancelled and completes the attempt. True by default, and always without hedging.
     */
    default boolean answerHead() {
        return true;
    }

    /**
     * A busy or error answer held back grew past what the child holds: whether it may go to the
     * client as it comes (the child then also claims it, {@link #answerHead}). False for a leg of a
     * hedged request ({@link HedgingSettings}) while another of its legs runs, which may still answer
     * well: the child then ends the call cancelled (not counted against its agent), never passing
     * that answer on. True by default, and always without hedging.
     */
    default boolean passesOnUnsettled() {
        return true;
    }

    /**
     * Registers {@code end}, which ends this attempt's call when another attempt of the same hedged
     * request wins ({@link HedgingSettings}): as when the client leaves, the agent's call is closed
     * and the attempt ends cancelled. {@code end} may run on any thread, only once, at once when the
     * attempt lost already. By default, and without hedging, nothing is registered.
     *
     * @return what deregisters {@code end}
     */
    default Runnable whenHedgeLost(Runnable end) {
        return NOTHING;
    }

    /** Does nothing: {@link #whenAgentDown}'s answer when nothing was registered. */
    Runnable NOTHING = () -> { };
}
