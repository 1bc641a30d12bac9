package io.github.agentlb.camel.http;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one agent's endpoint counts, whether or not anyone reads it: calls in flight (Envoy's
 * {@code upstream_rq_active}), answers by status class, answer bytes passed to clients. Bound to
 * Micrometer by {@link AgentMetrics} when the CamelContext has a {@code MeterRegistry}. Thread-safe.
 */
final class AgentStats {

    /** Status classes counted: {@code 1xx} to {@code 5xx}. */
    static final String[] STATUS_CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx"};

    private final String agent;
    private final AtomicInteger active = new AtomicInteger();
    /** Stalls in a row ({@link #stalledAgain}), 0 again at an answer. */
    private final AtomicInteger stalls = new AtomicInteger();
    private final LongAdder bytes = new LongAdder();
    /** This agent's own times to first byte, for the stall rule while a client waits ({@link AgentEndpoint#stalledWhileWaiting}). */
    private final FirstByteTimes firstByteTimes = new FirstByteTimes();
    private final LongAdder[] answers = new LongAdder[STATUS_CLASSES.length];
    private final AtomicBoolean bound = new AtomicBoolean();
    /** Producers of the endpoints of this address started and not yet stopped. */
    private final AtomicInteger users = new AtomicInteger();
    /** Removes the meters registered, null while none are. */
    private volatile Runnable unbind;

    AgentStats(String agent) {
        this.agent = agent;
        for (int i = 0; i < answers.length; i++) {
            answers[i] = new LongAdder();
        }
    }

    /** The recent times to first byte of this agent's answers. */
    FirstByteTimes firstByteTimes() {
        return firstByteTimes;
    }

    /** The agent's address, the meters' {@code agent} tag. */
    String agent() {
        return agent;
    }

    /**
     * Has {@code component} register these counters as meters at the first call, when they were not
     * at a producer's start ({@link #userStarted}: camel-micrometer may bind its registry while the
     * context starts, after the routes' producers). Without a registry then, never again: the call
     * path looks for none.
     */
    void bindOnce(AgentComponent component) {
        if (!bound.get()) {
            bind(component, true);
        }
    }

    /**
     * A producer of an endpoint of this address started: the meters are registered now when the
     * registry is there already, so that their series exist at 0 before the first call.
     */
    void userStarted(AgentComponent component) {
        users.incrementAndGet();
        if (!bound.get()) {
            bind(component, false);
        }
    }

    /** Registers the meters unless they are; without a registry marks them bound only when {@code evenWithout}. */
    private synchronized void bind(AgentComponent component, boolean evenWithout) {
        if (bound.get()) {
            return;
        }
        Runnable registered = component.bindMetrics(this);
        if (registered != null || evenWithout) {
            unbind = registered;
            bound.set(true);
        }
    }

    /**
     * A producer of an endpoint of this address stopped: when it was the last, the meters leave the
     * registry (the agent left, or its routes stopped), so no series outlives its agent; a later
     * call registers them again, the counts going on from where they were.
     */
    void userStopped() {
        Runnable remove = unbind;
        if (users.decrementAndGet() == 0 && remove != null && bound.compareAndSet(true, false)) {
            unbind = null;
            remove.run();
        }
    }

    void started() {
        active.incrementAndGet();
    }

    /** A call ended with {@code answerBytes}: counted before it leaves the active ones (a reader that sees it gone sees its bytes). */
    void ended(long answerBytes) {
        bytes.add(answerBytes);
        active.decrementAndGet();
    }

    /**
     * A call of this agent stalled past the stall rule's wait: its client left, or waited while other agents answered.
     *
     * @return whether it is the second or a later one in a row, with no answer from the agent in
     *     between: the agent's failure; a first one alone is a client's leaving (a user's stop)
     */
    boolean stalledAgain() {
        return stalls.incrementAndGet() >= 2;
    }

    /** An answer head with this status (100-599; others are not counted); it ends a run of stalls. */
    void answered(int status) {
        if (stalls.get() != 0) {
            stalls.set(0);
        }
        int index = status / 100 - 1;
        if (index >= 0 && index < answers.length) {
            answers[index].increment();
        }
    }

    int active() {
        return active.get();
    }

    long bytes() {
        return bytes.sum();
    }

    long answers(int statusClassIndex) {
        return answers[statusClassIndex].sum();
    }
}
