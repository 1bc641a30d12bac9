package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.Evaluation;
import io.github.agentlb.core.orca.LoadReports;
import io.github.agentlb.core.orca.Saturation;
import io.github.agentlb.core.pid.PidWeightsConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ORCA reports as load signals where an agent sends no {@code X-Agent-*} header: pid's
 * utilization, avn's CPU and memory, lr's requests waiting. Exact values, injected clocks.
 */
class LoadReportSignalsTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** Not at zero: a report's age is the time now less the time it arrived. */
    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
    /** Agent name to the headers it answers with. */
    private final Map<String, Map<String, Object>> answers = new ConcurrentHashMap<>();
    private AgentLoadBalancerSupport running;


    @AfterEach
    void stopBalancer() {
        if (running != null) {
            running.stop();
        }
    }

    private ScriptedChild agent(String name) {
        return ScriptedChild.answering(name, (attempt, now) -> {
            attempt.getMessage().setBody(name);
            attempt.getMessage().getHeaders().putAll(answers.getOrDefault(name, Map.of()));
        });
    }

    private <T extends AgentLoadBalancerSupport> T started(T balancer, String... agents) {
        running = ScriptedChild.startedAgents(balancer, CAMEL.get(), clock::get, this::agent, agents);
        return balancer;
    }

    private static String send(AgentLoadBalancerSupport balancer, String user) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        if (user != null) {
            exchange.getIn().setHeader("user_id", user);
        }
        balancer.process(exchange, sync -> { });
        return exchange.getMessage().getBody(String.class);
    }

    private void orca(String agent, String report) {
        answers.put(agent, Map.of(LoadReports.HEADER, report));
    }

    @Test
    void pidReadsApplicationThenCpuThenKvCacheUtilizationAndPrefersItsOwnHeader() {
        orca("A1", "TEXT application_utilization=0.3, cpu_utilization=0.9");
        orca("A2", "TEXT cpu_utilization=1.2, named_metrics.kv_cache_usage_perc=0.1");
        orca("A3", "JSON {\"named_metrics\": {\"kv_cache_usage_perc\": 0.45, \"num_requests_waiting\": 2.0}}");
        answers.put("A4", Map.of(LoadReports.HEADER, "TEXT application_utilization=0.9",
                PidWeightedLB.UTILIZATION_HEADER, "0.5"));
        PidWeightedLB pid = started(new PidWeightedLB(PidWeightsConfig.ofDefaults(), clock::get), "A1", "A2", "A3", "A4");
        for (int i = 0; i < 4; i++) {
            send(pid, null);
        }
        clock.addAndGet(SECOND);
        pid.controlStep();
        assertThat(pid.pidWeights().utilizations()).containsExactly(
                Map.entry("A1", 0.3), Map.entry("A2", 1.2), Map.entry("A3", 0.45), Map.entry("A4", 0.5));
    }

    @Test
    void aReportHeaderWithSeveralValuesIsReadFromItsFirst() {
        answers.put("A1", Map.of(LoadReports.HEADER,
                java.util.List.of("TEXT application_utilization=0.3", "TEXT application_utilization=0.9")));
        PidWeightedLB pid = started(new PidWeightedLB(PidWeightsConfig.ofDefaults(), clock::get), "A1");
        send(pid, null);
        clock.addAndGet(SECOND);
        pid.controlStep();
        assertThat(pid.getUtilizations()).isEqualTo(Map.of("A1", 0.3));
    }

    private Evaluation avnWindow(Map<String, Map<String, Object>> reports) {
        answers.clear();
        answers.putAll(reports);
        AdaptiveVirtualNodeLB avn = started(Balancers.with(new AdaptiveVirtualNodeLB(), lb -> lb.setAvnConfig(
                AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15).evaluationWindow(30).maxMovesPerEvaluation(1)
                        .build())), "a", "b", "c");
        // The same requests in both runs: the gate would keep c (KV cache 0.95) off when it reports in ORCA.
        avn.setSaturation(Saturation.disabled());
        for (int user = 1; user <= 30; user++) {
            send(avn, String.valueOf(user));
        }
        avn.stop();
        return avn.state().lastEvaluation().orElseThrow();
    }

    @Test
    void avnReadsCpuAndMemoryUtilizationAsFromItsOwnHeaders() {
        Map<String, Map<String, Object>> own = new HashMap<>();
        Map<String, Map<String, Object>> orca = new HashMap<>();
        Map<String, String[]> load = Map.of("a", new String[] {"0.10", "0.20"}, "b", new String[] {"0.10", "0.30"},
                "c", new String[] {"0.90", "0.70"});
        load.forEach((agent, cpuAndMemory) -> {
            own.put(agent, Map.of(AdaptiveVirtualNodeLB.CPU_HEADER, cpuAndMemory[0],
                    AdaptiveVirtualNodeLB.MEMORY_HEADER, cpuAndMemory[1]));
            orca.put(agent, Map.of(LoadReports.HEADER,
                    "TEXT cpu_utilization=" + cpuAndMemory[0] + ", mem_utilization=" + cpuAndMemory[1]));
        });
        Evaluation fromOwn = avnWindow(own);
        Evaluation fromOrca = avnWindow(orca);
        assertThat(fromOrca.usedUtilization()).isTrue();
        assertThat(fromOrca.loadIndices()).isEqualTo(fromOwn.loadIndices());
        assertThat(fromOrca.imbalanceIndex()).isEqualTo(fromOwn.imbalanceIndex());
    }

    /** The avn's own CPU and memory headers: a and b at 0.2 and 0.4, c at {@code cpu} and {@code memory}. */
    private static Map<String, Map<String, Object>> ownReports(String cpu, String memory) {
        return Map.of(
                "a", Map.of(AdaptiveVirtualNodeLB.CPU_HEADER, "0.2", AdaptiveVirtualNodeLB.MEMORY_HEADER, "0.4"),
                "b", Map.of(AdaptiveVirtualNodeLB.CPU_HEADER, "0.2", AdaptiveVirtualNodeLB.MEMORY_HEADER, "0.4"),
                "c", Map.of(AdaptiveVirtualNodeLB.CPU_HEADER, cpu, AdaptiveVirtualNodeLB.MEMORY_HEADER, memory));
    }

    @Test
    void avnTakesKvCacheForMemoryAndCapsCpuAtOne() {
        Map<String, Map<String, Object>> own = ownReports("1", "0.95");
        Map<String, Map<String, Object>> orca = Map.of(
                "a", Map.of(LoadReports.HEADER, "TEXT application_utilization=0.2, named_metrics.kv_cache_usage_perc=0.4"),
                "b", Map.of(LoadReports.HEADER, "TEXT cpu_utilization=0.2, named_metrics.kv_cache_utilization=0.4"),
                "c", Map.of(LoadReports.HEADER, "TEXT cpu_utilization=1.7, named_metrics.kv_cache_usage_perc=0.95"));
        Evaluation fromOwn = avnWindow(own);
        Evaluation fromOrca = avnWindow(orca);
        assertThat(fromOrca.loadIndices()).isEqualTo(fromOwn.loadIndices());
    }

    @Test
    void avnTakesAMemoryUtilizationOfExactlyOneAndIgnoresAReportAboveIt() {
        Map<String, Map<String, Object>> own = ownReports("0.9", "1");
        Map<String, Map<String, Object>> orca = Map.of(
                "a", Map.of(LoadReports.HEADER, "TEXT cpu_utilization=0.2, mem_utilization=0.4"),
                "b", Map.of(LoadReports.HEADER, "TEXT cpu_utilization=0.2, mem_utilization=0.4"),
                "c", Map.of(LoadReports.HEADER, "TEXT cpu_utilization=0.9, mem_utilization=1.0"));
        Evaluation fromOwn = avnWindow(own);
        Evaluation fromOrca = avnWindow(orca);
        assertThat(fromOrca.usedUtilization()).isTrue();
        assertThat(fromOrca.loadIndices()).isEqualTo(fromOwn.loadIndices());

        Evaluation aboveOne = avnWindow(Map.of("a", orca.get("a"), "b", orca.get("b"),
                "c", Map.of(LoadReports.HEADER, "TEXT cpu_utilization=0.9, mem_utilization=1.01")));
        assertThat(aboveOne.usedUtilization()).as("c has no usable report").isFalse();
    }

    @Test
    void lrCountsTheRequestsWaitingOfAFreshReportBesideItsOwnInFlight() {
        orca("A1", "TEXT named_metrics.num_requests_waiting=1");
        LeastRequestLB lr = started(new LeastRequestLB(), "A1", "A2");
        lr.setSaturation(Saturation.disabled());
        for (int i = 0; i < 10 && !"A1".equals(send(lr, null)); i++) {
            // until A1 has answered once, with its report
        }
        Map<String, Integer> fresh = new TreeMap<>();
        for (int i = 0; i < 50; i++) {
            fresh.merge(send(lr, null), 1, Integer::sum);
        }
        assertThat(fresh).isEqualTo(Map.of("A2", 50));

        clock.addAndGet(200 * MS + 1);
        Map<String, Integer> stale = new TreeMap<>();
        for (int i = 0; i < 50; i++) {
            stale.merge(send(lr, null), 1, Integer::sum);
            clock.addAndGet(200 * MS + 1);
        }
        // Each report is stale by the next request: the pairs are decided on in-flight counts alone (0 and 0).
        assertThat(stale.keySet()).containsExactly("A1", "A2");
        assertThat(stale.get("A1") + stale.get("A2")).isEqualTo(50);
    }

    @Test
    void theInFlightBoundCountsTheRequestsWaitingOfAFreshReport() {
        ConsistentHashLB ch = started(new ConsistentHashLB(), "A1", "A2", "A3");
        ch.setSaturation(Saturation.disabled());
        ch.setInFlightFactor(1.25);
        String home = send(ch, "u1");
        assertThat(send(ch, "u1")).isEqualTo(home);
        // Five waiting at home, nothing in flight here: 0 + 5 + 1 > 1.25 x (0 + 5 + 1) / 3 = 2.5.
        orca(home, "TEXT named_metrics.num_requests_waiting=5");
        assertThat(send(ch, "u1")).isEqualTo(home); // the answer that brings the report
        String diverted = send(ch, "u1");
        assertThat(diverted).isNotEqualTo(home);
        answers.clear();
        assertThat(send(ch, "u1")).isEqualTo(diverted); // the report is still fresh
        clock.addAndGet(200 * MS + 1);
        assertThat(send(ch, "u1")).isEqualTo(home); // stale: home again
    }
}
