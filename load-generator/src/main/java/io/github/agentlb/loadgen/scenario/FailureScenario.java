package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Scenario;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.HealthEventLog.Kind;
import io.github.agentlb.loadgen.run.HealthEventLog;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.stats.FailoverStickiness;
import io.github.agentlb.loadgen.stats.FailurePhases.Phase;
import io.github.agentlb.loadgen.stats.FailurePhases;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import io.github.agentlb.loadgen.stats.Timeline;
import java.io.PrintStream;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The fault scenario of one strategy: three identical embedded agents behind the demo proxy; agent
 * {@value #DEAD_AGENT} is killed ({@link Fault}) when the first third of the measured requests has
 * been sent and restarted on the same port when two thirds have been, while the load goes on.
 * Phases, figures and timeline come from the client's outcomes ({@link FailurePhases},
 * {@link RunStatistics}, {@link FailoverStickiness}, {@link Timeline}); ejections and
 * re-admissions from the balancer's health listener ({@link HealthEventLog}).
 *
 * <p>The kill and the restart run on a controller thread of their own, so no worker waits for them.
 * Not thread-safe; one run at a time.
 */
public final class FailureScenario {

    /** The agent that fails. */
    public static final String DEAD_AGENT = "A1";
    /** Default measured requests of a fault run: 600, about 2 s per phase at the default agents' pace. */
    public static final int DEFAULT_REQUESTS = 600;
    /** Default users of a fault run: 100, so each sends about 2 requests per phase. */
    public static final int DEFAULT_USERS = 100;
    /**
     * The proxy's per-attempt answer timeout in the {@link Fault#HANG} run, ms: a fifth of the
     * default, about 7x the slowest answer (150 ms), so that on a busy 2-core machine, where a live
     * agent's answer was seen to take over 500 ms, only the hung agent times out.
     */
    public static final int HANG_PROXY_REQUEST_TIMEOUT_MS = 1_000;
    /** Width of a timeline bucket. */
    static final Duration TIMELINE_BUCKET = Duration.ofSeconds(1);
    /** How long the controller may take to kill or restart the agent, s. */
    private static final long CONTROL_WAIT_SECONDS = 30;

    private final Fault fault;
    private final ScenarioLoad load;

    /**
     * @param fault what the agent does while down
     * @param load  the agents, their seed, the measured load (>= 3 requests) and where progress goes
     * @throws IllegalArgumentException if the load has fewer than 3 requests
     */
    public FailureScenario(Fault fault, ScenarioLoad load) {
        this.fault = Objects.requireNonNull(fault, "fault");
        this.load = Objects.requireNonNull(load, "load");
        if (load.config().requests() < 3) {
            throw new IllegalArgumentException("requests must be >= 3 for three phases, was "
                    + load.config().requests());
        }
    }

    /** The proxy's per-attempt answer timeout of this fault's run, ms. */
    public int proxyRequestTimeoutMs() {
        return fault == Fault.HANG ? HANG_PROXY_REQUEST_TIMEOUT_MS : ProxyConfig.DEFAULT_FIRST_BYTE_TIMEOUT_MS;
    }

    /**
     * The outlier ejection of the scenario's balancers: the library's defaults but a base
     * ejection time of 1 s doubling up to 2 s (defaults 10 s and 300 s), so that within phases of a
     * few seconds a dead agent is tried again every 2 s at most and is back within 2 s of its restart.
     */
    public static final OutlierEjection EJECTION = OutlierEjection.custom().baseEjectionTime(Duration.ofSeconds(1))
            .maxEjectionTime(Duration.ofSeconds(2)).build();

    /**
     * A balancer of {@code strategy} with {@link #EJECTION} and failover on an answer timeout (the
     * scenario's requests are GETs: a hung agent's are sent on to another agent, as the scenario
     * measures; the proxy's default answers 504 instead), its other settings the defaults.
     */
    static AgentLoadBalancerSupport balancer(String strategy) {
        AgentLoadBalancerSupport balancer = Strategies.create(strategy);
        balancer.setOutlierEjection(EJECTION);
        balancer.setFailoverPolicy(balancer.getFailoverPolicy().withFailOverOnAnswerTimeout(true));
        return balancer;
    }

    /** The failure settings of {@link #balancer}, for the report, read from a balancer so they cannot drift. */
    static String balancerSettings() {
        AgentLoadBalancerSupport balancer = balancer(Strategies.ROUND_ROBIN);
        OutlierEjection e = balancer.getOutlierEjection();
        int attempts = balancer.getMaximumFailoverAttempts();
        return String.format(Locale.ROOT, "outlier ejection after %d consecutive connection failure(s) for %d ms, "
                        + "doubling per repeated ejection up to %d ms, at most a share %.1f of the agents ejected "
                        + "(never the last); failover %s, %s",
                e.consecutiveFailures(), e.baseEjectionTime().toMillis(), e.maxEjectionTime().toMillis(),
                e.maxEjectedShare(), attempts < 0 ? "to every agent once" : "up to " + attempts + " more attempt(s)",
                balancer.getFailoverDeadline().isZero() ? "no deadline"
                        : "deadline " + balancer.getFailoverDeadline().toMillis() + " ms");
    }

