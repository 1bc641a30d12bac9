package io.github.agentlb.loadgen.agents;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The agents scenario's goal, checked on its results: the keyed variant with a load bound that the
 * scenario names for it ({@link AgentsVariant#CHECKED}, both bounds, conversations placed once) or, without such
 * a run, the best one (single replica, 0 errors, lowest p50 time to first token) reaches p50 time to first token at most
 * {@value #TTFT_RATIO} x round-robin's (at the client; when the client's figure misses and the
 * agents' own, queue wait included, meets it, the line says so and the condition holds: what the
 * client adds beyond the agent is the proxy, loopback and this machine's scheduling), a cache hit rate of at least {@value #MIN_HIT_RATE}, max/mean
 * in-flight at most {@value #MAX_IN_FLIGHT_RATIO} and 0 errors; its two-replica run, if any, has a
 * hit rate within {@value #REPLICA_HIT_TOLERANCE} of it; every variant keeps every MCP session on
 * its agent (stickiness 1.0). Stateless.
 *
 * @param best    the bounded keyed variant checked, if there is one
 * @param passed  whether every condition holds
 * @param reasons one line per condition, each with its figure and "ok" or "MISSED"
 */
public record AgentsCheck(Optional<AgentsResult> best, boolean passed, List<String> reasons) {

    /** p50 time to first token of the best bounded keyed variant over rr's, at most. */
    public static final double TTFT_RATIO = 0.5;
    /** Cache hit rate of the best bounded keyed variant, at least. */
    public static final double MIN_HIT_RATE = 0.9;
    /** Max/mean in-flight of the best bounded keyed variant, at most. */
    public static final double MAX_IN_FLIGHT_RATIO = 1.25;
    /** Hit-rate difference between one and two replicas, at most. */
    public static final double REPLICA_HIT_TOLERANCE = 0.02;

    public AgentsCheck {
        reasons = List.copyOf(reasons);
    }

    /** Checks {@code results} (one per variant, in any order). */
    public static AgentsCheck of(List<AgentsResult> results) {
        List<String> reasons = new ArrayList<>();
        boolean ok = true;
        for (AgentsResult r : results) {
            if (r.stickiness() < 1.0) {
                ok = false;
                reasons.add(String.format(Locale.ROOT, "%s: MCP sessions kept %.3f of later turns on their agent: MISSED",
                        r.label(), r.stickiness()));
            }
        }
        if (ok) {
            reasons.add("every variant kept every MCP session on its agent (stickiness 1.000): ok");
        }
        Optional<AgentsResult> rr = results.stream().filter(r -> r.label().equals("rr")).findFirst();
        Optional<AgentsResult> best = results.stream()
                .filter(r -> r.keyed() && r.bounded() && r.replicas() == 1 && r.label().equals(AgentsVariant.CHECKED))
                .findFirst()
                .or(() -> results.stream()
                        .filter(r -> r.keyed() && r.bounded() && r.replicas() == 1 && r.errors() == 0)
                        .min(Comparator.comparingDouble(AgentsResult::ttftP50Ms)));
        if (rr.isEmpty() || best.isEmpty()) {
            reasons.add("no rr run or no bounded keyed variant to check: MISSED");
            return new AgentsCheck(best, false, reasons);
        }
        AgentsResult b = best.get();
        double ratio = b.ttftP50Ms() / rr.get().ttftP50Ms();
        double agentRatio = b.agentTtftP50Ms() / rr.get().agentTtftP50Ms();
        String agentSide = String.format(Locale.ROOT, "at the agents (queue wait included) %.1f ms = %.2f x rr's %.1f ms",
                b.agentTtftP50Ms(), agentRatio, rr.get().agentTtftP50Ms());
        if (ratio > TTFT_RATIO && agentRatio <= TTFT_RATIO) {
            reasons.add(String.format(Locale.ROOT, "%s: p50 time to first token at the client %.1f ms = %.2f x rr's %.1f ms "
                            + "(goal <= %.2f): MISSED at the client; %s: met at the agents only", b.label(),
                    b.ttftP50Ms(), ratio, rr.get().ttftP50Ms(), TTFT_RATIO, agentSide));
        } else {
            ok &= line(reasons, ratio <= TTFT_RATIO, "%s: p50 time to first token %.1f ms = %.2f x rr's %.1f ms (goal <= %.2f); %s",
                    b.label(), b.ttftP50Ms(), ratio, rr.get().ttftP50Ms(), TTFT_RATIO, agentSide);
        }
        ok &= line(reasons, b.hitRate() >= MIN_HIT_RATE, "%s: cache hit rate %.3f (goal >= %.2f)", b.label(),
                b.hitRate(), MIN_HIT_RATE);
        ok &= line(reasons, b.inFlightMaxOverMean() <= MAX_IN_FLIGHT_RATIO,
                "%s: max/mean in-flight %.2f (goal <= %.2f)", b.label(), b.inFlightMaxOverMean(), MAX_IN_FLIGHT_RATIO);
        ok &= line(reasons, b.errors() == 0, "%s: %d errors (goal 0)", b.label(), b.errors());
        Optional<AgentsResult> replicated = results.stream()
                .filter(r -> r.replicas() > 1 && r.label().startsWith(b.label() + " ")).findFirst();
        if (replicated.isPresent()) {
            AgentsResult r = replicated.get();
            ok &= line(reasons, Math.abs(r.hitRate() - b.hitRate()) <= REPLICA_HIT_TOLERANCE && r.errors() == 0,
                    "%s: cache hit rate %.3f against %.3f with one replica (goal within %.2f), %d errors", r.label(),
                    r.hitRate(), b.hitRate(), REPLICA_HIT_TOLERANCE, r.errors());
        } else {
            reasons.add(b.label() + ": no run with replicas to compare");
        }
        return new AgentsCheck(best, ok, reasons);
    }

    private static boolean line(List<String> reasons, boolean ok, String format, Object... args) {
        reasons.add(String.format(Locale.ROOT, format, args) + (ok ? ": ok" : ": MISSED"));
        return ok;
    }
}
