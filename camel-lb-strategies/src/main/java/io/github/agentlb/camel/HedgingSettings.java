package io.github.agentlb.camel;

import io.github.agentlb.core.Durations;
import io.github.agentlb.core.hedge.HedgeDelay;
import io.github.agentlb.core.hedge.HedgePolicy;
import io.github.agentlb.core.retry.RetriesInFlight;
import java.time.Duration;
import java.util.Objects;

/**
 * The knobs of hedged requests, on every balancer: the JavaBean face of
 * {@link BalancerConfig#hedging()} (when a knob takes effect: {@link Configurable}). Off by default.
 *
 * <h2>What is hedged</h2>
 * A request whose {@code CamelHttpMethod} is one of the failover policy's idempotent methods
 * (GET, HEAD, OPTIONS, TRACE, PUT, DELETE by default) or that carries an {@code Idempotency-Key}
 * header; never any other (a POST without {@code Idempotency-Key} goes to one agent at a time, as
 * without hedging), nor one pinned to an agent by a learned session. When such a request has no
 * answer head after the hedge delay, the same request goes to another agent (the strategy's choice,
 * excluding the agents its attempts are on and the ejected ones), at most {@code maxHedges} times,
 * one delay apart. Each attempt runs on its own copy of the exchange, with its own failovers.
 *
 * <h2>Who wins</h2>
 * The first attempt to produce an answer head: for the {@code agent:} child, the head of an answer
 * that is about to go to the client ({@link AttemptHooks#answerHead}); for any other child, the
 * first attempt to complete without an exception (its whole answer). The client gets the winner's
 * answer, once. The others are cancelled: an {@code agent:} call is closed at once, as when the
 * client leaves ({@link AttemptHooks#whenHedgeLost}); another child's late result is discarded
 * (its call runs to its end) and its attempt ends {@link AttemptOutcome#CANCELLED}
 * ({@link HedgeLostException}). An attempt that fails (after its own failovers) waits for the
 * others; the request fails only when every attempt has, with the last failure.
 *
 * <h2>A lost hedge counts against the slow agent</h2>
 * When a hedge wins, each attempt sent before it that is still waiting loses a race for its agent:
 * {@link HedgePolicy#LOST_RACES_TO_EJECT} lost in a row, with no answer from the agent in between,
 * eject it for the ejection time ({@link FailureSettings}), re-admitted by a one-request trial,
 * which a lost race ejects again. Without this rule an agent five times slower than the others
 * keeps its share of the requests under round robin, and each of them ends at the hedge delay plus
 * a fast agent's first byte: hedging alone cannot bring the p99 near the healthy one. With it, the slow agent is ejected
 * after its first lost races and sees one trial per ejection time.
 *
 * <h2>The delay</h2>
 * {@code hedgeDelay} (1 s) when {@code hedgePercentile} is 0; else the {@code hedgePercentile}-th
 * percentile (97) of recent first-byte times, the lowest over the agents ({@link HedgeDelay}: each
 * agent's last {@value HedgeDelay#WINDOW} answer heads; {@code hedgeDelay} until one has
 * {@value HedgeDelay#MIN_SAMPLES}). "The Tail at Scale" (Dean and Barroso, CACM 2013) hedges after
 * the 95th-percentile expected latency; p97 aims at about 3% extra requests (more in practice: the
 * lowest percentile of several agents, and the times of attempts that lost to their hedges missing;
 * 4.5% for agents alike with widely spread times in {@code HedgingTest})
 * ({@link HedgePolicy}). The wait is a task on the balancer's timer ({@code agentlb-attempts}), no
 * thread held.
 *
 * <h2>Budget and counts</h2>
 * A hedge is a retry for the retry budget ({@link RetryBudgetSettings}): it is sent only when the
 * budget has room (a refused one counts in {@code getRetryBudgetExhausted()}), and counts in
 * {@code getRetries()} and in flight while it runs. {@link #getHedgesSent()} and
 * {@link #getHedgesWon()}, also the counters {@code agentlb.hedges.sent} and
 * {@code agentlb.hedges.won} of {@code LoadBalancerMetrics}.
 */
public interface HedgingSettings extends Configurable {

    /** @return the balancer's requests and retries in flight and its retry and hedge totals */
    RetriesInFlight retriesInFlight();

    /** @return hedges sent since the balancer was created */
    default long getHedgesSent() {
        return retriesInFlight().hedgesSent();
    }

    /** @return hedges that won their request since the balancer was created */
    default long getHedgesWon() {
        return retriesInFlight().hedgesWon();
    }

    /** @return the hedging in use ({@link HedgePolicy#DISABLED} unless set) */
    default HedgePolicy getHedging() {
        return balancerConfig().hedging();
    }

    /** Sets the hedging whole; {@link HedgePolicy#DISABLED} turns it off. */
    default void setHedging(HedgePolicy hedging) {
        Objects.requireNonNull(hedging, "hedging");
        configure("hedging", hedging, d -> d.hedging(hedging));
    }

    /** Whether idempotent requests are hedged, default false. */
    default void setHedgingEnabled(boolean enabled) {
        configure("hedgingEnabled", enabled, d -> d.hedging(d.hedging().withEnabled(enabled)));
    }

    default boolean isHedgingEnabled() {
        return getHedging().enabled();
    }

    /** The fixed hedge delay, and the delay until first-byte times are known, > 0, default 1 s; turns hedging on unless {@code hedgingEnabled} was set. */
    default void setHedgeDelay(Duration delay) {
        configure("hedgeDelay", delay, d -> d.hedging(keepSwitch(d.hedging(), d.hedging().withDelay(delay))));
    }

    /** {@link #setHedgeDelay(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setHedgeDelay(String delay) {
        setHedgeDelay(Durations.parse("hedgeDelay", delay));
    }

    default Duration getHedgeDelay() {
        return getHedging().delay();
    }

    /** The percentile of recent first-byte times hedged after, in (0, 100), or 0 for the fixed delay; default 97; turns hedging on unless {@code hedgingEnabled} was set. */
    default void setHedgePercentile(double percentile) {
        configure("hedgePercentile", percentile,
                d -> d.hedging(keepSwitch(d.hedging(), d.hedging().withPercentile(percentile))));
    }

    default double getHedgePercentile() {
        return getHedging().percentile();
    }

    /** Hedges per request at most, in 1..10, default 1; turns hedging on unless {@code hedgingEnabled} was set. */
    default void setMaxHedges(int maxHedges) {
        configure("maxHedges", maxHedges, d -> d.hedging(keepSwitch(d.hedging(), d.hedging().withMaxHedges(maxHedges))));
    }

    /** {@code next}, on or off as {@code current} when hedging was switched by name ({@link #setHedgingEnabled}), else on. */
    private HedgePolicy keepSwitch(HedgePolicy current, HedgePolicy next) {
        return wasSet("hedgingEnabled") ? next.withEnabled(current.enabled()) : next;
    }

    default int getMaxHedges() {
        return getHedging().maxHedges();
    }
}
