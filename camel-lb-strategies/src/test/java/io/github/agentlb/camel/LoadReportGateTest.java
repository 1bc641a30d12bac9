package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.orca.LoadReports;
import io.github.agentlb.core.orca.Saturation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ORCA load reports in the support class: asking for them, reading them, the saturation gate
 * with an injected clock (fresh and stale reports, all agents saturated), and their settings.
 * Agents outside a route answer synchronously with the report the test gives each.
 */
class LoadReportGateTest {

    private static final long MS = 1_000_000L;
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** Not at zero: a report's age is the time now less the time it arrived. */
    private final AtomicLong clock = new AtomicLong(1_000_000 * MS);
    /** Agent name to the {@code endpoint-load-metrics} it answers with; none when absent. */
    private final Map<String, String> reports = new ConcurrentHashMap<>();
    /** Agent name to the request headers it last saw. */
    private final Map<String, Map<String, Object>> seen = new ConcurrentHashMap<>();


    private ScriptedChild agent(String name) {
        return ScriptedChild.answering(name, (attempt, now) -> {
            seen.put(name, Map.copyOf(attempt.getIn().getHeaders()));
            // The answer starts as the request, as camel-http's copyHeaders leaves it.
            attempt.getMessage().setBody(name);
            String report = reports.get(name);
            if (report != null) {
                attempt.getMessage().setHeader(LoadReports.HEADER, report);
            }
        });
    }

    private <T extends AgentLoadBalancerSupport> T started(T balancer, String... agents) {
        return ScriptedChild.startedAgents(balancer, CAMEL.get(), clock::get, this::agent, agents);
    }

