package io.github.agentlb.loadgen.faults;

import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.HealthEventLog;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.scenario.FailureScenario;
import io.github.agentlb.loadgen.scenario.ScenarioLoad;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Objects;

/**
 * The busy or gray scenario of one strategy: the uniform scenario's three agents behind the demo
 * proxy, all in this JVM; while the middle third of the measured requests is sent, agent
 * {@value BadAgentReport#BAD_AGENT} answers every request with its {@link BadAnswer} at once
 * ({@code StubAgent.answerWith}), switched by request count ({@link AnswerSwitch}). What the client
 * saw comes from its outcomes; what A1 received from the balancer's attempts ({@link AttemptLog});
 * its ejections from the balancer's health listener ({@link HealthEventLog}).
 *
 * <p>The balancers have the library's answer rules (429, and 503 with {@code Retry-After}, rest the
 * agent; 500, 502, 503, 504 are error answers, five in a row eject it) and the fault scenarios'
 * ejection times ({@link FailureScenario#EJECTION}: 1 s, doubling up to 2 s, so A1 is tried again
 * within the run). Not thread-safe; one run at a time.
 */
public final class BadAgentScenario {

    /** Default users: a tenth of {@link BadAnswer#defaultRequests()}, so each sends about 3 requests per phase. */
    public static int defaultUsers(BadAnswer answer) {
        return answer.defaultRequests() / 10;
    }

    private final BadAnswer answer;
    private final ScenarioLoad load;

    /**
     * @param answer what A1 answers during the middle third
     * @param load   the agents, their seed, the measured load (at least 3 requests) and where
     *               progress goes
     * @throws IllegalArgumentException if the load has fewer than 3 requests
     */
    public BadAgentScenario(BadAnswer answer, ScenarioLoad load) {
        this.answer = Objects.requireNonNull(answer, "answer");
        this.load = Objects.requireNonNull(load, "load");
        BadAgentPhase.AFTER.startsAtRequest(load.config().requests()); // validates the count
    }

    /** What A1 answers in this scenario. */
    public BadAnswer answer() {
        return answer;
    }

    /** A balancer of {@code strategy} with {@link FailureScenario#EJECTION}, its other settings the defaults. */
    static AgentLoadBalancerSupport balancer(String strategy) {
        AgentLoadBalancerSupport balancer = Strategies.create(strategy);
        balancer.setOutlierEjection(FailureScenario.EJECTION);
        return balancer;
    }

    /**
     * Runs the scenario for {@code strategy}.
     *
     * @throws Exception if the cluster cannot start or the load run is stuck
     */
    public BadAgentReport run(String strategy) throws Exception {
        AttemptLog attempts = new AttemptLog(System::nanoTime);
        HealthEventLog health = new HealthEventLog(System::nanoTime);
        LoadTestConfig config = load.config();
        PrintStream stdout = load.stdout();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(Scenario.UNIFORM, load.template(), load.seed(),
                ProxyConfig.builder().strategy(strategy), () -> {
                    AgentLoadBalancerSupport lb = balancer(strategy);
                    lb.addAttemptListener(attempts);
                    lb.addHealthListener(health);
                    return lb;
                })) {
            StubAgent bad = cluster.agents().stream()
                    .filter(a -> a.config().agentId().equals(BadAgentReport.BAD_AGENT)).findFirst().orElseThrow();
            stdout.printf(Locale.ROOT, "== %s, %s scenario: agents %s behind the demo proxy at %s; %s answers %s "
                            + "from 1/3 to 2/3 of the requests%n", strategy, answer.label(),
                    String.join(", ", cluster.agentIds()), cluster.baseUrl(), BadAgentReport.BAD_AGENT,
                    answer.description());
            load.warmUp(cluster.baseUrl(), strategy);
            long measuredFrom = System.nanoTime();
            AnswerSwitch sw = new AnswerSwitch(config.requests(), () -> bad.answerWith(answer.status(),
                    answer.retryAfter()), bad::answerNormally, System::nanoTime);
            LoadRunner.RunResult result = new LoadRunner(config, stdout).run(cluster.baseUrl(),
                    strategy + " " + answer.label(), sw);
            return BadAgentReport.of(strategy, answer, config, cluster.agentIds(), result.timedOutcomes(),
                    attempts.attempts().stream().filter(a -> a.startedNanos() - measuredFrom >= 0).toList(), health,
                    sw.onNanos(), sw.offNanos());
        }
    }
}
