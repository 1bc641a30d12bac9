package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.run.AgentFault;
import io.github.agentlb.loadgen.run.BalancerLog.Kind;
import io.github.agentlb.loadgen.run.BalancerLog;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.stats.Stickiness.FailoverStickiness;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The {@code failure} and {@code hang} scenarios: the uniform agents behind the demo proxy; agent
 * {@value #DEAD_AGENT} crashes (in {@code hang} its port then held by a listener that never answers,
 * {@link AgentFault}) at 1/3 of the measured requests and is restarted at 2/3, on a controller thread.
 * Measured: per phase the client's figures, the balancer's ejection and re-admission
 * ({@link BalancerLog}), who kept their agent ({@link FailoverStickiness}).
 *
 * @param proxyRequestTimeoutMs the proxy's answer timeout, ms
 */
public record OutageScenario(boolean hang, int proxyRequestTimeoutMs) implements Scenario {

    public static final String DEAD_AGENT = "A1";
    /** Default requests of a run: 600 (about 2 s per phase at the default pace) over 100 users. */
    public static final int DEFAULT_REQUESTS = 600, DEFAULT_USERS = 100;
    /** The proxy's answer timeout in {@code hang}, ms: a fifth of the default, 7x the slowest answer (150 ms). */
    public static final int HANG_PROXY_REQUEST_TIMEOUT_MS = 1_000;
    /** The fault scenarios' outlier ejection: the defaults but 1 s doubling up to 2 s (not 10 s, 300 s): short phases. */
    public static final OutlierEjection EJECTION = OutlierEjection.custom().baseEjectionTime(Duration.ofSeconds(1))
            .maxEjectionTime(Duration.ofSeconds(2)).build();

    /** @param hang {@code hang} (answer timeout {@value #HANG_PROXY_REQUEST_TIMEOUT_MS} ms) rather than {@code failure} */
    public OutageScenario(boolean hang) {
        this(hang, hang ? HANG_PROXY_REQUEST_TIMEOUT_MS : ProxyConfig.DEFAULT_FIRST_BYTE_TIMEOUT_MS);
    }

    @Override
    public String name() {
        return hang ? "hang" : "failure";
    }

    @Override
    public LoadTestConfig workload(Setup setup) {
        return setup.faultLoad();
    }

    /** What the agent does while down, for reports. */
    public String fault() {
        return hang ? "its server is stopped and a listener on the same port accepts connections and never answers"
                : "its server is stopped (connections refused, requests in service dropped)";
    }

    @Override
    public List<Variant> variants(Setup setup) {
        return setup.strategies().stream().map(s -> Variant.of(s, s, OutageScenario::configure, 1)).toList();
    }

    /** Sets {@link #EJECTION} and failover on an answer timeout (GETs: a hung agent's go on; the default answers 504). */
    static void configure(AgentLoadBalancerSupport balancer) {
        balancer.setOutlierEjection(EJECTION);
        balancer.setFailoverPolicy(balancer.getFailoverPolicy().withFailOverOnAnswerTimeout(true));
    }

    /** The failure settings of {@link #configure}, read from a balancer so that they cannot drift. */
    static String balancerSettings() {
        AgentLoadBalancerSupport balancer = Strategies.create(Strategies.ROUND_ROBIN);
        configure(balancer);
        OutlierEjection e = balancer.getOutlierEjection();
        int attempts = balancer.getMaximumFailoverAttempts();
        return Section.format("outlier ejection after %d consecutive connection failure(s) for %d ms, "
                        + "doubling per repeated ejection up to %d ms, at most a share %.1f of the agents ejected "
                        + "(never the last); failover %s, %s", e.consecutiveFailures(), e.baseEjectionTime().toMillis(),
                e.maxEjectionTime().toMillis(), e.maxEjectedShare(),
                attempts < 0 ? "to every agent once" : "up to " + attempts + " more attempt(s)",
                balancer.getFailoverDeadline().isZero() ? "no deadline"
                        : "deadline " + balancer.getFailoverDeadline().toMillis() + " ms");
    }

