package io.github.agentlb.camel;

import io.github.agentlb.core.key.LongLivedStreams;
import io.github.agentlb.core.key.McpHeaders;
import io.github.agentlb.core.orca.LoadReport;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.service.ServiceHelper;

/**
 * One member's per-agent counters, carried from state to state while the child stays a member
 * (gRPC's child state, Finagle's node): requests in flight (for drain, {@code lr} and the in-flight
 * bound), long-lived streams open apart from them, requests offered while it ramps up (for slow start), until when it rests after a busy
 * answer, and its latest ORCA load report. Thread-safe.
 */
final class AgentSlot {

    /** {@link #life}: a member taking requests. */
    static final int SERVING = 0;
    /** {@link #life}: draining; its last request in flight lets the writer remove it. */
    static final int DRAINING = 1;
    /** {@link #life}: no longer a member; its last request in flight stops an owned child. */
    static final int REMOVED = 2;

    /** Exchange property of an attempt counted as a long-lived stream. */
    static final String STREAM_PROPERTY = "agentlb.longLivedStream";

    final AsyncProcessor child;
    /** Whether the balancer created the child (runtime agents), so it stops it once unused. */
    final boolean owned;
    final AtomicInteger inFlight = new AtomicInteger();
    /**
     * Long-lived streams open on the agent ({@link LongLivedStreams}): counted apart from
     * {@link #inFlight}, so that no strategy's load signal counts them, and no drain waits for them.
     */
    final AtomicInteger streams = new AtomicInteger();
    /** Requests the strategy offered this agent while it ramped up, for the slow-start thinning. */
    final AtomicLong offered = new AtomicLong();
    /** Until when the agent rests after a busy answer (the balancer's clock, ns); 0 when it does not. */
    final AtomicLong restUntil = new AtomicLong();
    /** The status of the busy answer that began its latest rest: 429, or 503 (unavailable). */
    final AtomicInteger restStatus = new AtomicInteger();
    /** Until when the agent, its rest over, waits for its trial's answer (ns); 0 when it does not. */
    final AtomicLong trialUntil = new AtomicLong();
    /** {@link #SERVING}, {@link #DRAINING} or {@link #REMOVED}; set by the writer. */
    final AtomicInteger life = new AtomicInteger(SERVING);
    /** The agent's latest non-empty ORCA load report and when it arrived; null before the first. */
    final AtomicReference<ReceivedReport> loadReport = new AtomicReference<>();
    /**
     * What ends each call in flight on this agent whose answer has not begun, registered by
     * streaming children while active health checks may end them ({@link AttemptHooks#whenAgentDown}).
     */
    final Set<Runnable> downHooks = ConcurrentHashMap.newKeySet();

    /**
     * A load report, when it arrived (the balancer's clock, ns) and the requests at the agent that
     * this balancer's in-flight count does not see by it ({@link LoadReport#requestsBeyond}): one
     * reference keeps the three together.
     */
    record ReceivedReport(LoadReport report, long atNanos, double beyondOwn) {
    }

    AgentSlot(AsyncProcessor child, boolean owned) {
        this.child = child;
        this.owned = owned;
    }

    /**
     * Registers {@code end} in {@link #downHooks}; when {@code markedDown} says the agent was marked
     * down meanwhile (its hooks already ran), runs it at once instead.
     *
     * @return what deregisters it
     */
    Runnable whenDown(Runnable end, BooleanSupplier markedDown) {
        downHooks.add(end);
        if (markedDown.getAsBoolean() && downHooks.remove(end)) {
            end.run();
            return AttemptHooks.NOTHING;
        }
        return () -> downHooks.remove(end);
    }

    /**
     * Takes one of the agent's {@code limit} places ({@link FlowControl#maxInFlightPerAgent()}) at
     * once, as a request in flight, so that two exchanges choosing at the same instant cannot both
     * take the last one; {@link #sent(Exchange, boolean)} then counts the attempt no second time.
     *
     * @return whether a place was free and is now taken
     */
    boolean reserve(int limit) {
        return inFlight.getAndUpdate(n -> n < limit ? n + 1 : n) < limit;
    }

    /** {@link #sent(Exchange, boolean)} of an attempt that reserved no place. */
    boolean sent(Exchange attempt) {
        return sent(attempt, false);
    }

