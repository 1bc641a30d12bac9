package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReport;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.AsyncProcessor;

/**
 * One member's per-agent counters, carried from state to state while the child stays a member
 * (gRPC's child state, Finagle's node): requests in flight (for drain), requests offered while
 * it ramps up (for slow start) and its latest ORCA load report. Thread-safe.
 */
final class AgentSlot {

    final AsyncProcessor child;
    /** Whether the balancer created the child (runtime agents), so it stops it once unused. */
    final boolean owned;
    final AtomicInteger inFlight = new AtomicInteger();
    /** Requests the strategy offered this agent while it ramped up, for the slow-start thinning. */
    final AtomicLong offered = new AtomicLong();
    /** Until when the agent rests after a busy answer (the balancer's clock, ns); 0 when it does not. */
    volatile long restUntil;
    /** Whether the agent drains: its last request in flight then lets the writer remove it. */
    volatile boolean draining;
    /** Set once the child is no longer a member: the last request in flight then stops an owned child. */
    volatile boolean removed;
    /** The agent's latest non-empty ORCA load report and when it arrived; null before the first. */
    volatile ReceivedReport loadReport;

    /** A load report and when it arrived (the balancer's clock, ns); one volatile write keeps the two together. */
    record ReceivedReport(LoadReport report, long atNanos) {
    }

    AgentSlot(AsyncProcessor child, boolean owned) {
        this.child = child;
        this.owned = owned;
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