    private static Exchange send(AgentLoadBalancerSupport balancer) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader("req_id", "r1");
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static List<String> sequence(AgentLoadBalancerSupport balancer, int requests) {
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            agents.add(send(balancer).getMessage().getBody(String.class));
        }
        return agents;
    }

    @Test
    void aFreshSaturatedReportSendsTheAgentLastUntilItIsStale() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        reports.put("A1", "TEXT named_metrics.kv_cache_usage_perc=0.9, named_metrics.num_requests_waiting=0");
        assertThat(sequence(rr, 3)).containsExactly("A1", "A2", "A3");

        clock.addAndGet(200 * MS);
        assertThat(sequence(rr, 6)).doesNotContain("A1").hasSize(6);

        clock.addAndGet(1);
        assertThat(sequence(rr, 3)).contains("A1");
    }

    @Test
    void theDecisionLineNamesTheAgentsTheGateMoved() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        reports.put("A1", "JSON {\"named_metrics\": {\"num_requests_waiting\": 6}}");
        sequence(rr, 3);
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            sequence(rr, 3);
            assertThat(log.lines()).contains("INFO request=r1 strategy=rr agent=A2 saturated=[A1]")
                    .noneMatch(line -> line.contains("agent=A1"));
        }
    }

    /** All saturated is ordinary under load: the gate then steps aside, and the rotation goes on as without it. */
    @Test
    void whenEveryAgentIsSaturatedTheyAreAllStillTriedInTheStrategysOrder() {
        RoundRobinLB plain = started(new RoundRobinLB(), "A1", "A2", "A3");
        List<String> unreported = sequence(plain, 6);

        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        for (String agent : List.of("A1", "A2", "A3")) {
            reports.put(agent, "TEXT named_metrics.kv_cache_usage_perc=0.95");
        }
        sequence(rr, 3);
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            assertThat(sequence(rr, 6)).isEqualTo(unreported).containsExactly("A1", "A2", "A3", "A1", "A2", "A3");
            assertThat(log.lines()).noneMatch(line -> line.contains("saturated="));
        }
    }

    @Test
    void aSaturatedOwnersKeysGoToTheNextAgentClockwiseAndComeBack() {
        ConsistentHashLB ch = started(new ConsistentHashLB(), "A1", "A2", "A3");
        String owner = sendKey(ch, "u1");
        var clockwise = ch.ring().agentsClockwise(ch.ring().hash("u1"));
        assertThat(clockwise.next()).isEqualTo(owner);
        String next = clockwise.next();
        reports.put(owner, "TEXT named_metrics.num_requests_waiting=12");
        assertThat(sendKey(ch, "u1")).isEqualTo(owner);
        assertThat(List.of(sendKey(ch, "u1"), sendKey(ch, "u1"))).containsOnly(next);
        clock.addAndGet(200 * MS + 1);
        assertThat(sendKey(ch, "u1")).isEqualTo(owner);
    }

    /**
     * Whether every agent is saturated is judged by each agent's last report up to five times the
     * staleness old (a report older than the staleness still passes no agent over): the agents seen
     * saturated a moment ago, a key stays home. It rotated over them, each fresh report sending it
     * to an agent whose report had just gone stale (a trial: 18 requests of one user F1, F2, F3, ...).
     */
    @Test
    void whenEveryAgentWasSaturatedAMomentAgoAKeyStaysHome() {
        ConsistentHashLB ch = started(new ConsistentHashLB(), "A1", "A2", "A3");
        for (String agent : List.of("A1", "A2", "A3")) {
            reports.put(agent, "TEXT named_metrics.kv_cache_usage_perc=0.95");
        }
        String owner = sendKey(ch, "u1");
        var clockwise = ch.ring().agentsClockwise(ch.ring().hash("u1"));
        clockwise.next();
        String next = clockwise.next();
        assertThat(sendKey(ch, "u1")).as("the others not heard from yet").isEqualTo(next);
        assertThat(sendKey(ch, "u1")).isNotIn(owner, next);
        clock.addAndGet(300 * MS);
        assertThat(sendKey(ch, "u1")).as("its report gone stale").isEqualTo(owner);
        assertThat(sendKey(ch, "u1")).as("every agent saturated 300 ms ago").isEqualTo(owner);
        clock.addAndGet(1_000 * MS);
        assertThat(sendKey(ch, "u1")).isEqualTo(owner);
        assertThat(sendKey(ch, "u1")).as("the others' reports 1.3 s old: not known now").isEqualTo(next);
    }

    private static String sendKey(AgentLoadBalancerSupport balancer, String user) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader("user_id", user);
        balancer.process(exchange, sync -> { });
        return exchange.getMessage().getBody(String.class);
    }

    @Test
    void aReportAtTheThresholdsOrADisabledGateMovesNoOne() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2", "A3");
        reports.put("A1", "TEXT named_metrics.kv_cache_usage_perc=0.8, named_metrics.num_requests_waiting=5");
        assertThat(sequence(rr, 6)).containsExactly("A1", "A2", "A3", "A1", "A2", "A3");

        RoundRobinLB off = started(new RoundRobinLB(), "A1", "A2", "A3");
        off.setSaturation(Saturation.disabled());
        reports.put("A1", "TEXT named_metrics.kv_cache_usage_perc=0.99");
        assertThat(sequence(off, 6)).containsExactly("A1", "A2", "A3", "A1", "A2", "A3");
    }

    @Test
    void asksForReportsOnEachAttemptOnlyWhenTold() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        assertThat(rr.getLoadReportFormat()).isEqualTo("NONE");
        send(rr);
        assertThat(seen.get("A1")).doesNotContainKey(LoadReports.FORMAT_HEADER);

        rr.setLoadReportFormat("text");
        assertThat(rr.getLoadReportFormat()).isEqualTo("TEXT");
        send(rr);
        assertThat(seen.get("A1")).containsEntry(LoadReports.FORMAT_HEADER, "TEXT");
        rr.loadReportFormat("JSON");
        send(rr);
        assertThat(seen.get("A1")).containsEntry(LoadReports.FORMAT_HEADER, "JSON");
        rr.setLoadReportFormat("none");
        assertThat(rr.getLoadReportFormat()).isEqualTo("NONE");
        assertThatThrownBy(() -> rr.setLoadReportFormat("BIN"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("loadReportFormat must be TEXT, JSON or NONE, was 'BIN'");
    }

    @Test
    void onlyTextJsonOrNoneIsAFormatNotEmptyBlankOrNull() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        rr.setLoadReportFormat("JSON");
        for (String format : new String[] {"", " ", "\t", " TEXT"}) {
            assertThatThrownBy(() -> rr.setLoadReportFormat(format)).as("'%s'", format)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("loadReportFormat must be TEXT, JSON or NONE, was '" + format + "'");
        }
        assertThatThrownBy(() -> rr.setLoadReportFormat(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("loadReportFormat must be TEXT, JSON or NONE, was null");
        assertThat(rr.getLoadReportFormat()).isEqualTo("JSON");
        assertThatThrownBy(() -> new RoundRobinLB().setLoadReportFormat("")).as("before the start")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("loadReportFormat must be TEXT, JSON or NONE, was ''");
    }

    @Test
    void theReportIsReadAndRemovedFromTheAnswerAndAClientsReportNeverReachesAnAgent() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1");
        rr.setLoadReportFormat("TEXT");
        reports.put("A1", "TEXT cpu_utilization=0.3, mem_utilization=0.8, named_metrics.kv_cache_usage_perc=0.4, "
                + "named_metrics.num_requests_waiting=2");
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(LoadReports.HEADER, "TEXT named_metrics.num_requests_waiting=99");
        rr.process(exchange, sync -> { });

        assertThat(seen.get("A1")).doesNotContainKey(LoadReports.HEADER);
        assertThat(exchange.getMessage().getHeaders())
                .doesNotContainKeys(LoadReports.HEADER, LoadReports.FORMAT_HEADER);
        LoadReport report = exchange.getProperty(AgentLb.LOAD_REPORT_PROPERTY, LoadReport.class);
        assertThat(report.cpuUtilization()).isEqualTo(0.3);
        assertThat(report.memUtilization()).isEqualTo(0.8);
        assertThat(report.kvCacheUsage()).isEqualTo(0.4);
        assertThat(report.requestsWaiting()).isEqualTo(2.0);
    }

    @Test
    void aGarbledReportIsIgnoredAndKeepsTheLastGoodOne() {
        RoundRobinLB rr = started(new RoundRobinLB(), "A1", "A2");
        reports.put("A1", "TEXT named_metrics.kv_cache_usage_perc=0.9");
        sequence(rr, 2);
        reports.put("A1", "JSON {\"named_metrics\": {\"kv_cache");
        assertThat(sequence(rr, 4)).containsExactly("A2", "A2", "A2", "A2");
        assertThat(rr.balancerState().slot("A1").loadReport.get().report().kvCacheUsage()).isEqualTo(0.9);
    }

    @Test
    void saturationSettingsAreCheckedWhenTheBalancerStartsNamingTheProperty() {
        RoundRobinLB rr = new RoundRobinLB();
        rr.setSaturationQueue(2);
        rr.setSaturationKvCache(0.5);
        rr.setSaturationStaleness(Duration.ofSeconds(1));
        assertThat(rr.getSaturationQueue()).isEqualTo(2);
        started(rr, "A1");
        assertThat(rr.getSaturation()).isEqualTo(new Saturation(true, 2, 0.5, Duration.ofSeconds(1)));
        assertThat(rr.getSaturationKvCache()).isEqualTo(0.5);
        assertThat(rr.getSaturationStaleness()).isEqualTo(Duration.ofSeconds(1));
        assertThat(rr.isSaturationEnabled()).isTrue();

        RoundRobinLB bad = new RoundRobinLB();
        // A value out of its range is refused when set, before or after the start.
        assertThatThrownBy(() -> bad.setSaturationKvCache(1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("saturationKvCache must be in 0..1, was 1.5");
        RoundRobinLB off = new RoundRobinLB();
        off.setSaturationEnabled(false);
        started(off, "A1");
        assertThat(off.getSaturation()).isEqualTo(Saturation.disabled());
    }
}
