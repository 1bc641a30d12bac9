package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AgentLb;
import io.github.agentlb.camel.AttemptHooks;
import io.github.agentlb.camel.ClassifiedFailure;
import io.github.agentlb.core.key.LongLivedStreams;
import io.github.agentlb.core.key.McpHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call to an agent: the client's request out, the answer piped back into the client's
 * connection as it arrives, head first, then each part, with backpressure: while the client's
 * connection cannot take more, the agent's connection is not read, so an answer of any size holds
 * at most a few socket buffers of memory. Every method runs on the client connection's event loop.
 *
 * <h2>How a call ends</h2>
 * <ul>
 *   <li>The answer's last byte went to the client: success (whatever the status).</li>
 *   <li>Before anything went to the client: connect refused or timed out (these fail over), a
 *       request that passed {@value Hops#MAX_BALANCER_HOPS} balancers or more already by its
 *       {@code Via} (a loop, or a client's spoof: not sent, {@link RequestLoopException}, counted
 *       against no agent), no answer
 *       head within the first-byte timeout ({@link AnswerTimeoutException}), the connection closed
 *       or an answer that is not HTTP (fails over for idempotent methods), an answer whose
 *       {@code Content-Length} is over {@code maxAnswerBytes} ({@link AnswerTooLargeException}: never
 *       sent to another agent, not counted against this one). The route answers these.</li>
 *   <li>After the head went to the client: the agent closed, went quiet for the idle timeout, ran
 *       past the total timeout: the client's connection is closed without the terminating chunk
 *       ({@link AnswerInterruptedException}, never retried); so it is past {@code maxAnswerBytes}, the
 *       part that crossed the limit dropped whole, but as an {@link AnswerTooLargeException}. While the client
 *       has not taken the last part sent (backpressure), the agent is not read and its silence is
 *       not counted: a client that takes nothing for the idle timeout has its answer cut as
 *       {@link AgentCallCancelledException cancelled} (nginx's {@code send_timeout}), against no agent.</li>
 *   <li>The client closed its connection: the agent's connection is closed at once, so the agent
 *       sees its caller leave, and the call ends {@link AgentCallCancelledException cancelled}
 *       (as when a streamed body breaks off); after far longer than recent answers took to begin,
 *       for the second time in a row on that agent, the agent's answer timeout instead (the stall
 *       rule, {@link AgentEndpoint#stalled}).</li>
 *   <li>With {@code stallWhileWaiting}: no head after far longer than recent answers, the agent's
 *       own too, took to begin while the client waits and another agent answered meanwhile: a
 *       stall of the agent; the second in a row on that agent ends failed after send
 *       ({@link #checkStall}: an idempotent request goes to another agent), the first runs on.</li>
 *   <li>The client sent no more of a streamed body for the first-byte timeout while the agent could
 *       take more: {@link RequestBodyTimeoutException}, the client's slowness, counted against no
 *       agent. The first-byte timeout runs from the request's last byte on.</li>
 *   <li>The balancer's health checks marked the agent down before the answer's head came: the
 *       agent's connection is closed and the call ends {@link AgentMarkedDownException failed after
 *       send} (an idempotent request goes to another agent).</li>
 *   <li>Another attempt of the same hedged request won ({@link AttemptHooks#whenHedgeLost}), or its
 *       answer head came first ({@link AttemptHooks#answerHead} says no at this call's head): the
 *       agent's connection is closed, as when the client leaves, nothing of this answer goes to the
 *       client, and the call ends {@link AgentCallCancelledException cancelled}.</li>
 * </ul>
 *
 * <h2>Legacy MCP session streams ({@link LegacyMcpStreams})</h2>
 * A Server-Sent Events answer to a request with {@code Mcp-Session-Id} whose
 * {@code MCP-Protocol-Version} is absent or before 2026-07-28 (MCP 2025-11-25 and earlier), and
 * whose {@code Accept} names {@code text/event-stream}, as an MCP client's must (a chat completion
 * whose client accepts only JSON, as the OpenAI SDKs send, or anything, as curl does, is not one; a
 * {@code GET} may also send none or {@code *}{@code /*}), is resumable once the
 * agent has given one of its events an id ({@code id:}): the client may leave and come back with
 * {@code GET} and the {@code Last-Event-ID} it saw, and its leaving "SHOULD NOT be interpreted as
 * the client cancelling its request". So when such a client leaves a {@code POST}'s stream after an
 * event id, the agent's stream is read to its end and dropped (bounded by the idle and total
 * timeouts; the attempt ends a success when the agent ends it, else cancelled, never against the
 * agent), and when it stays quiet for the idle timeout it is ended cleanly for the client to resume.
 * Before any event id it cannot be resumed: a client leaving cancels it, and a silence of the idle
 * timeout (a long tool call) closes the client's stream and ends the call cancelled, never against
 * the agent. A {@code GET} stream (the session's standing
 * stream, or a resumption) carries no request to finish: it is closed as any other whose client
 * leaves, the server keeping its events for the next resumption (a server allowing one standing
 * stream per session, as the TypeScript SDK's, would refuse the client's reconnect with 409 while
 * the old one stayed open); its silence (a standing stream waits for notifications) ends it cleanly
 * at the idle timeout, event ids or not. And when the agent closes such a stream after a {@code retry:} field (SEP-1699:
 * the server makes the client poll), the client's answer is ended cleanly and the attempt is a
 * success. Every other answer (2026-07-28 requests, LLM streams) behaves as above.
 *
 * <h2>Busy answers</h2>
 * An answer the attempt's hooks call busy ({@link AttemptHooks#isBusy}: 429, or 503 with
 * {@code Retry-After}) may go to another agent, so it is held back, up to {@value #MAX_HELD_BYTES}
 * bytes, and left on the exchange as a Camel message: status, the agent's headers, the body; a
 * larger one is streamed like any other.
 *
 * <h2>JSON answers the attempt rewrites</h2>
 * Such requests go to the agent without the client's {@code Accept-Encoding} (nginx's rule for
 * {@code sub_filter}): an answer that comes with a {@code Content-Encoding} all the same fails the
 * attempt as a broken answer rather than reach the client with ids the balancer could not seal.
 * An answer that is not busy, with a JSON {@code Content-Type} ({@code application/json}, a
 * {@code +json} type such as {@code application/a2a+json}, or {@code text/json}) and a body of at most
 * {@value AttemptHooks#MAX_REWRITTEN_ANSWER_BYTES} bytes, is held whole when the attempt's hooks ask
 * for it ({@link AttemptHooks#rewritesJsonAnswer}: the answer to an A2A request, whose task ids the
 * balancer seals), then goes to the client as {@link AttemptHooks#clientAnswer} gives it, with its
 * own {@code Content-Length}. An answer that turns out longer is streamed as it came, from the
 * bytes held on. A Server-Sent Events answer ({@code text/event-stream}) to such a request is
 * streamed with each event's {@code data} given as {@link AttemptHooks#clientAnswer} rewrites it,
 * each event held only until its blank line ({@link SseEventSealer}), chunked; any other type
 * passes as it came.
 *
 * <h2>Kept-alive connections</h2>
 * A connection that brings bytes past the end of an answer, or while idle, is closed and never
 * used again ({@link AgentCodec}); the answer that ended is a success. A pooled connection that
 * fails before any byte of the answer (the agent closed it as idle while the request was on its
 * way), or brings something that is not HTTP before it (the rest of an earlier answer longer than
 * its {@code Content-Length}, come after the connection was taken again), is given up and the
 * request sent once more on a new connection to the same agent when that is safe (Go's
 * {@code net/http} rule): the request was not written whole, or it may be sent twice by the
 * balancer's rule ({@link AttemptHooks#repeatable}: its {@code idempotentMethods} or an
 * {@code Idempotency-Key} that is not blank; without a balancer RFC 9110 9.2.2's idempotent
 * methods or the key). Not counted against the agent.
 *
 * <p>Over 300 lines: one call's steps (connect or take a pooled connection, retry once on a stale
 * connection, a write that fails before the answer, head, parts, timeouts, cancel, the stall rule,
 * a client slow with its body, a busy answer or a JSON answer held back, an event stream's
 * events sealed, a legacy MCP stream read on, an agent marked down, a hedged request's other leg winning) share the call's
 * fields and its one {@code done} flag on one event loop; split, each piece would pass them all
 * around and each could end the call. Writing the request (its head and body, a streamed body's parts) is
 * {@link RequestWriter}'s, which tells the call of its writes through {@link RequestWriter.Writes}.
 */
final class AgentCall implements RequestWriter.Writes {

    /** Largest busy answer held back; a larger one is streamed like any other. */
    static final int MAX_HELD_BYTES = 64 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(AgentProducer.class);
    /** RFC 9110 9.2.2's idempotent methods. */
    private static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
            HttpMethod.TRACE, HttpMethod.PUT, HttpMethod.DELETE);

    private final AgentEndpoint endpoint;
    private final AgentTimeouts timeouts;
    private final Exchange exchange;
    private final AsyncCallback callback;
    private final Downstream down;
    private final AttemptHooks hooks;
    private final RequestWriter request;
    private Channel agent;
    /** Whether {@link #leaveAgent} ran. */
    private boolean agentLeft;
    private boolean done;
    private boolean bodyless;
    private long lastReadNanos;
    /** Since when the agent is not read because the client has not taken the last part (backpressure), System.nanoTime(); 0 while read. */
    private long pausedNanos;
    /** Bytes of the answer's body read. */
    /** Answer body bytes read from the agent (what {@code maxAnswerBytes} bounds). */
    private long bytes;
    /** Answer body bytes handed to the client's connection (the endpoint's bytes meter). */
    private long passed;
    /** Whether the connection came from the pool, and the request has not been sent again. */
    private boolean reused;
    /** Whether the request was written to the connection whole. */
    private boolean written;
    private HttpResponse head;
    /** Whether this call wrote the client's answer head (a hedged request's other leg may have). */
    private boolean wroteHead;
    /** A busy answer, or a JSON answer to be rewritten ({@link #rewriting}), being gathered, else null. */
    private CompositeByteBuf held;
    /** Whether {@link #held} is a JSON answer the hooks rewrite ({@link AttemptHooks#rewritesJsonAnswer}). */
    private boolean rewriting;
    private ScheduledFuture<?> firstByteTimer;
    /** The stall rule's check while the client waits ({@link #checkStall}), until the answer's head. */
    private ScheduledFuture<?> stallTimer;
    /** Whether the stall rule counted this call ({@link #stalledAgain}): once per call. */
    private boolean stallCounted;
    /** When the request's last byte was written to the agent, System.nanoTime(); 0 before. */
    private long writtenNanos;
    private ScheduledFuture<?> idleTimer;
    private ScheduledFuture<?> totalTimer;
    /** The task ids of a Server-Sent Events answer being sealed event by event (see the class comment), else null. */
    private SseEventSealer events;
    /** Whether the answer is a legacy MCP session stream (see the class comment); its retry watch, else null. */
    private SseResumeFields resumable;
    /** Whether the client left a resumable stream, which is then read to its end and dropped. */
    private boolean detached;
    /** Why writing the request failed, while its answer may still be read; null while writes succeed. */
    private Throwable writeFailure;
    /** Deregisters the end of this call when its agent is marked down ({@link AttemptHooks#whenAgentDown}). */
    private Runnable endWhenDown = AttemptHooks.NOTHING;
    /** Deregisters the end of this call when another attempt of its hedged request wins ({@link AttemptHooks#whenHedgeLost}). */
    private Runnable endWhenLost = AttemptHooks.NOTHING;

    AgentCall(AgentEndpoint endpoint, Exchange exchange, AsyncCallback callback, Downstream down, AttemptHooks hooks) {
        this.endpoint = endpoint;
        this.timeouts = endpoint.timeouts();
        this.exchange = exchange;
        this.callback = callback;
        this.down = down;
        this.hooks = hooks;
        this.request = new RequestWriter(endpoint, exchange, down, hooks, this);
    }

    void start() {
        endpoint.stats().started();
        if (down.released()) {
            finish(new AgentCallCancelledException("the exchange ended before agent " + name() + " was called"), false);
            return;
        }
        if (down.clientGone()) {
            finish(AgentCallCancelledException.clientLeft("the client left before agent " + name() + " was called"), false);
            return;
        }
        if (down.headSent()) {
            // A balancer that took an answer already streamed for busy tries no other agent on this connection.
            finish(new IllegalStateException("agent " + name() + " not called: an answer already went to the client"), false);
            return;
        }
        if (bodyGone()) {
            finish(new RequestBodyStreamedException("agent " + name() + " not called: part of the request body was"
                    + " already sent to another agent and is no longer held", null), false);
            return;
        }
        int hops = Hops.hopsBy(down.forwardHeaders().getAll(HttpHeaderNames.VIA), NettyDownstream.VIA_NAME);
        if (hops > Hops.MAX_BALANCER_HOPS) {
            // Nothing sent, and not this agent's doing: it may be a client's spoof as well as a loop.
            finish(new RequestLoopException("agent " + name() + " not called: the request passed " + (hops - 1)
                    + " balancers already (Via): a loop, an agent address leading back to a balancer"), false);
            return;
        }
        down.onClientClose(this::clientClosed);
        endWhenDown = hooks.whenAgentDown(() -> down.eventLoop().execute(this::agentMarkedDown));
        endWhenLost = hooks.whenHedgeLost(() -> down.eventLoop().execute(this::hedgeLost));
        // A body that streams cannot be sent again once a part beyond its prefix is written: such a request never
        // goes on a connection kept idle, which the agent may be closing (HAProxy's http-reuse safe).
        Channel pooled = down.bodyRest() == null ? endpoint.pool().take(this) : null;
        if (pooled != null) {
            reused = true;
            agent = pooled;
            send();
        } else {
            connect();
        }
    }

    /**
     * The client left: a resumable POST stream is read on (dropped); a call whose answer had not begun
     * after far longer than recent answers took ({@link AgentEndpoint#stalled}), the second such in a
     * row for its agent ({@link AgentStats#stalledAgain}), ends as the agent's answer timeout; any
     * other call is cancelled.
     */
    private void clientClosed() {
        if (resumable != null && resumable.idSeen() && down.headSent() && !done && !HttpMethod.GET.equals(down.method())) {
            LOG.debug("agent {}: the client left a legacy MCP session stream; read to its end, for a resumption", name());
            readToTheEnd();
            return;
        }
        if (stalledAgain(false)) {
            return;
        }
        finish(AgentCallCancelledException.clientLeft("the client closed its connection: call to agent " + name() + " cancelled"),
                false);
    }

    /** A resumable stream its client no longer reads: read on to its end ({@link #drop}). */
    private void readToTheEnd() {
        detached = true;
        agent.config().setAutoRead(true);
        agent.read();
    }

    /**
     * The stall rule ({@link AgentEndpoint#stalled}): a call whose answer has not begun after far
     * longer than recent answers took counts once as a stall of its agent, when its client leaves or
     * (with {@code stallWhileWaiting}) while the client waits, when also far longer than the agent's
     * own recent answers took (an agent slow by nature is not stalled) and other agents of the
     * component answered meanwhile (a fleet slow as a whole is not one agent's stall:
     * {@link AgentEndpoint#stalledWhileWaiting}). The
     * second such call in a row on the agent, no answer from it in between
     * ({@link AgentStats#stalledAgain}), ends as the agent's failure: its answer
     * timeout when the client left, failed after send while it waits (an idempotent request then
     * goes to another agent, as after a reset).
     *
     * @return whether the call ended so
     */
    private boolean stalledAgain(boolean clientWaits) {
        if (head != null || done || writtenNanos == 0 || stallCounted) {
            return false;
        }
        long waited = System.nanoTime() - writtenNanos;
        if (clientWaits ? !endpoint.stalledWhileWaiting(waited)
                || !endpoint.getComponent().firstByteTimes().answeredSince(writtenNanos) : !endpoint.stalled(waited)) {
            return false;
        }
        stallCounted = true;
        if (!endpoint.stats().stalledAgain()) {
            return false;
        }
        // Far longer than recent answers took to begin, a second time in a row: the agent's failure. A client
        // still waiting is served elsewhere where that is safe: the agent failed after the send, as a reset would.
        String why = "agent " + name() + " sent no answer in " + waited / 1_000_000 + " ms, over "
                + endpoint.getStallFactor() + " x the p99 time to first byte of recent answers,";
        finish(clientWaits ? new IOException(why + " while other agents answered: taken as hung")
                : new AnswerTimeoutException(why + " and the client left"), false);
        return true;
    }

    /**
     * While the client waits: checks the stall rule at {@link AgentEndpoint#getMinStallTime()} after
     * the request's last byte, then as often again until the answer begins or the call is counted.
     */
    private void checkStall() {
        if (stalledAgain(true) || head != null || done || stallCounted) {
            return;
        }
        stallTimer = schedule(endpoint.getMinStallTime().toMillis(), this::checkStall);
    }

    /** Whether a request and its answer's head make a legacy MCP session stream (see the class comment). */
    private boolean resumable(HttpResponse response) {
        return LegacyMcpStreams.opens(down.forwardHeaders(), down.method(), response);
    }

    /** Whether the request is a 2026-07-28 {@code subscriptions/listen} ({@link LongLivedStreams}). */
    private boolean listening() {
        HttpHeaders request = down.forwardHeaders();
        return LongLivedStreams.opens(down.method().name(), null, request.get(McpHeaders.METHOD),
                request.get(McpHeaders.PROTOCOL_VERSION), null);
    }

    private String name() {
        return endpoint.getAddress();
    }

    private void connect() {
        ChannelFuture connect = endpoint.pool().connect(this, down);
        agent = connect.channel();
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                finish(f.cause(), false);
            } else if (!done) {
                AgentPool.attach(connect.channel(), this);
                send();
            } else {
                connect.channel().close();
            }
        });
    }

    /** Whether part of a streamed body was sent: the request can no longer be sent again. */
    private boolean bodyGone() {
        BodyRest rest = down.bodyRest();
        return rest != null && rest.started();
    }

    private void send() {
        if (down.released()) {
            // The exchange ended while this call connected (another leg of a hedged request won).
            finish(new AgentCallCancelledException("the exchange ended before agent " + name() + " was sent the request"),
                    false);
            return;
        }
        bodyless = HttpMethod.HEAD.equals(down.method());
        lastReadNanos = System.nanoTime();
        writtenNanos = 0;
        startFirstByteTimer();
        if (timeouts.totalMs() > 0) {
            totalTimer = schedule(timeouts.totalMs(), () -> finish(new AnswerTimeoutException(
                    "agent " + name() + " did not finish its answer within " + timeouts.totalMs() + " ms"), false));
        }
        request.write(agent);
    }

    /**
     * (Re)starts the first-byte timer: when the request begins, at each part of a streamed body (while
     * the client sends, the agent cannot answer; after the answer's head too, the body's silence
     * still bounded) and when its last byte is written.
     */
    private void startFirstByteTimer() {
        cancel(firstByteTimer);
        firstByteTimer = schedule(timeouts.firstByteMs(), this::firstByteTimedOut);
    }

    /**
     * No answer within the first-byte timeout: the agent's answer timeout, unless the client stopped
     * sending the rest of its body while the agent could take more (the client's slowness).
     */
    private void firstByteTimedOut() {
        if (!written && down.bodyRest() != null && agent != null && agent.isWritable() && writeFailure == null) {
            finish(new RequestBodyTimeoutException("the client sent no more of its request body for "
                    + timeouts.firstByteMs() + " ms; agent " + name() + " was waiting for it", timeouts.firstByteMs()), false);
            return;
        }
        if (head != null) {
            return; // an answer that has begun: its silence is the idle timeout's
        }
        finish(new AnswerTimeoutException("agent " + name() + " sent no answer within " + timeouts.firstByteMs() + " ms"),
                false);
    }

    @Override
    public void partSent(Channel target) {
        if (target == agent && !done && !written) {
            startFirstByteTimer();
        }
    }

    @Override
    public boolean sending(Channel target) {
        return target == agent && !done && writeFailure == null;
    }

    @Override
    public void bodyBroke(Channel target, IOException failure) {
        if (target == agent) {
            // The client's leaving, not the agent's failure.
            finish(new AgentCallCancelledException("the client's request body broke off: call to agent " + name()
                    + " cancelled (" + failure.getMessage() + ")"), false);
        }
    }

    @Override
    public void written(Channel target, boolean success, Throwable cause) {
        if (target != agent) {
            return; // a write on a connection given up for a new one
        }
        if (success) {
            written = true;
            writtenNanos = System.nanoTime();
            if (head != null) {
                cancel(firstByteTimer); // the body's end under an answer that has begun
            } else if (!done) {
                startFirstByteTimer(); // the agent's time to answer starts when it has the whole request
                if (endpoint.isStallWhileWaiting() && endpoint.getStallFactor() > 0 && stallTimer == null
                        && endpoint.getMinStallTime().toMillis() < timeouts.firstByteMs()) {
                    stallTimer = schedule(endpoint.getMinStallTime().toMillis(), this::checkStall);
                }
            }
        } else {
            writeFailed(target, cause);
        }
    }

    /**
     * Writing the request to {@code target} failed. An agent may answer before it has read the whole
     * request and close its connection (a 413 for a body over its limit, as most HTTP servers do):
     * the write then fails while its answer waits to be read. So the call does not end here: the
     * answer, when one comes, is the answer (the connection is not kept: the request was not written
     * whole); the connection's close or reset without one ends the call with this failure. A pooled
     * connection that failed before an answer is tried again on a new one where that is safe.
     */
    private void writeFailed(Channel target, Throwable cause) {
        if (target != agent || done || writeFailure != null) {
            return;
        }
        if (head == null && retriedOnNewConnection(cause)) {
            return;
        }
        writeFailure = cause;
        LOG.debug("agent {}: writing the request failed ({}); reading its answer, if any", name(), cause.toString());
        if (head == null) {
            target.config().setAutoRead(true);
            target.read();
        }
    }

    /**
     * A failure on a pooled connection before any byte of the answer: sent again once on a new
     * connection when that is safe (see the class comment).
     *
     * @return whether the request is being sent again
     */
    private boolean retriedOnNewConnection(Throwable failure) {
        if (!reused || done || head != null || down.headSent() || down.clientGone() || bodyGone()) {
            return false;
        }
        boolean idempotent = hooks.repeatable(IDEMPOTENT.contains(down.method())
                || AgentLb.isIdempotencyKey(down.forwardHeaders().getAll(AgentLb.IDEMPOTENCY_KEY_HEADER)));
        if (written && !idempotent) {
            return false;
        }
        LOG.debug("agent {}: pooled connection failed before an answer ({}), sending again on a new one", name(),
                failure.toString());
        reused = false;
        written = false;
        cancel(firstByteTimer);
        cancel(totalTimer);
        Channel stale = agent;
        AgentPool.attach(stale, null);
        stale.close();
        connect();
        return true;
    }

    private ScheduledFuture<?> schedule(long ms, Runnable task) {
        return down.eventLoop().schedule(task, ms, TimeUnit.MILLISECONDS);
    }

    /** The balancer's health checks marked the agent down: a call still waiting for its answer ends. */
    private void agentMarkedDown() {
        if (!done && head == null) {
            finish(new AgentMarkedDownException("agent " + name()
                    + " was marked down by its health checks while the call waited for an answer"), false);
        }
    }

    /** Another attempt of this hedged request answered first: this call is closed, as when the client leaves. */
    private void hedgeLost() {
        if (!done) {
            finish(new AgentCallCancelledException("another agent answered first (hedged request): call to agent "
                    + name() + " cancelled"), false);
        }
    }

    /** An object read from the agent connection. */
    void read(Object msg) {
        if (done) {
            ReferenceCountUtil.release(msg);
            return;
        }
        lastReadNanos = System.nanoTime();
        HttpObject object = (HttpObject) msg;
        if (object.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            DecoderException notHttp = new DecoderException("agent " + name() + " answered something that is not HTTP",
                    object.decoderResult().cause());
            // A stream closed mid-body is a decoder failure too; a pooled connection that brings what is not HTTP
            // before an answer (the rest of an earlier answer longer than its Content-Length) is a stale one.
            if (!endedForPolling() && !retriedOnNewConnection(notHttp)) {
                finish(notHttp, false);
            }
            return;
        }
        if (msg instanceof HttpResponse response) {
            int status = response.status().code();
            if (status == 101) { // never asked for: the proxy sends no Upgrade, and what follows is not HTTP
                ReferenceCountUtil.release(msg);
                finish(new DecoderException("agent " + name() + " answered 101 Switching Protocols: upgrades are not proxied"),
                        false);
                return;
            }
            if (status < 200) {
                return; // an interim answer (100 Continue, 103 Early Hints): the final one follows
            }
            answerHead(response);
        }
        if (msg instanceof HttpContent content) {
            if (detached) {
                drop(content);
            } else if (held != null) {
                hold(content);
            } else if (!wroteHead || done) {
                content.release(); // never a part of an answer whose head another call wrote
            } else {
                forward(content);
            }
        }
    }

    /** A part of a stream its client left: read and dropped; its end ends the call, a success. */
    private void drop(HttpContent content) {
        bytes += content.content().readableBytes();
        boolean last = content instanceof LastHttpContent;
        content.release();
        if (last) {
            finish(null, HttpUtil.isKeepAlive(head));
        }
    }

    private void forward(HttpContent content) {
        if (resumable != null) {
            resumable.scan(content.content());
        }
        bytes += content.content().readableBytes();
        long max = endpoint.getMaxAnswerBytes();
        if (max > 0 && bytes > max) {
            content.release();
            finish(new AnswerTooLargeException("agent " + name() + " sent more than maxAnswerBytes=" + max), false);
        } else if (content instanceof LastHttpContent) {
            ByteBuf last = events == null ? content.content() : events.last(content.content());
            boolean reuse = HttpUtil.isKeepAlive(head);
            endAnswer(last, reuse);
            finish(null, reuse);
        } else if (content.content().isReadable()) {
            ByteBuf part = events == null ? content.content() : events.next(content.content());
            if (!part.isReadable()) {
                part.release(); // an event still arriving, held to its end
                return;
            }
            passed += part.readableBytes();
            ChannelFuture sent = down.sendContent(part);
            if (!down.channel().isWritable()) {
                // Backpressure: the agent is not read until the client has taken this part. Its silence
                // meanwhile is the client's: the idle timeout starts afresh when reading resumes.
                agent.config().setAutoRead(false);
                if (pausedNanos == 0) {
                    pausedNanos = System.nanoTime();
                }
                sent.addListener(f -> {
                    pausedNanos = 0;
                    lastReadNanos = System.nanoTime();
                    if (!done) {
                        agent.config().setAutoRead(true);
                    }
                });
            }
        } else {
            content.release();
        }
    }

    /**
     * The answer's head: its status and load report go on the attempt's message for the balancer,
     * its session id is sealed; a busy answer is held back, any other goes to the client.
     */
    private void answerHead(HttpResponse response) {
        if (written || down.bodyRest() == null) {
            cancel(firstByteTimer); // else it still bounds the silence of the body the client is sending
        }
        cancel(stallTimer);
        endWhenDown.run(); // an answer that has begun is left to run
        head = response;
        if (writtenNanos != 0) { // not an answer before the whole request was sent (a 413)
            long now = System.nanoTime();
            endpoint.getComponent().firstByteTimes().record(now - writtenNanos, now);
            endpoint.stats().firstByteTimes().record(now - writtenNanos, now);
        }
        int status = response.status().code();
        endpoint.stats().answered(status);
        // A busy answer is held back for another agent, which cannot be tried once a streamed body was sent.
        boolean busy = !bodyGone() && hooks.isBusy(status, response.headers().get(HttpHeaderNames.RETRY_AFTER));
        if (!busy && !hooks.answerHead()) {
            hedgeLost(); // another attempt of this hedged request answered first: nothing goes to the client
            return;
        }
        Message message = exchange.getMessage();
        if (busy) {
            message.removeHeaders("*"); // the answer, not the request, if it ends the exchange
        }
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        HttpHeaders headers = response.headers();
        // A busy answer held back goes to the client, if at all, as the proxy's own: its connection's headers stay here.
        List<String> connection = busy ? headers.getAll(HttpHeaderNames.CONNECTION) : List.of();
        List<String> reports = null;
        for (Map.Entry<String, String> header : headers) {
            String name = header.getKey();
            if (hooks.isLoadReport(name)) {
                message.setHeader(name, header.getValue());
                reports = reports == null ? new ArrayList<>(2) : reports;
                reports.add(name);
                continue;
            }
            String value = header.getValue();
            String forClient = hooks.clientValue(name, value);
            if (!forClient.equals(value)) {
                header.setValue(forClient);
            }
            if (busy && Hops.isEndToEnd(name, connection)) {
                List<String> values = headers.getAll(name);
                message.setHeader(name, values.size() == 1 ? values.get(0) : values);
            }
        }
        if (reports != null) {
            reports.forEach(headers::remove);
        }
        String retryAfter = busy ? null : hooks.clientRetryAfter(status, headers.get(HttpHeaderNames.RETRY_AFTER));
        if (retryAfter != null) {
            headers.set(HttpHeaderNames.RETRY_AFTER, retryAfter); // the agent rests that long
        }
        if (down.clientGone()) {
            return; // the close hook ends the call
        }
        long max = endpoint.getMaxAnswerBytes();
        long length = HttpUtil.getContentLength(response, -1L);
        if (max > 0 && length > max && !bodyless && status != 204 && status != 304) { // no body comes to a HEAD, nor in a 304
            finish(new AnswerTooLargeException("agent " + name() + " answered " + length + " bytes, over maxAnswerBytes="
                    + max), false);
            return;
        }
        String encoding = response.headers().get(HttpHeaderNames.CONTENT_ENCODING);
        if (!busy && encoding != null && !encoding.equalsIgnoreCase("identity") && hooks.rewritesJsonAnswer()) {
            finish(new IOException("agent " + name() + " answered Content-Encoding " + encoding
                    + " to a request sent without Accept-Encoding: its task ids cannot be sealed"), false);
            return;
        }
        idleTimer = schedule(timeouts.idleMs(), this::checkIdle);
        resumable = resumable(response) ? new SseResumeFields() : null;
        if (busy || rewritten(response, length)) {
            held = agent.alloc().compositeBuffer();
            return;
        }
        if (!bodyless && SseEventSealer.isEventStream(response.headers().get(HttpHeaderNames.CONTENT_TYPE))
                && hooks.rewritesJsonAnswer()) {
            events = new SseEventSealer(hooks, agent.alloc());
            response.headers().remove(HttpHeaderNames.CONTENT_LENGTH); // sealed events are longer: chunked
        }
        message.setBody(down.answeredBody());
        wroteHead = true;
        down.sendHead(response, bodyless || status == 204 || status == 304);
        if (endpoint.getCamelContext().isStopping()) {
            contextStopping(); // a stream begun while the proxy stops (a kept connection's) ends as those in flight did
        }
    }

    /**
     * Whether an answer that is not busy is held whole for the hooks to rewrite (see the class
     * comment): one with a body that may fit, JSON, and hooks that ask for it.
     */
    private boolean rewritten(HttpResponse response, long length) {
        int status = response.status().code();
        rewriting = !bodyless && status != 204 && status != 304 && length <= AttemptHooks.MAX_REWRITTEN_ANSWER_BYTES
                && isJson(response.headers().get(HttpHeaderNames.CONTENT_TYPE)) && hooks.rewritesJsonAnswer();
        return rewriting;
    }

    /**
     * Whether a {@code Content-Type} is JSON: {@code application/json}, a {@code +json} type
     * (RFC 6839, such as {@code application/a2a+json}) or {@code text/json} (still sent by some
     * servers), with or without parameters.
     */
    static boolean isJson(String type) {
        if (type == null) {
            return false;
        }
        int end = type.indexOf(';');
        String media = (end < 0 ? type : type.substring(0, end)).trim().toLowerCase(Locale.ROOT);
        return media.equals("application/json") || media.equals("text/json")
                || media.startsWith("application/") && media.endsWith("+json");
    }

    /**
     * Gathers a busy answer, or a JSON answer to rewrite; one that grows past its limit is streamed
     * after all.
     */
    private void hold(HttpContent content) {
        held.addComponent(true, content.content().retain());
        content.release();
        if (content instanceof LastHttpContent) {
            byte[] body = new byte[held.readableBytes()];
            held.readBytes(body);
            held.release();
            held = null;
            if (rewriting) {
                sendRewritten(body);
                return;
            }
            exchange.getMessage().setBody(body);
            finish(null, HttpUtil.isKeepAlive(head));
        } else if (held.readableBytes() > (rewriting ? AttemptHooks.MAX_REWRITTEN_ANSWER_BYTES : MAX_HELD_BYTES)) {
            if (!rewriting && (!hooks.passesOnUnsettled() || !hooks.answerHead())) {
                // Another call of this hedged request runs (or answered first): this answer is not passed on.
                held.release();
                held = null;
                finish(new AgentCallCancelledException("agent " + name() + " answered " + head.status().code()
                        + " with over " + MAX_HELD_BYTES + " bytes, not held: not passed on while another call of"
                        + " this hedged request may answer"), false);
                return;
            }
            ByteBuf gathered = held;
            held = null;
            Message message = exchange.getMessage();
            message.removeHeader(HttpHeaderNames.RETRY_AFTER.toString()); // streamed: no longer a busy answer to fail over
            message.setBody(down.answeredBody());
            wroteHead = true;
            down.sendHead(head, false);
            bytes += gathered.readableBytes();
            passed += gathered.readableBytes();
            down.sendContent(gathered);
        }
    }

    /** A held JSON answer to the client, as the hooks rewrote it, with its own {@code Content-Length}. */
    private void sendRewritten(byte[] agentBody) {
        byte[] body = hooks.clientAnswer(agentBody);
        long max = endpoint.getMaxAnswerBytes();
        if (max > 0 && body.length > max) {
            finish(new AnswerTooLargeException("agent " + name() + " answered " + body.length
                    + " bytes, over maxAnswerBytes=" + max), false);
            return;
        }
        bytes += agentBody.length;
        head.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
        head.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        exchange.getMessage().setBody(down.answeredBody());
        wroteHead = true;
        down.sendHead(head, false);
        boolean reuse = HttpUtil.isKeepAlive(head);
        endAnswer(Unpooled.wrappedBuffer(body), reuse);
        finish(null, reuse);
    }

    private void checkIdle() {
        if (done) {
            return;
        }
        if (pausedNanos != 0) { // the client takes nothing: nginx's send_timeout, with the idle timeout's value
            long stuckMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedNanos);
            if (stuckMs >= timeouts.idleMs()) {
                down.abort();
                finish(new AgentCallCancelledException("the client took none of agent " + name() + "'s answer for "
                        + timeouts.idleMs() + " ms: call cancelled"), false);
            } else {
                idleTimer = schedule(timeouts.idleMs() - stuckMs, this::checkIdle);
            }
            return;
        }
        long quietMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastReadNanos);
        if (quietMs >= timeouts.idleMs() && resumable != null && (resumable.idSeen() || HttpMethod.GET.equals(down.method()))
                && down.headSent() && held == null) {
            // A legacy MCP session stream may stay quiet: ended cleanly, for its client to resume.
            LOG.debug("agent {}: a legacy MCP session stream sent nothing for {} ms: ended for the client to resume", name(),
                    timeouts.idleMs());
            if (!detached) {
                down.end(Unpooled.EMPTY_BUFFER);
            }
            finish(null, false);
        } else if (quietMs >= timeouts.idleMs() && resumable != null && down.headSent() && held == null) {
            // A legacy MCP POST stream without event ids: a long tool call's silence is no failure of
            // the agent, but nothing can resume it: closed, as the subscriptions/listen rule below.
            down.abort();
            finish(new AgentCallCancelledException("agent " + name() + "'s legacy MCP session stream sent nothing for "
                    + timeouts.idleMs() + " ms and gave no event id to resume from: closed, not counted against it"), false);
        } else if (quietMs >= timeouts.idleMs() && down.headSent() && held == null && listening()) {
            // A 2026-07-28 subscriptions/listen waits for notifications: its silence is no failure of the agent.
            down.abort();
            finish(new AgentCallCancelledException("agent " + name() + "'s subscriptions/listen stream sent nothing for "
                    + timeouts.idleMs() + " ms: closed, not counted against it"), false);
        } else if (quietMs >= timeouts.idleMs()) {
            finish(new TimeoutException("agent " + name() + " sent nothing for " + timeouts.idleMs() + " ms"), false);
        } else {
            idleTimer = schedule(timeouts.idleMs() - quietMs, this::checkIdle);
        }
    }

    /** The agent connection closed. */
    void closed() {
        if (!done && !endedForPolling() && !retriedOnNewConnection(new ClosedChannelException())) {
            finish(head == null && writeFailure != null ? writeFailure : new ClosedChannelException(), false);
        }
    }

    /**
     * The CamelContext began to stop: a stream that waits for events rather than an answer, which
     * would hold the stop for its whole shutdown timeout, ends as at its idle timeout (a legacy MCP
     * session stream that can be resumed cleanly, for its client to resume on another replica; a
     * {@code subscriptions/listen} closed, not counted against its agent). A legacy session's
     * {@code POST} stream after an event id (a tool call) ends for its client the same way, and its
     * agent's call is read on to its end and dropped, as when its client leaves, within the stop's
     * timeout: from a server that keeps its events, the client gets the rest on resuming. Any other
     * call goes on. Also for a call whose answer's head comes while the context stops (a request on a
     * connection kept open), at that head. On the call's event loop.
     */
    void contextStopping() {
        if (done || !down.headSent() || held != null) {
            return;
        }
        if (resumable != null && (resumable.idSeen() || HttpMethod.GET.equals(down.method()))) {
            LOG.debug("agent {}: the proxy is stopping: a legacy MCP session stream ended for its client to resume", name());
            if (detached) {
                return; // its client left already: read on to its end
            }
            down.end(Unpooled.EMPTY_BUFFER);
            if (HttpMethod.GET.equals(down.method())) {
                finish(null, false);
            } else {
                readToTheEnd();
            }
        } else if (listening()) {
            down.abort();
            finish(new AgentCallCancelledException("the proxy is stopping: agent " + name()
                    + "'s subscriptions/listen stream closed, not counted against it"), false);
        }
    }

    /**
     * The endpoint or its event loop stopped and closed the agent connection: the call ends cancelled,
     * not against its agent, with one WARN line naming it (a CamelContext's stop whose shutdown timeout ran
     * out, or its route removed): an operator sees which calls a stop cut.
     */
    void cut() {
        if (!done) {
            LOG.warn("agent {}: {} call cut by the proxy's stop (its shutdown timeout ran out, or its route stopped)",
                    name(), down.method());
            finish(new AgentCallCancelledException("the route stopped: call to agent " + name() + " cut"), false);
        }
    }

    /** The agent connection failed. */
    void failed(Throwable cause) {
        if (!done && !endedForPolling() && !retriedOnNewConnection(cause)) {
            finish(cause, false);
        }
    }

    /**
     * A legacy MCP session stream that the agent closed after a {@code retry:} field (SEP-1699):
     * the client's answer ends cleanly, and the call is a success.
     *
     * @return whether it was one
     */
    private boolean endedForPolling() {
        if (resumable == null || !resumable.retrySeen() || !down.headSent() || held != null) {
            return false;
        }
        LOG.debug("agent {}: closed a legacy MCP session stream after a retry field: ended for the client to poll", name());
        if (!detached) {
            down.end(Unpooled.EMPTY_BUFFER);
        }
        finish(null, false);
        return true;
    }

    /**
     * Ends the call once: the connection back to the pool or closed, the client's answer cut when
     * it had begun, the outcome on the exchange, then the callback.
     */
    private void finish(Throwable failure, boolean reuse) {
        if (done) {
            return;
        }
        done = true;
        endWhenDown.run();
        endWhenLost.run();
        if (held != null) {
            held.release();
            held = null;
        }
        if (events != null) {
            events.release();
        }
        cancel(firstByteTimer);
        cancel(stallTimer);
        cancel(idleTimer);
        cancel(totalTimer);
        // Not kept when the request was not written whole (an answer before a streamed body's end).
        leaveAgent(failure == null && reuse && written);
        if (detached && failure != null && !(failure instanceof AgentCallCancelledException)) {
            failure = AgentCallCancelledException.clientLeft("the client left a legacy MCP session stream; agent " + name()
                    + "'s stream then ended: " + failure.getMessage());
        }
        Exception outcome = null;
        if (failure instanceof AgentCallCancelledException cancelled) {
            outcome = cancelled;
        } else if (failure != null && down.headSent() && !wroteHead) {
            // Another call (the winning leg of a hedged request) answered the client: not this one's to cut.
            outcome = new AgentCallCancelledException("another call answered the client; agent " + name()
                    + "'s call ended: " + failure.getMessage());
        } else if ((failure instanceof AnswerTooLargeException || failure instanceof RequestBodyTimeoutException)
                && down.headSent()) {
            // The route's limit, or the client's silence, not the agent's failure: the client's answer is cut all the same.
            outcome = (Exception) failure;
            down.abort();
        } else if (failure != null && down.headSent()) {
            outcome = new AnswerInterruptedException("agent " + name() + " failed after " + passed
                    + " bytes of its answer had gone to the client", failure);
            down.abort();
        } else if (failure != null && bodyGone() && !(failure instanceof ClassifiedFailure)) {
            outcome = new RequestBodyStreamedException("agent " + name() + " failed after part of the request body"
                    + " was sent to it: the body is no longer held", failure);
        } else if (failure != null) {
            outcome = failure instanceof Exception e ? e : new IllegalStateException(failure);
        }
        if (outcome == null) {
            down.onClientClose(null);
        } else {
            LOG.debug("agent {}: {} call ended: {}", name(), down.method(), outcome.toString());
        }
        exchange.setException(outcome);
        callback.done(false);
    }

    /**
     * Writes the answer's last bytes. The agent's part is over: before the client has them, its
     * connection goes back to the pool, the call leaves the active ones and the balancer counts it
     * out of the agent's requests in flight ({@link AttemptHooks#answerEnds}), so that a client that
     * sends again at once finds all three so; the outcome comes with {@link #finish}.
     */
    private void endAnswer(ByteBuf last, boolean reuse) {
        passed += last.readableBytes();
        leaveAgent(reuse && written);
        hooks.answerEnds();
        down.end(last);
    }

    /** Once: the agent connection back to the pool ({@code reusable}) or closed, and the call out of the active ones. */
    private void leaveAgent(boolean reusable) {
        if (agentLeft) {
            return;
        }
        agentLeft = true;
        if (agent != null) {
            endpoint.pool().giveBack(agent, reusable);
        }
        endpoint.stats().ended(passed);
    }

    private static void cancel(ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
