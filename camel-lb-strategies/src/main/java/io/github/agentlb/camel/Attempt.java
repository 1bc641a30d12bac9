package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReports;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.List;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;

/**
 * One attempt of {@link Attempts} on one agent: the child's callback. When the child answers
 * asynchronously, a small task hands the answer to Camel's reactive executor.
 * Only the first callback of the child counts (a child that calls back twice, or calls back then
 * throws, is answered once). Thread-safe: the callback may come from any thread.
 *
 * <p>Camel completes a child either with {@link #done(boolean)} or, from its {@code Pipeline}, by
 * scheduling the callback as a {@link Runnable}: {@link AsyncCallback#run()} calls
 * {@code done(false)}. This class therefore never overrides {@code run()}: every path reaches
 * {@link #done}, where the attempt's time is taken.
 *
 * <p>An attempt of a hedged request ({@link HedgedRequest}) asks its leg at its answer whether it
 * won: a success claims the request unless another leg did first; a loser's result becomes a
 * {@link HedgeLostException}.
 *
 * <h2>Its hooks</h2>
 * It is also what its child asks before the balancer sees the answer ({@link AttemptHooks}, its
 * exchange copy's property {@value AttemptHooks#PROPERTY}), answered from the state the exchange
 * started with: its answer rules, its learned sessions, its health check settings, its agent; for a
 * leg of a hedged request, whether its answer wins. One object per attempt for both (no hooks object
 * per exchange besides: DecisionBenchmark). Thread-safe as {@link AttemptHooks} asks.
 */
final class Attempt implements AsyncCallback, AttemptHooks {

    private static final VarHandle ANSWERED;
    private static final VarHandle DEFERRED;
    private static final VarHandle PLACE_LEFT;

