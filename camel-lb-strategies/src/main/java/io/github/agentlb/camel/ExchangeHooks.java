package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReports;
import java.util.Collection;
import java.util.List;
import org.apache.camel.Exchange;

/**
 * The {@link AttemptHooks} of one exchange's attempts, answered from the state the exchange
 * started with: its answer rules, its learned sessions, its health check settings; for a leg of a
 * hedged request (its exchange copy carries the leg), whether its answer wins. Each attempt's
 * copy carries it as property {@value AttemptHooks#PROPERTY}; {@link Attempts} names the agent of
 * the attempt in flight before it sends it.
 *
 * <p>Thread-safe as {@link AttemptHooks} asks: a child calls it from any thread while its attempt
 * runs; the agent is set before the attempt is handed to the child.
 */
final class ExchangeHooks implements AttemptHooks {

    private final BalancerState state;
    /** The client's exchange: its method decides which answers are held back to fail over. */
    private final Exchange exchange;
    /** The agent of the attempt in flight: the one {@link #clientValue} seals into session ids. */
    private String current;
    /** The attempt in flight, set before it is handed to the child. */
    private Attempt attempt;
    /** The leg of a hedged request these attempts are, else null. */
    private final HedgedRequest.Leg leg;

    ExchangeHooks(BalancerState state, Exchange exchange) {
        this.state = state;
        this.exchange = exchange;
        // A leg's exchange has properties (the leg among them): an exchange without any skips the lookup.
        this.leg = exchange.hasProperties() ? exchange.getProperty(HedgedRequest.LEG_PROPERTY, HedgedRequest.Leg.class)
                : null;
    }

    /** The next attempt goes to {@code agent}. */
    void attempting(String agent) {
        current = agent;
        if (leg != null) {
            leg.attempting(agent);
        }
    }

    /** The attempt to {@link #attempting}'s agent, made. */
    void attempt(Attempt made) {
        attempt = made;
    }

    @Override
    public void answerEnds() {
        Attempt inFlight = attempt;
        if (inFlight != null) {
            inFlight.leavePlace();
        }
    }

    /** @return the leg of a hedged request these attempts are, else null */
    HedgedRequest.Leg leg() {
        return leg;
    }

    /**
     * The head says the agent is not busy: if this attempt is its trial after a rest, the wait of
     * the others for that answer ends now, not when the answer has streamed to its end (the client
     * may have it all, and send again, before the call ends).
     */
    @Override
    public boolean answerHead() {
        Attempt inFlight = attempt;
        if (inFlight != null) {
            inFlight.slot().trialAnswered();
        }
        return leg == null || leg.answered(true);
    }

    @Override
    public boolean passesOnUnsettled() {
        return leg == null || leg.alone();
    }

    @Override
    public Runnable whenHedgeLost(Runnable end) {
        return leg == null ? NOTHING : leg.whenLost(end);
    }

    @Override
    public Collection<String> requestHeaders() {
        return state.sessions == null ? NONE.requestHeaders()
                : List.of(LoadReports.FORMAT_HEADER, state.sessions.settings().header());
    }

    @Override
    public Runnable whenAgentDown(Runnable end) {
        AgentSlot slot = state.slot(current);
        return slot == null || !state.config.healthCheck().endsCalls() ? NOTHING
                : slot.whenDown(end, () -> state.detector.isMarkedDown(current));
    }

    @Override
    public boolean repeatable(boolean byRfc) {
        return state.config.failover().repeatable(exchange.getIn());
    }

    @Override
    public boolean isBusy(int status, String retryAfter) {
        // Whether it may be sent twice matters only for a 503 that rests its agent (AnswerRules.busyMayFailOver): read only then.
        boolean repeatable = status == 503 && state.config.failover().repeatable(exchange.getIn());
        // A leg of a hedged request also holds back an error answer: another leg may still answer well.
        return state.config.answers().holdsBack(status, retryAfter, repeatable, state.config.failover())
                || leg != null && !state.config.answers().settles(status, retryAfter);
    }

    @Override
    public String clientValue(String header, String value) {
        return state.sessions != null && state.sessions.settings().header().equalsIgnoreCase(header)
                ? state.sessions.clientId(current, value) : value;
    }
}