    /**
     * Counts an attempt about to be sent: as a long-lived stream when its request opens one
     * ({@link LongLivedStreams#opens}, marked on the attempt as {@value #STREAM_PROPERTY}; a place it
     * {@linkplain #reserve reserved} is given back, streams being no load), else in flight (once:
     * a reserved place already counts it), and an exchange let through by the queue no longer pending
     * ({@link QueuePermit#placed}). Then, for a child the balancer made ({@link #owned}, stopped
     * once its agent left and was idle), whether the agent is still a member: the writer marks a
     * removed slot {@link #REMOVED} before it looks for requests in flight, and a request counts itself
     * before it looks at the mark, so either the writer sees the request and keeps the child until
     * it ends, or the request sees the mark, takes its count back and is not sent. A child the user
     * gave is never stopped by the balancer: an attempt goes to it by the state the exchange read.
     *
     * @return false when the agent of an owned child was removed since the request read its state:
     *     the attempt is not counted and must not be sent
     */
    boolean sent(Exchange attempt, boolean reserved) {
        count(attempt, reserved);
        if (!owned || life.get() != REMOVED) {
            return true;
        }
        if (ended(attempt) && idle()) {
            ServiceHelper.stopAndShutdownService(child); // the writer may have found it idle first: stopping again is nothing
        }
        return false;
    }

    private void count(Exchange attempt, boolean reserved) {
        if (opensStream(attempt.getIn())) {
            OwnProperties.set(attempt, STREAM_PROPERTY, Boolean.TRUE);
            streams.incrementAndGet();
            if (reserved) {
                inFlight.decrementAndGet();
            }
        } else {
            if (!reserved) {
                inFlight.incrementAndGet();
            }
            QueuePermit.placed(attempt);
        }
    }

    /**
     * Counts the end of an attempt {@link #sent} counted.
     *
     * @return whether its count reached 0: the writer then finishes drains, or stops a removed agent's child
     */
    boolean ended(Exchange attempt) {
        return (isStream(attempt) ? streams : inFlight).decrementAndGet() == 0;
    }

    /**
     * Whether a request opens a long-lived stream ({@link LongLivedStreams#opens}); only the headers
     * that can decide are read, two lookups for most requests (a {@code GET} without session also its {@code Accept}).
     */
    static boolean opensStream(Message in) {
        String method = in.getHeader(Exchange.HTTP_METHOD, String.class);
        boolean get = "GET".equals(method);
        String mcpMethod = get ? null : in.getHeader(McpHeaders.METHOD, String.class);
        // A GET's, as the client sent them: not a query parameter camel-netty-http's consumer made a header (ClientHeaders).
        String sessionId = get ? ClientHeaders.first(in, LongLivedStreams.SESSION_ID) : null;
        return LongLivedStreams.opens(method, sessionId, mcpMethod,
                mcpMethod == null ? null : in.getHeader(McpHeaders.PROTOCOL_VERSION, String.class),
                get && sessionId == null ? String.join(",", ClientHeaders.values(in, "Accept")) : null);
    }

    /** Whether an attempt was counted as a long-lived stream ({@link #sent}). */
    static boolean isStream(Exchange attempt) {
        return OwnProperties.get(attempt, STREAM_PROPERTY) != null;
    }

    /** Whether nothing runs on the agent: no request in flight, no stream open. */
    boolean idle() {
        return inFlight.get() == 0 && streams.get() == 0;
    }

    /** Rests the agent until {@code until} (ns) after a busy answer of {@code status}. */
    void rest(long until, int status) {
        restStatus.set(status);
        restUntil.set(until);
    }

    /** Whether the agent rests at {@code nowNanos} after a busy answer, or waits for its trial's answer. */
    boolean resting(long nowNanos) {
        long until = restUntil.get();
        long trial = trialUntil.get();
        return until != 0 && until - nowNanos > 0 || trial != 0 && trial - nowNanos > 0;
    }

    /**
     * As {@link #resting(long)}, for a request that would be sent to the agent: once its rest is
     * over, the first such request is its trial (false), and the agent then rests for the others
     * until that answer ({@link #trialAnswered()}), at most {@code trialNanos}, so that one request,
     * not every one that comes before the answer, learns whether the agent is still busy; a busy or
     * unavailable answer rests it again. (A burst of them would all fail over at once, beyond the
     * retry budget.) Lock-free: one compare-and-set.
     */
    boolean restingOrTrial(long nowNanos, long trialNanos) {
        long until = restUntil.get();
        if (until != 0 && until - nowNanos <= 0 && restUntil.compareAndSet(until, 0)) {
            trialUntil.set(nowNanos + trialNanos);
            return false;
        }
        return resting(nowNanos);
    }

    /** The agent's last request in flight ended: a trial's answer ends the others' wait for it. */
    void trialAnswered() {
        if (trialUntil.get() != 0) {
            trialUntil.set(0);
        }
    }

    /**
     * Slow-start thinning: of the requests offered while the agent keeps a part {@code factor} of
     * its share, the n-th is kept when floor(n f) grows, so exactly floor(n f) of the first n are kept.
     */
    boolean keepOffered(double factor) {
        long n = offered.getAndIncrement();
        return Math.floor((n + 1) * factor) > Math.floor(n * factor);
    }
}