    @Override
    public Result run(Variant variant, Setup setup) throws Exception {
        int n = workload(setup).requests();
        AgentFault[] fault = new AgentFault[1];
        try {
            return ClusterRun.run(this, variant, setup, AgentSet.UNIFORM.agents(setup.template(), setup.seed()),
                    DEAD_AGENT + " is " + (hang ? "hung" : "killed") + " after 1/3 of the requests and restarted "
                            + "after 2/3",
                    ProxyConfig.builder().firstByteTimeoutMs(proxyRequestTimeoutMs), List.of("before", "down", "after"),
                    cluster -> {
                        fault[0] = new AgentFault(cluster.agent(DEAD_AGENT), hang, System::nanoTime);
                        return List.of(new Changes.Change((hang ? "hang " : "kill ") + DEAD_AGENT,
                                        Changes.atRequest(1, 3, n), true, fault[0]::kill),
                                new Changes.Change("restart " + DEAD_AGENT, Changes.atRequest(2, 3, n), true,
                                        fault[0]::restart));
                    }, (m, cluster) -> result(m));
        } finally {
            if (fault[0] != null) {
                fault[0].close();
            }
        }
    }

    /**
     * The result of a measured run (no I/O, no clock); stickiness's return counts from the dead agent's first
     * re-admission after the restart (from the restart when none was seen).
     */
    Result result(ClusterRun.Measured m) {
        long timeoutNanos = proxyRequestTimeoutMs * 1_000_000L;
        List<Result.Phase> phases = m.phaseResults((i, list) -> Map.of("requests_over_proxy_timeout",
                list.stream().filter(o -> o.outcome().latencyNanos() >= timeoutNanos).count()));
        long kill = m.made().get(0).startNanos();
        long restart = m.made().get(1).startNanos();
        BalancerLog log = m.log();
        OptionalLong readmitted = log.nanosUntil(DEAD_AGENT, Kind.READMITTED, restart);
        FailoverStickiness st = FailoverStickiness.of(m.outcomes(), m.phases(), DEAD_AGENT, restart + readmitted.orElse(0));
        double before = phases.get(0).stats().latency().p99Ms();
        Map<String, Object> figures = Result.map("dead_agent", DEAD_AGENT, "fault", fault(),
                "proxy_request_timeout_ms", proxyRequestTimeoutMs, "balancer_settings", balancerSettings(),
                "kill_s", m.seconds(kill), "restart_s", m.seconds(restart),
                "down_p99_over_before", before == 0 ? Double.NaN : phases.get(1).stats().latency().p99Ms() / before,
                "stickiness", Result.map("dead_agent_users", st.deadAgentUsers(), "other_users", st.otherUsers(),
                        "others_in_down", st.othersInDown(), "others_stayed_down", st.othersStayedDown(),
                        "others_stayed_down_share", st.othersStayedDownShare(), "others_in_after", st.othersInAfter(),
                        "others_stayed_after", st.othersStayedAfter(), "others_stayed_after_share",
                        st.othersStayedAfterShare(), "dead_users_in_return", st.deadUsersInReturn(),
                        "dead_users_returned", st.deadUsersReturned(), "dead_users_returned_share",
                        st.deadUsersReturnedShare()),
                "health", Result.map("kill_to_ejection_ms", ClusterRun.millis(log.nanosUntil(DEAD_AGENT, Kind.EJECTED, kill)),
                        "restart_to_readmission_ms", ClusterRun.millis(readmitted), "dead_agent_ejections",
                        log.count(DEAD_AGENT, Kind.EJECTED, kill), "other_ejections", m.agents().stream().filter(a ->
                                !a.equals(DEAD_AGENT)).mapToInt(a -> log.count(a, Kind.EJECTED, m.startNanos())).sum()));
        List<String> unmeasured = phases.stream().filter(p -> p.stats().requests() == 0).map(Result.Phase::name)
                .toList();
        figures.put("unmeasured_phases", unmeasured);
        String empty = String.join(", ", unmeasured);
        Result r = m.result(phases, figures, List.of(), m.run().statistics().clientErrors(),
                m.timeline(Duration.ofSeconds(1)));
        return ClusterRun.withPhaseLines(r, ClusterRun.timelineChart(r, Section.format("agent %s %s at %.1f "
                        + "s, restarted at %.1f s", DEAD_AGENT, hang ? "hung" : "killed", m.seconds(kill),
                m.seconds(restart)), null), r.line("kill to ejection %s ms, restart to re-admission %s ms; others "
                        + "stayed %s (down), %s's users back %s", health(r, "kill_to_ejection_ms"),
                health(r, "restart_to_readmission_ms"), stickiness(r, "others_stayed_down", "others_in_down"), DEAD_AGENT,
                stickiness(r, "dead_users_returned", "dead_users_in_return")),
                empty.isEmpty() ? null : r.line("NOT MEASURED: no request in phase %s: raise --failure-requests (the "
                        + "kill and the restart run beside the requests and land late in a short run)", empty),
                readmitted.isPresent() || log.count(DEAD_AGENT, Kind.EJECTED, kill) == 0 ? null : r.line("NOT MEASURED: "
                        + "%s was ejected and not re-admitted before the run ended: raise --failure-requests (its users "
                        + "could not come back)", DEAD_AGENT));
    }