    static {
        try {
            ANSWERED = MethodHandles.lookup().findVarHandle(Attempt.class, "answered", boolean.class);
            DEFERRED = MethodHandles.lookup().findVarHandle(Attempt.class, "deferred", int.class);
            PLACE_LEFT = MethodHandles.lookup().findVarHandle(Attempt.class, "placeLeft", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Attempts attempts;
    private final String agent;
    private final AgentSlot slot;
    private final Exchange exchange;
    /** Whether the agent was ejected when this attempt was sent (its trial, or the last agent left). */
    private final boolean sentWhileEjected;
    /** The outlier detector's generation when this attempt was sent ({@link io.github.agentlb.core.health.OutlierDetector#generation()}). */
    private final long generation;
    /** Whether the step that sent this attempt ran on the caller's thread inside {@link Attempts#start}. */
    private final boolean stepSync;
    private final long startNanos;
    private long elapsedNanos;
    /** Set, on the sending thread, when the child answered synchronously; read by {@link #sent} on that thread. */
    private boolean handledInline;
    /** Set by the child at the answer's head, before its callback; read when the attempt completed ({@link #headPassed}). */
    private boolean headPassed;
    @SuppressWarnings("unused")
    private volatile boolean answered;
    /** {@link #SENDING} while the child's {@code process} may still be running, then {@link #SENT} or {@link #DEFERRED_ANSWER}. */
    @SuppressWarnings("unused")
    private volatile int deferred;
    /** {@link #IN_PLACE}, then by compare-and-set {@link #LEFT} or {@link #LAST_OF_LEAVING} ({@link #leavePlace}). */
    @SuppressWarnings("unused")
    private int placeLeft;
    private static final int IN_PLACE = 0;
    private static final int LEFT = 1;
    /** Left as the last request in flight of an agent draining or removed: it goes once the attempt is reported. */
    private static final int LAST_OF_LEAVING = 2;
    private static final int SENDING = 0;
    private static final int SENT = 1;
    private static final int DEFERRED_ANSWER = 2;

    Attempt(Attempts attempts, String agent, AgentSlot slot, Exchange exchange, boolean stepSync, long startNanos,
            boolean sentWhileEjected, long generation) {
        this.attempts = attempts;
        this.sentWhileEjected = sentWhileEjected;
        this.generation = generation;
        this.agent = agent;
        this.slot = slot;
        this.exchange = exchange;
        this.stepSync = stepSync;
        this.startNanos = startNanos;
    }

    /** The state the exchange started with. */
    private BalancerState state() {
        return attempts.state;
    }

    /** Claims the answer: {@code true} for the first caller only, who then records the elapsed time. */
    boolean answer() {
        if (!ANSWERED.compareAndSet(this, false, true)) {
            return false;
        }
        elapsedNanos = attempts.elapsedSince(startNanos);
        return true;
    }

    @Override
    public void done(boolean doneSync) {
        if (!answer()) {
            return;
        }
        HedgedRequest.Leg leg = attempts.leg();
        if (leg != null && !leg.answered(exchange)) {
            // Another attempt of the hedged request answered first: this result is discarded.
            exchange.setException(new HedgeLostException(agent));
        }
        if (doneSync) {
            // Already on the sending step's thread: no hop through the executor.
            handledInline = true;
            attempts.answered(this, stepSync);
        } else if (!DEFERRED.compareAndSet(this, SENDING, DEFERRED_ANSWER)) {
            attempts.schedule(new Answered(this));
        }
    }

    /**
     * Called by the sending step once the child's {@code process} has returned: an asynchronous
     * answer that came while it ran is handed to the executor now, so it is handled after the
     * child returned, as when the first step itself ran on the reactive executor.
     */
    void sent() {
        // A synchronous answer was claimed on this thread, so no asynchronous one can be deferred.
        if (handledInline) {
            return;
        }
        if (!DEFERRED.compareAndSet(this, SENDING, SENT)) {
            attempts.schedule(new Answered(this));
        }
    }

    /** The asynchronous answer of an attempt, run by the reactive executor. */
    private record Answered(Attempt attempt) implements Runnable {
        @Override
        public void run() {
            attempt.attempts.answered(attempt, false);
        }
    }

    /**
     * The attempt leaves its agent's requests in flight, once: when its answer's last bytes go to the
     * client ({@link AttemptHooks#answerEnds}) or when it completes, whichever comes first. The last
     * request of an agent draining or removed lets it go only once the attempt has been reported to
     * the listeners ({@link #reported}): a drain's last attempts are timed before its meters go.
     */
    void leavePlace() {
        if (PLACE_LEFT.compareAndSet(this, IN_PLACE, LEFT) && slot.ended(exchange)
                && (slot.life.get() == AgentSlot.SERVING || !PLACE_LEFT.compareAndSet(this, LEFT, LAST_OF_LEAVING))) {
            attempts.context.lastRequestEnded(slot);
        }
    }

    /** The attempt was reported ({@link Attempts}' completion): the agent it held back from leaving goes now. */
    void reported() {
        if (PLACE_LEFT.compareAndSet(this, LAST_OF_LEAVING, LEFT)) {
            attempts.context.lastRequestEnded(slot);
        }
    }

    @Override
    public void answerEnds() {
        leavePlace();
    }

    /**
     * The head says the agent is not busy: if this attempt is its trial after a rest, the wait of
     * the others for that answer ends now, not when the answer has streamed to its end (the client
     * may have it all, and send again, before the call ends).
     */
    @Override
    public boolean answerHead() {
        slot.trialAnswered();
        HedgedRequest.Leg leg = attempts.leg();
        headPassed = leg == null || leg.answered(true);
        return headPassed;
    }

    /**
     * Whether the child passed the answer's head on to the client ({@link #answerHead}): a busy
     * status it did not hold back (a streamed request body could not be sent again, or the answer
     * was too long to hold) is then the client's answer, not one to fail over.
     */
    boolean headPassed() {
        return headPassed;
    }

    @Override
    public boolean passesOnUnsettled() {
        HedgedRequest.Leg leg = attempts.leg();
        return leg == null || leg.alone();
    }

    @Override
    public Runnable whenHedgeLost(Runnable end) {
        HedgedRequest.Leg leg = attempts.leg();
        return leg == null ? NOTHING : leg.whenLost(end);
    }

    @Override
    public Collection<String> requestHeaders() {
        SessionAffinity sessions = state().sessions;
        return sessions == null || sessions.header() == null ? NONE.requestHeaders()
                : List.of(LoadReports.FORMAT_HEADER, sessions.header());
    }

    @Override
    public Runnable whenAgentDown(Runnable end) {
        BalancerState state = state();
        return !state.config.healthCheck().endsCalls() ? NOTHING : slot.whenDown(end, () -> state.detector.isMarkedDown(agent));
    }

    /** Whether the client's exchange (its method, its key) may be sent twice. */
    @Override
    public boolean repeatable(boolean byRfc) {
        return state().config.failover().repeatable(attempts.exchange.getIn());
    }

    @Override
    public boolean isBusy(int status, String retryAfter) {
        BalancerState state = state();
        // Whether it may be sent twice matters only for a 503 that rests its agent (AnswerRules.busyMayFailOver): read only then.
        boolean repeatable = status == 503 && state.config.failover().repeatable(attempts.exchange.getIn());
        // A leg of a hedged request also holds back an error answer: another leg may still answer well.
        return state.config.answers().holdsBack(status, retryAfter, repeatable, state.config.failover())
                || attempts.leg() != null && !state.config.answers().settles(status, retryAfter);
    }

    /** The rest its agent is given ({@link AnswerRules#defaultRest()}), whole seconds rounded up, for an answer that rests it and names none. */
    @Override
    public String clientRetryAfter(int status, String retryAfter) {
        AnswerRules answers = state().config.answers();
        if (retryAfter != null || status != 429 && !answers.restsAgent(status)) {
            return null;
        }
        long nanos = answers.defaultRest().toNanos();
        return Long.toString(Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L));
    }

    /** A learned session id the agent gave, sealed with this attempt's agent for the client. */
    @Override
    public String clientValue(String header, String value) {
        SessionAffinity sessions = state().sessions;
        return sessions != null && header.equalsIgnoreCase(sessions.header()) ? sessions.clientId(agent, value) : value;
    }

    String agent() {
        return agent;
    }

    boolean sentWhileEjected() {
        return sentWhileEjected;
    }

    long generation() {
        return generation;
    }

    AgentSlot slot() {
        return slot;
    }

    Exchange exchange() {
        return exchange;
    }

    /** The time from sending to the answer, ns; set by {@link #answer}. */
    long elapsedNanos() {
        return elapsedNanos;
    }
}