    /**
     * Runs the scenario for {@code strategy}.
     *
     * @throws Exception if the cluster cannot start, the agent cannot be killed or restarted, or
     *                   the load run is stuck
     */
    public FailureReport run(String strategy) throws Exception {
        HealthEventLog health = new HealthEventLog(System::nanoTime);
        ProxyConfig.Builder proxy = ProxyConfig.builder().strategy(strategy).firstByteTimeoutMs(proxyRequestTimeoutMs());
        LoadTestConfig config = load.config();
        PrintStream stdout = load.stdout();
        try (EmbeddedCluster cluster = EmbeddedCluster.start(Scenario.UNIFORM, load.template(), load.seed(), proxy,
                () -> {
                    AgentLoadBalancerSupport lb = balancer(strategy);
                    lb.addHealthListener(health);
                    return lb;
                })) {
            stdout.printf("== %s, %s scenario: agents %s behind the demo proxy at %s; %s is %s after 1/3 of the "
                            + "requests and restarted after 2/3%n", strategy, fault.label(),
                    String.join(", ", cluster.agentIds()), cluster.baseUrl(), DEAD_AGENT,
                    fault == Fault.HANG ? "hung" : "killed");
            load.warmUp(cluster.baseUrl(), strategy);
            StubAgent victim = cluster.agents().stream().filter(a -> a.config().agentId().equals(DEAD_AGENT))
                    .findFirst().orElseThrow();
            ExecutorService controller = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "loadgen-fault-" + strategy);
                t.setDaemon(true);
                return t;
            });
            try (AgentFault agentFault = new AgentFault(victim, fault, System::nanoTime)) {
                FaultTrigger trigger = new FaultTrigger(config.requests(), controller, agentFault);
                LoadRunner.RunResult result = new LoadRunner(config, stdout).run(cluster.baseUrl(),
                        strategy + " " + fault.label(), trigger);
                trigger.await();
                FailurePhases phases = new FailurePhases(agentFault.killedAtNanos(), agentFault.restartedAtNanos());
                return report(strategy, fault, config, proxyRequestTimeoutMs(), cluster.agentIds(),
                        result.timedOutcomes(), phases, health);
            } finally {
                controller.shutdownNow();
            }
        }
    }

    /** Submits the kill when request {@code n/3 + 1} starts and the restart at {@code 2n/3 + 1}. */
    static final class FaultTrigger implements IntConsumer {
        private final int killAt;
        private final int restartAt;
        private final ExecutorService controller;
        private final AgentFault agentFault;
        private volatile Future<?> kill;
        private volatile Future<?> restart;

        FaultTrigger(int requests, ExecutorService controller, AgentFault agentFault) {
            this.killAt = requests / 3 + 1;
            this.restartAt = 2 * requests / 3 + 1;
            this.controller = controller;
            this.agentFault = agentFault;
        }

        @Override
        public void accept(int started) {
            if (started == killAt) {
                kill = controller.submit(() -> {
                    agentFault.kill();
                    return null;
                });
            } else if (started == restartAt) {
                restart = controller.submit(() -> {
                    agentFault.restart();
                    return null;
                });
            }
        }

        /** Waits for the kill and the restart to be done, rethrowing what they threw. */
        void await() throws Exception {
            if (kill == null || restart == null) {
                throw new IllegalStateException("the run ended before the kill and the restart were triggered");
            }
            kill.get(CONTROL_WAIT_SECONDS, TimeUnit.SECONDS);
            restart.get(CONTROL_WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * The report of a run from its outcomes, phases and health events alone (no I/O, no clock):
     * per-phase {@link RunStatistics} with each phase's wall time (from the first request sent to
     * the last outcome), stickiness with the return counted from the dead agent's first
     * re-admission after the restart (from the restart when none was seen), ejection delays, and
     * the timeline from the first request sent.
     */
    static FailureReport report(String strategy, Fault fault, LoadTestConfig config, int proxyRequestTimeoutMs,
                                List<String> agents, List<TimedOutcome> outcomes, FailurePhases phases,
                                HealthEventLog health) {
        long start = outcomes.stream().mapToLong(TimedOutcome::sentAtNanos).min().orElse(phases.killNanos());
        long end = outcomes.stream().mapToLong(TimedOutcome::completedAtNanos).max().orElse(phases.restartNanos());
        Map<Phase, List<TimedOutcome>> split = phases.split(outcomes);
        Map<Phase, Long> durations = phases.durations(start, end);
        Map<Phase, RunStatistics> stats = new EnumMap<>(Phase.class);
        Map<Phase, Long> overTimeout = new EnumMap<>(Phase.class);
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(proxyRequestTimeoutMs);
        split.forEach((phase, list) -> {
            stats.put(phase, RunStatistics.of(list.stream().map(TimedOutcome::outcome).toList(), agents,
                    durations.get(phase)));
            overTimeout.put(phase, list.stream().filter(o -> o.outcome().latencyNanos() >= timeoutNanos).count());
        });
        OptionalLong readmitted = health.nanosUntil(DEAD_AGENT, Kind.READMITTED, phases.restartNanos());
        long returnFrom = phases.restartNanos() + readmitted.orElse(0);
        FailoverStickiness stickiness = FailoverStickiness.of(outcomes, phases, DEAD_AGENT, returnFrom);
        int otherEjections = agents.stream().filter(a -> !a.equals(DEAD_AGENT))
                .mapToInt(a -> health.count(a, Kind.EJECTED, start)).sum();
        FailureReport.HealthTimes times = new FailureReport.HealthTimes(
                millis(health.nanosUntil(DEAD_AGENT, Kind.EJECTED, phases.killNanos())), millis(readmitted),
                health.count(DEAD_AGENT, Kind.EJECTED, phases.killNanos()), otherEjections);
        return new FailureReport(strategy, fault, config, proxyRequestTimeoutMs, balancerSettings(), DEAD_AGENT,
                (phases.killNanos() - start) / 1e9, (phases.restartNanos() - start) / 1e9, stats, overTimeout, stickiness, times,
                Timeline.of(outcomes, start, TIMELINE_BUCKET, agents));
    }

    private static double millis(OptionalLong nanos) {
        return nanos.isPresent() ? nanos.getAsLong() / 1e6 : Double.NaN;
    }
}
