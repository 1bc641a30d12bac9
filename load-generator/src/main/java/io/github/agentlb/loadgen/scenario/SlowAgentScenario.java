package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.core.Check;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import java.util.List;
import java.util.Map;

/**
 * The {@code slow} scenario (only by name): the uniform agents behind the demo proxy with {@code rr},
 * agent {@value #SLOW_AGENT} {@value #FACTOR} times slower, one variant after another: all healthy, slow,
 * slow with the library's hedging. Figures: the clients' p99 and the agent calls per request; checked:
 * no client error; in the section the hedged p99 against the healthy one and the extra calls.
 *
 * @param requests measured requests of each variant, over a tenth as many users, >= 10
 */
public record SlowAgentScenario(int requests) implements Scenario {

    public static final String SLOW_AGENT = "A3";
    /** How many times slower it is. */
    public static final int FACTOR = 5;
    /** The bound on the hedged p99 over the healthy one. */
    public static final double MAX_P99_RATIO = 1.1;
    /** The bound on the extra agent calls per request with hedging. */
    public static final double MAX_EXTRA = 0.05;
    static final String HEALTHY = "rr-healthy";
    static final String SLOW = "rr-slow";
    static final String HEDGED = "rr-hedged";

    public SlowAgentScenario {
        Check.atLeast("requests", requests, 10);
    }

    @Override
    public String name() {
        return "slow";
    }

    @Override
    public LoadTestConfig workload(Setup setup) {
        return setup.load(requests, requests / 10);
    }

    /** The uniform agents, {@value #SLOW_AGENT}'s delays {@value #FACTOR} times longer when {@code slow}. */
    List<AgentConfig> agents(Setup setup, boolean slow) {
        return AgentSet.UNIFORM.agents(setup.template(), setup.seed()).stream()
                .map(a -> slow && a.agentId().equals(SLOW_AGENT)
                        ? a.toBuilder().delayMs(a.delayMinMs() * FACTOR, a.delayMaxMs() * FACTOR).build() : a).toList();
    }

    @Override
    public List<Variant> variants(Setup setup) {
        return Variant.demoRoundRobin(setup.strategies(), List.of(HEALTHY, SLOW, HEDGED),
                (v, balancer) -> balancer.setHedgingEnabled(v.equals(HEDGED)));
    }

    @Override
    public Result run(Variant variant, Setup setup) throws Exception {
        boolean slow = !variant.label().equals(HEALTHY);
        return ClusterRun.run(this, variant, setup, agents(setup, slow), slow ? SLOW_AGENT + " " + FACTOR + "x slower" : "",
                ProxyConfig.builder(), List.of("all"), cluster -> List.of(),
                (m, cluster) -> result(m, cluster.balancer().getHedgesSent(), cluster.balancer().getHedgesWon(),
                        cluster.balancer().getRetryBudgetExhausted()));
    }

    /** The result of a run from its outcomes, the balancer's attempts, its hedge counters and its retry budget's refusals. */
    Result result(ClusterRun.Measured m, long hedgesSent, long hedgesWon, long budgetRefused) {
        long measured = m.run().statistics().requests();
        long attempts = m.log().attempts().stream().filter(a -> a.startedNanos() - m.measuredFromNanos() >= 0).count();
        long onSlow = m.log().attempts().stream().filter(a -> a.agentId().equals(SLOW_AGENT)
                && a.startedNanos() - m.measuredFromNanos() >= 0).count();
        double callsPerRequest = (double) attempts / Math.max(1, measured);
        double p99 = m.run().statistics().latency().p99Ms();
        long errors = m.run().statistics().clientErrors();
        Map<String, Object> figures = Result.map("slow_agent", SLOW_AGENT, "slow_factor",
                m.variant().label().equals(HEALTHY) ? 1 : FACTOR, "hedging", m.variant().label().equals(HEDGED),
                "p99_ms", p99, "agent_calls_per_request", callsPerRequest, "slow_agent_calls", onSlow,
                "hedges_sent", hedgesSent, "hedges_won", hedgesWon, "retry_budget_exhausted", budgetRefused);
        List<Result.Check> checks = List.of(new Result.Check("no client error", errors == 0, errors + " client errors"));
        return m.result(List.of(), figures, checks, errors, null).withLine("p99 %.1f ms, %.3f agent calls per request, "
                + "%s got %d, hedges sent %d, won %d; %d client errors", p99, callsPerRequest, SLOW_AGENT, onSlow,
                hedgesSent, hedgesWon, errors);
    }

    @Override
    public Section section(List<Result> results) {
        Result healthy = Result.find(results, HEALTHY);
        Result hedged = Result.find(results, HEDGED);
        Section.TableBuilder table = Section.table().left("variant").right("requests", "client errors", "p99 ms",
                "p99 / healthy", "agent calls per request", SLOW_AGENT + " calls", "hedges sent / won");
        for (Result r : results) {
            table.row(List.of(r.variant(), r.totals().requests(), r.failures(), r.num("%.1f", "p99_ms"),
                    Section.num("%.2f", r.number("p99_ms") / healthy.number("p99_ms")),
                    r.num("%.3f", "agent_calls_per_request"), r.num("%.0f", "slow_agent_calls"),
                    Section.format("%.0f / %.0f", r.number("hedges_sent"), r.number("hedges_won"))));
        }
        String verdict = Section.format(" With hedging, p99 %.2f x the healthy "
                        + "p99 (goal <= %.1f) for %.1f%% extra agent calls (goal <= %.0f%%): %s.",
                hedged.number("p99_ms") / healthy.number("p99_ms"), MAX_P99_RATIO,
                (hedged.number("agent_calls_per_request") - 1) * 100, MAX_EXTRA * 100,
                hedged.number("p99_ms") <= MAX_P99_RATIO * healthy.number("p99_ms")
                        && hedged.number("agent_calls_per_request") - 1 <= MAX_EXTRA ? "met" : "NOT met");
        LoadTestConfig c = results.get(0).load();
        return new Section(name(), List.of(Section.format("Uniform agents A1-A3 behind the demo proxy (its settings, "
                        + "rr); %s %dx slower (its delays multiplied) except in %s; %s with the library's hedging defaults "
                        + "(a GET also goes to a second agent after the 97th percentile of recent first-byte times, the "
                        + "first answer wins). %d requests over %d users, %d concurrent, one variant after another.%s",
                SLOW_AGENT, FACTOR, HEALTHY, HEDGED, c.requests(), c.users(), c.concurrency(), verdict), table.build()),
                List.of());
    }
}
