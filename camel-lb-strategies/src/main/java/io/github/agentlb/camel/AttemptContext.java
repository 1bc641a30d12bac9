package io.github.agentlb.camel;

import java.util.Collection;
import java.util.stream.Stream;
import io.github.agentlb.core.hedge.HedgeDelay;
import io.github.agentlb.core.retry.RetriesInFlight;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;

/**
 * What the attempts of an exchange use of their balancer, and nothing else: the strategy's attempt
 * hooks, the listeners, the clocks, load report reading, and a narrow set of events for the writer
 * (the last request of a leaving agent ended, an agent re-admitted ramps up). One per balancer;
 * thread-safe.
 */
final class AttemptContext {

    final Strategy strategy;
    final String strategyName;
    final Listeners listeners;
    /**
     * The headers removed from each attempt before it is sent: those the strategy reads load from,
     * and {@code Retry-After}, an answer's (a client's own would be taken for its agent's).
     */
    final Collection<String> droppedHeaders;
    private final StateWriter writer;
    /** The balancer's clock, ns. */
    final LongSupplier nanoClock;
    private final LongSupplier epochClock;
    private final BooleanSupplier runAllowed;
    private final boolean strategyReadsTimes;
    /** The latest rest any agent of this balancer was given (ns), 0 when none rests: one read while none does. */
    private final AtomicLong restingUntil = new AtomicLong();
    /** Requests and retries in flight, for the retry budget. */
    final RetriesInFlight retries = new RetriesInFlight();
    /** Where failover attempts wait out their backoff, and the count of backoff draws. */
    final AttemptTimer timer = new AttemptTimer();
    /** The hedge delay from recent first-byte times. */
    final HedgeDelay hedgeDelay = new HedgeDelay();

    AttemptContext(Strategy strategy, Listeners listeners, StateWriter writer, LongSupplier nanoClock,
            LongSupplier epochClock, BooleanSupplier runAllowed) {
        this.strategy = strategy;
        this.strategyName = strategy.name();
        this.listeners = listeners;
        this.writer = writer;
        this.nanoClock = nanoClock;
        this.epochClock = epochClock;
        this.runAllowed = runAllowed;
        this.strategyReadsTimes = strategy.needsAttemptTimes();
        this.droppedHeaders = Stream.concat(strategy.reportHeaders().stream(), Stream.of(AnswerRules.RETRY_AFTER)).toList();
        listeners.add((MembershipListener) hedgeDelay::retain);
    }

    /** The balancer's state now (an exchange's attempts read the state it started with, save for agents added since). */
    BalancerState currentState() {
        return writer.state();
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /**
     * Runs the exchange's attempts on {@code state}: its learned session's agent, else the strategy's
     * pick; a request that may be hedged through a {@link HedgedRequest}. Whatever fails before the first attempt fails the exchange ({@link NoAgentAvailableException}
     * when there is no agent), never the caller.
     *
     * @return as {@link org.apache.camel.AsyncProcessor#process}
     */
    boolean run(Exchange exchange, AsyncCallback callback, BalancerState state) {
        Selection selection = null;
        try {
            if (state.agentIds().isEmpty()) {
                exchange.setException(new NoAgentAvailableException("No agent available: the " + strategyName
                        + " balancer has no agents" + (state.draining().isEmpty() ? "" : " taking requests (draining: "
                        + String.join(", ", state.draining()) + ")"), exchange, null));
                AnswerRules.dropClientEchoes(exchange);
                callback.done(true);
                return true;
            }
            SessionAffinity sessions = state.sessions;
            SessionAffinity.Pin pin = sessions == null ? null : sessions.pin(exchange, state);
            selection = pin != null && pin.agent() != null ? SessionAffinity.selectionOf(pin)
                    : state.picker.select(exchange);
            return HedgedRequest.hedges(state, exchange, pin) ? HedgedRequest.run(this, exchange, callback, state, selection, pin)
                    : new Attempts(this, exchange, callback, state, selection, pin, Attempts.UNSET).start();
        } catch (RuntimeException | SessionRejectedException e) {
            if (selection != null) {
                selection.ended(); // no attempts of it will end
            }
            exchange.setException(e);
            AnswerRules.dropClientEchoes(exchange);
            callback.done(true);
            return true;
        }
    }

    /** Runs {@code step} in {@code delayNanos} on the balancer's {@link AttemptTimer}, no thread waiting. */
    void later(Runnable step, long delayNanos, Exchange exchange) {
        timer.schedule(step, delayNanos, exchange.getContext(), this);
    }

    /** Wall-clock time, ms since the epoch, for {@code Retry-After} dates. */
    long epochMillis() {
        return epochClock.getAsLong();
    }

    /** Whether the balancer may start another attempt (it is not stopping). */
    boolean runAllowed() {
        return runAllowed.getAsBoolean();
    }

    /**
     * Whether attempts under {@code policy} need the clock: a strategy that reads attempt times, an
     * attempt listener, or a failover deadline. When none does, the clock is not read (two reads a
     * decision otherwise, as much as a tenth of a decision's cost in DecisionBenchmark).
     */
    boolean timesAttempts(FailoverPolicy policy) {
        return strategyReadsTimes || listeners.hasAttemptListeners() || !policy.deadline().isZero();
    }

    /** Notes that an agent rests until {@code untilNanos}, so requests look at rests until then. */
    void resting(long untilNanos) {
        restingUntil.accumulateAndGet(untilNanos, (a, b) -> a == 0 || b - a > 0 ? b : a);
    }

    /** Whether some agent may be resting, or waiting for its trial up to {@code trialNanos} after its rest: one read while none does. */
    boolean anyResting(long trialNanos) {
        long until = restingUntil.get();
        if (until == 0) {
            return false;
        }
        if (until + trialNanos - nanoTime() <= 0) {
            restingUntil.compareAndSet(until, 0);
            return false;
        }
        return true;
    }

    /**
     * The last request in flight on {@code slot} ended: a trial after a rest was answered (a busy
     * answer rests the agent again), and the writer finishes a drain or stops a removed child.
     */
    void lastRequestEnded(AgentSlot slot) {
        slot.trialAnswered();
        if (slot.life.get() != AgentSlot.SERVING) {
            writer.lastRequestEnded(slot);
        }
    }

    /** An agent was re-admitted after ejection: it ramps up again, and the strategy restarts it from neutral. */
    void readmitted(String agent) {
        writer.rampUp(agent);
        strategy.agentReadmitted(agent);
        listeners.readmitted(strategyName, agent);
    }
}
