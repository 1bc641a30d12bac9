package io.github.agentlb.loadgen.fleet;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.scenario.ScenarioLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Processor;
import org.apache.camel.support.AsyncProcessorConverterHelper;

/**
 * The fleet scenario of one strategy: the uniform scenario's agents A1-A3 and a fourth, A4, all
 * in this JVM, behind the demo proxy; over the measured requests A4 joins at 1/4 (with
 * {@link #SLOW_START}), A2 is drained at 1/2 and comes back at 3/4, each change made through the
 * balancer's membership API on the proxy's balancer, by request count ({@link FleetTrigger}).
 * Phases, key moves and the timeline come from the client's outcomes ({@link FleetReport}).
 *
 * <p>How A4 joins: the demo proxy builds a netty-http producer per configured agent (forwarding
 * binding, header filter, timeouts) and offers no way to build one for an agent added later, so
 * the proxy is started over A1-A4 and A4 is removed from the balancer before the warm-up; at 1/4
 * that same producer is added again under the name A4, a member new to the balancer. A2 comes
 * back with its own producer, which the balancer does not stop when A2 leaves.
 *
 * <p>Not thread-safe; one run at a time.
 */
public final class FleetScenario {

    /** The scenario's name on the command line and in file names. */
    public static final String LABEL = "fleet";

    /** Default measured requests: 1200, about 3 s per phase at the default agents' pace. */
    public static final int DEFAULT_REQUESTS = 1_200;
    /** Default users: 100, so each sends about 3 requests per phase and most are seen in every phase. */
    public static final int DEFAULT_USERS = 100;
    /**
     * The slow start of the run's balancers: 2 s, linear, at least 10%: over well within a phase
     * of about 3 s, so the joining agent has its whole share before the next change (the demo
     * proxy's own is 30 s, {@link SlowStart#DEMO}).
     */
    public static final SlowStart SLOW_START = new SlowStart(Duration.ofSeconds(2), 1.0, 0.1);

    private final ScenarioLoad load;
    private final SlowStart slowStart;

    /**
     * @param load      the agents, their seed, the measured load (>= 4 requests) and where progress goes
     * @param slowStart the slow start of the balancers ({@link #SLOW_START} in the main job)
     * @throws IllegalArgumentException if the load has fewer than 4 requests
     */
    public FleetScenario(ScenarioLoad load, SlowStart slowStart) {
        this.load = Objects.requireNonNull(load, "load");
        this.slowStart = Objects.requireNonNull(slowStart, "slowStart");
        FleetPhase.RETURNED.startsAtRequest(load.config().requests()); // validates the count
    }

    /** The uniform scenario's agents and A4, derived from {@code template} as they are. */
    static List<AgentConfig> agents(AgentConfig template, long seed) {
        List<AgentConfig> agents = new ArrayList<>(Scenario.UNIFORM.agents(template, seed));
        agents.add(template.toBuilder().agentId(FleetPhase.JOINING).port(0)
                .seed(AgentConfig.defaultSeed(FleetPhase.JOINING) ^ seed).build());
        return agents;
    }

    /** A balancer of {@code strategy} with {@code slowStart}, its other settings the defaults. */
    static AgentLoadBalancerSupport balancer(String strategy, SlowStart slowStart) {
        AgentLoadBalancerSupport balancer = Strategies.create(strategy);
        balancer.setSlowStart(slowStart);
        return balancer;
    }

    /**
     * Runs the scenario for {@code strategy}.
     *
     * @throws Exception if the cluster cannot start, a change is rejected, or the load run is stuck
     */
    public FleetReport run(String strategy) throws Exception {
        LoadTestConfig config = load.config();
        PrintStream stdout = load.stdout();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(agents(load.template(), load.seed()),
                ProxyConfig.builder().strategy(strategy), () -> balancer(strategy, slowStart), 1)) {
            AgentLoadBalancerSupport balancer = cluster.balancer();
            Map<String, AsyncProcessor> children = childrenByAgent(cluster);
            balancer.removeAgent(FleetPhase.JOINING);
            stdout.printf(Locale.ROOT, "== %s, fleet scenario: agents %s behind the demo proxy at %s; %s joins after "
                            + "1/4 of the requests (slow start %d ms), %s is drained after 1/2 and back after 3/4%n",
                    strategy, String.join(", ", balancer.getAgentIds()), cluster.baseUrl(), FleetPhase.JOINING,
                    slowStart.window().toMillis(), FleetPhase.LEAVING);
            load.warmUp(cluster.baseUrl(), strategy);
            FleetTrigger trigger = new FleetTrigger(config.requests(), actions(balancer, children), System::nanoTime);
            LoadRunner.RunResult result = new LoadRunner(config, stdout).run(cluster.baseUrl(), strategy + " fleet",
                    trigger);
            return FleetReport.of(strategy, config, slowStart, cluster.agentIds(), result.timedOutcomes(),
                    trigger.changes(), trigger.leftNanos());
        }
    }

    /** The balancer's children by agent id (A1..A4), as the proxy built them. */
    private static Map<String, AsyncProcessor> childrenByAgent(EmbeddedCluster cluster) {
        Map<String, AsyncProcessor> children = new HashMap<>();
        for (Processor child : cluster.balancer().getProcessors()) {
            children.put(cluster.agentIdOf(AgentLoadBalancerSupport.agentIdOf(child)),
                    AsyncProcessorConverterHelper.convert(child));
        }
        for (String agent : List.of(FleetPhase.JOINING, FleetPhase.LEAVING)) {
            if (!children.containsKey(agent)) {
                throw new IllegalStateException("the proxy's balancer has no child for " + agent + ": " + children.keySet());
            }
        }
        return children;
    }

    private static FleetTrigger.Actions actions(AgentLoadBalancerSupport balancer, Map<String, AsyncProcessor> children) {
        return new FleetTrigger.Actions() {
            @Override
            public void join() {
                balancer.addAgent(FleetPhase.JOINING, children.get(FleetPhase.JOINING), 1.0);
            }

            @Override
            public CompletableFuture<Void> drain() {
                return balancer.drainAgent(FleetPhase.LEAVING);
            }

            @Override
            public void comeBack() {
                balancer.addAgent(FleetPhase.LEAVING, children.get(FleetPhase.LEAVING), 1.0);
            }
        };
    }
}
