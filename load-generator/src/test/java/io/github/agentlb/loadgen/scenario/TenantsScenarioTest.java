package io.github.agentlb.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.TestConfigs;
import io.github.agentlb.loadgen.report.JsonReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class TenantsScenarioTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static Setup setup(ByteArrayOutputStream progress) {
        return Measurements.setup(AgentConfig.ofDefaults(), List.of("rr"), TestConfigs.of(100, 10),
                new PrintStream(progress, true, StandardCharsets.UTF_8));
    }

    /**
     * With the tenant limit L keeps its place: its p99 wait at most half what it is under VTC alone,
     * or at most twice what it is when L runs alone (the bound). The second holds on a starved
     * CPU, where every wait is mostly the machine's (L alone 238 ms on a loaded machine, 13-20 quiet).
     */
    @Test
    void theLightTenantIsKeptWhenItsWaitHalvesOrStaysNearItsWaitAlone() {
        assertThat(TenantsScenario.lightKept(13, 178, 20)).as("quiet machine").isTrue();
        assertThat(TenantsScenario.lightKept(150, 178, 20)).as("no gain from the limit").isFalse();
        assertThat(TenantsScenario.lightKept(260, 330, 238)).as("starved machine, near L alone").isTrue();
        assertThat(TenantsScenario.lightKept(600, 700, 238)).as("starved machine, far from L alone").isFalse();
        assertThat(TenantsScenario.lightKept(89, 178, Double.NaN)).as("no L-alone run").isTrue();
        assertThat(TenantsScenario.lightKept(90, 178, Double.NaN)).isFalse();
    }

    /**
     * The checks bound a figure less its run's longest stall: a stall of the whole JVM delays every request in
     * flight by its length. The last two: the VTC figure of a run beside a second build that missed the check
     * (784 ms), without a stall and with one to explain it.
     */
    @Test
    void aRunsLongestStallIsTakenOffTheFigureItDelayed() {
        assertThat(TenantsScenario.fair(200.7, 1.2, 2680.8)).as("quiet machine").isTrue();
        assertThat(TenantsScenario.fair(2600, 1.2, 2680.8)).as("VTC no better than FIFO").isFalse();
        assertThat(TenantsScenario.fair(537, 0, 2680)).isFalse();
        assertThat(TenantsScenario.fair(537, 1, 2680)).isTrue();
        assertThat(TenantsScenario.fair(784, 5, 2920)).as("a slow VTC run without a stall").isFalse();
        assertThat(TenantsScenario.fair(784, 600, 2920)).as("the same delayed by a stall of 600 ms").isTrue();
    }

    @Test
    void theHeavyTenantSendsAsOftenWithTenTimesTheServiceAndTheArrivalsAreSeeded() throws Exception {
        TenantsScenario tenants = new TenantsScenario(3);
        assertThat(TenantsScenario.serviceNanos(TenantsScenario.L_PROMPT_CHARS)).isEqualTo(19_200_000L);
        assertThat(TenantsScenario.serviceNanos(TenantsScenario.H_PROMPT_CHARS)).isEqualTo(200_000_000L);
        // 6 places, each tenant at r/s: r x (19.2 + 200) ms = 12 places busy, twice what there is.
        assertThat(TenantsScenario.ratePerTenant()).isCloseTo(12 / 0.2192, org.assertj.core.data.Offset.offset(1e-9));
        List<TenantsScenario.Arrival> both = tenants.arrivals(42, true);
        assertThat(both).isEqualTo(tenants.arrivals(42, true));
        assertThat(both).isSortedAccordingTo((a, b) -> Long.compare(a.atNanos(), b.atNanos()));
        assertThat(tenants.arrivals(42, false)).allMatch(a -> a.tenant().equals("L"));
        assertThat(both.stream().filter(a -> a.tenant().equals("H")).count()).isBetween(100L, 230L);
        JsonNode h = JSON.readTree(TenantsScenario.body("H", 7));
        assertThat(("user\n" + h.path("messages").get(0).path("content").asText() + "\n\n")).hasSize(8000);
        assertThat(TenantsScenario.body("L", 7).length() * 10).isCloseTo(TenantsScenario.body("H", 7).length(),
                org.assertj.core.data.Percentage.withPercentage(10));
        assertThat(tenants.variants(setup(new ByteArrayOutputStream()))).extracting(Variant::label)
                .containsExactly("L-alone", "L+H-vtc", "L+H-fifo", "L+H-limit");
        assertThat(Scenario.byNameOnly()).extracting(Scenario::name).contains("tenants");
        assertThat(Scenario.all()).extracting(Scenario::name).doesNotContain("tenants");
        assertThatThrownBy(() -> new TenantsScenario(0.5)).hasMessage("seconds must be >= 1, was 0.5");
    }

    /** End to end, bounded: each variant sends for 3 s (about 160 L and 160 H requests), the last three 2x over capacity. */
    @Test
    @Tag("e2e")
    @Timeout(120)
    void underVtcTheLightTenantDoesNotWaitBehindTheHeavyOnesBacklogAndNothingIsLost() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        Setup setup = setup(progress);
        TenantsScenario tenants = new TenantsScenario(3);
        List<Result> results = tenants.runAll(tenants.variants(setup), setup);
        assertThat(results).extracting(Result::variant).containsExactly("L-alone", "L+H-vtc", "L+H-fifo", "L+H-limit");
        for (Result r : results) {
            assertThat(r.checks()).as(r.variant()).allMatch(Result.Check::passed, "passed");
            assertThat(r.number("lost")).isZero();
            assertThat(r.pace().selfCheck().sends()).as("every send's lag in the self-check").isEqualTo(r.totals().requests());
            assertThat(r.number("queue_max")).isLessThanOrEqualTo(TenantsScenario.QUEUE_SIZE);
            JsonNode json = JSON.readTree(JsonReport.write(r, dir).toFile());
            assertThat(JsonReport.write(r, dir).getFileName().toString()).isEqualTo("report-tenants-" + r.variant() + ".json");
            assertThat(json.path("scenario").asText()).isEqualTo("tenants");
            assertThat(json.path("figures").path("l_p99_ms").isNumber()).isTrue();
            assertThat(json.path("figures").path("stall_max_ms").asDouble(-1)).isGreaterThanOrEqualTo(0);
            assertThat(json.has("latency") && json.has("agents") && json.has("checks") && json.has("load")).isTrue();
        }
        assertThat(results.get(0).number("h_requests")).isZero();
        assertThat(results.get(1).number("queue_max")).as("the queue is used").isPositive();
        assertThat(results.get(2).checks()).extracting(Result.Check::name).contains("fair");
        Section section = tenants.section(results);
        assertThat(section.tables()).hasSize(1);
        assertThat(section.tables().get(0).rows()).hasSize(4);
        assertThat(results.get(3).checks()).extracting(Result.Check::name).contains("light kept");
        assertThat(section.blocks().get(2).toString()).contains("under FIFO: ok");
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("== L+H-fifo, tenants scenario: agents A1, A2, A3");
    }
}
