package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.run.Parallel;
import java.util.List;

/**
 * One scenario of the load test: a workload sent through a balancer over agents started in this JVM
 * (or a running balancer at {@code --url}), what it injects meanwhile, and checks on what it measured.
 * It runs once per {@link Variant} and returns a {@link Result} per run, from which alone the reports
 * are written. {@link #all()} lists them in the main job's order.
 */
public interface Scenario {

    static List<Scenario> all() {
        return List.of(new PlainScenario(AgentSet.UNIFORM), new PlainScenario(AgentSet.HETEROGENEOUS),
                new HotKeyScenario(), new OutageScenario(false), new OutageScenario(true), new AgentsScenario(),
                new BadAgentScenario(true), new FleetScenario(), new BadAgentScenario(false));
    }

    /** The scenarios run only when {@code --scenario} names them, after those of {@link #all()}. */
    static List<Scenario> byNameOnly() {
        return List.of(BadAgentScenario.brownOut(3000), new SlowAgentScenario(2000), new TenantsScenario(10));
    }

    /** The name on the command line ({@code --scenario}), in {@code report.md} and in file names, e.g. {@code failure}. */
    String name();

    /** Whether it warms up in its own way, not by {@code --warmup}. */
    default boolean ownWarmup() {
        return false;
    }

    default LoadTestConfig workload(Setup setup) {
        return setup.load();
    }

    /** The variants it runs for {@link Setup#strategies()}, in order; empty when none of them applies. */
    List<Variant> variants(Setup setup);

    /** Whether its variants run at the same time, each over its own agents and proxies. */
    default boolean concurrent() {
        return false;
    }

    /** Runs one variant: starts its agents and proxies, sends the load, injects, stops them, measures and checks. */
    Result run(Variant variant, Setup setup) throws Exception;

    /** Runs every variant (at once when {@link #concurrent()}), printing each one's lines as it ends. */
    default List<Result> runAll(List<Variant> variants, Setup setup) throws Exception {
        return Parallel.each(variants, concurrent(), "loadgen-variant", v -> setup.print(run(v, setup)));
    }

    /** Its section of {@code report.md} and of the console's closing tables, from all its results. */
    Section section(List<Result> results);

    /** Whether it can load a running balancer ({@code --url}). */
    default boolean againstUrl() {
        return false;
    }

    /** Sends its load once to the running balancer at {@code baseUrl}, under {@code label}; needs {@link #againstUrl()}. */
    default Result runAgainst(String baseUrl, String label, Setup setup) throws Exception {
        throw new UnsupportedOperationException("scenario " + name() + " has no --url mode");
    }
}