    private static String health(Result r, String name) {
        return Section.num("%.0f", Result.<Map<String, Number>>figure(r.figures(), "health").get(name).doubleValue());
    }

    /** A stickiness share for the keyed strategies ({@code 1.000 (60/60)}); "n/a" for the others. */
    private static String stickiness(Result r, String part, String whole) {
        Map<String, Object> st = Result.figure(r.figures(), "stickiness");
        int p = (int) st.get(part);
        int w = (int) st.get(whole);
        return !r.strategy().equals(Strategies.CONSISTENT_HASH) && !r.strategy().equals(Strategies.ADAPTIVE_VIRTUAL_NODES)
                || w == 0 ? "n/a" : Section.format("%.3f (%d/%d)", (double) p / w, p, w);
    }

    @Override
    public Section section(List<Result> results) {
        Result first = results.get(0);
        LoadTestConfig c = first.load();
        List<String> agents = List.copyOf(first.phases().get(0).stats().agents().keySet());
        Section.TableBuilder phases = Section.table().left("strategy", "phase")
                .right("requests", "client errors", "p99 ms", "p99 / before", "waited a timeout")
                .right(agents.toArray(String[]::new));
        Section.TableBuilder health = Section.table().left("strategy").right("kill to ejection ms",
                "restart to re-admission ms", "ejections of " + DEAD_AGENT, "ejections of others", "others stayed (down)",
                "others stayed (after)", DEAD_AGENT + "'s users back");
        for (Result r : results) {
            double before = r.phases().get(0).stats().latency().p99Ms();
            for (Result.Phase p : r.phases()) {
                phases.row(List.of(r.variant(), p.name(), p.stats().requests(), p.stats().clientErrors(),
                        Section.num("%.1f", p.stats().latency().p99Ms()),
                        before == 0 ? "n/a" : Section.num("%.2f", p.stats().latency().p99Ms() / before),
                        p.figures().get("requests_over_proxy_timeout"),
                        agents.stream().map(p.stats()::answered).toList()));
            }
            Map<String, Object> h = Result.figure(r.figures(), "health");
            health.row(List.of(r.variant(), health(r, "kill_to_ejection_ms"), health(r, "restart_to_readmission_ms"),
                    h.get("dead_agent_ejections"), h.get("other_ejections"),
                    stickiness(r, "others_stayed_down", "others_in_down"),
                    stickiness(r, "others_stayed_after", "others_in_after"),
                    stickiness(r, "dead_users_returned", "dead_users_in_return")));
        }
        return new Section(name(), List.of(Section.format("Agents: %s. Agent %s is down from when 1/3 of "
                        + "the requests have been sent until 2/3 have: %s; then it is restarted on the same port. %s; "
                        + "proxy answer timeout %d ms per attempt, client timeout %d ms. Balancer: %s.",
                AgentSet.UNIFORM.description(), DEAD_AGENT, fault(), ClusterRun.loadText(c), proxyRequestTimeoutMs,
                c.timeoutMs(), first.figures().get("balancer_settings")),
                phases.build(), health.build(), "A request belongs to the phase in which it was sent. Client errors = "
                        + "errors + timeouts seen by the client (goal 0); p99 over answered requests, client-side (goal: "
                        + "down within 1.5x before); \"waited a timeout\" = requests that took at least the proxy's answer "
                        + "timeout, i.e. waited out an agent that did not answer (goal: a few, not every third). Columns "
                        + "A1..A3: requests answered by each agent. Stickiness (meaningful for `ch` and `avn`): a user's "
                        + "home is the one agent that answered all its requests before the kill; \"others stayed\" = "
                        + "users at home on a live agent whose answers in the phase all came from it; \"users back\" = "
                        + "the dead agent's users whose answers to requests sent after its re-admission (after its "
                        + "restart when none was seen) all came from it. Ejection times come from the balancer's health "
                        + "listener; n/a = not observed."), ClusterRun.charts(results));
    }
}
