package io.github.agentlb.camel;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * A balancer's child in tests, without endpoint: its agent id is its processor id, it does with
 * each attempt what its script says, and it records when each attempt reached it (by the clock
 * it was given, else 0). While {@linkplain #hold() held}, it keeps the completions until
 * {@link #release()}, so that attempts stay in flight.
 */
final class ScriptedChild extends AsyncProcessorSupport implements IdAware {

    /** What a child does with an attempt: completes it through {@code callback}, returns whether synchronously. */
    @FunctionalInterface
    interface Script {
        boolean run(Exchange attempt, AsyncCallback callback);
    }

    /** A synchronous answer: sets body, headers or exception on the attempt; an exception thrown is set on it. */
    @FunctionalInterface
    interface Answer {
        void answer(Exchange attempt, long now) throws Exception;
    }

    private final String id;
    private final String text;
    private final LongSupplier clock;
    private final Step step;
    private final List<Long> requests = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Runnable> held = new ConcurrentLinkedQueue<>();
    private volatile boolean holding;

    /** An attempt and the clock's reading when it arrived. */
    private interface Step {
        boolean run(Exchange attempt, AsyncCallback callback, long now);
    }

    private ScriptedChild(String id, String text, LongSupplier clock, Step step) {
        this.id = id;
        this.text = text;
        this.clock = clock;
        this.step = step;
    }

    /** A child whose attempts run {@code script}. */
    static ScriptedChild scripted(String id, Script script) {
        return new ScriptedChild(id, id, () -> 0, (attempt, callback, now) -> script.run(attempt, callback));
    }

    /** A child that answers each attempt with {@code answer} and completes it synchronously. */
    static ScriptedChild answering(String id, Answer answer) {
        return answering(id, () -> 0, answer);
    }

    /** As {@link #answering(String, Answer)}, with {@code clock}'s reading passed to the answer and recorded. */
    static ScriptedChild answering(String id, LongSupplier clock, Answer answer) {
        return new ScriptedChild(id, id, clock, (attempt, callback, now) -> {
            try {
                answer.answer(attempt, now);
            } catch (Exception e) {
                attempt.setException(e);
            }
            callback.done(true);
            return true;
        });
    }

    /** A child that answers each attempt with its id as body, at once. */
    static ScriptedChild naming(String id) {
        return answering(id, (attempt, now) -> attempt.getMessage().setBody(id));
    }

    /** A child that completes each attempt at once, untouched. */
    static ScriptedChild ok(String id) {
        return answering(id, (attempt, now) -> { });
    }

    /** As {@link #ok(String)}, with processor id {@code id} (may be null) and {@code toString()} {@code text}. */
    static ScriptedChild ok(String id, String text) {
        return new ScriptedChild(id, text, () -> 0, (attempt, callback, now) -> {
            callback.done(true);
            return true;
        });
    }

    /** Adds {@code children} to {@code balancer} (by {@code addProcessor}) in {@code context}, and starts it. */
    static <T extends AgentLoadBalancerSupport> T started(T balancer, CamelContext context, ScriptedChild... children) {
        balancer.setCamelContext(context);
        for (ScriptedChild child : children) {
            balancer.addProcessor(child);
        }
        balancer.start();
        return balancer;
    }

    /**
     * Adds to {@code balancer} the agents named {@code agents}, each with {@code child} of its name
     * as its child, weight 1, with {@code nanoClock} as its clock, in {@code context}, and starts it.
     */
    static <T extends AgentLoadBalancerSupport> T startedAgents(T balancer, CamelContext context, LongSupplier nanoClock,
            Function<String, ScriptedChild> child, String... agents) {
        balancer.setCamelContext(context);
        balancer.useNanoClock(nanoClock);
        for (String agent : agents) {
            balancer.addAgent(agent, child.apply(agent), 1.0);
        }
        balancer.start();
        return balancer;
    }

    /** From now on, completions are kept until {@link #release()}. */
    void hold() {
        holding = true;
    }

    /** Completes the attempts kept and keeps none from now on. */
    void stopHolding() {
        holding = false;
        release();
    }

    /** @return the completions kept */
    int heldAnswers() {
        return held.size();
    }

    /** Completes the attempts kept (asynchronously, as their callbacks see it). */
    void release() {
        for (Runnable r = held.poll(); r != null; r = held.poll()) {
            r.run();
        }
    }

    /** @return the clock readings at which attempts reached this child, in order */
    List<Long> requests() {
        return requests;
    }

    @Override
    public boolean process(Exchange attempt, AsyncCallback callback) {
        long now = clock.getAsLong();
        requests.add(now);
        if (holding) {
            step.run(attempt, doneSync -> held.add(() -> callback.done(false)), now);
            return false;
        }
        return step.run(attempt, callback, now);
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public void setId(String ignored) {
    }

    @Override
    public String toString() {
        return text;
    }
}
