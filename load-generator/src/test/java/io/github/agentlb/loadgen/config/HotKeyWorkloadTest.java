package io.github.agentlb.loadgen.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.Stickiness.HotKeyStatistics;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HotKeyWorkloadTest {

    private static Map<Integer, Long> perUser(Workload w) {
        return w.requests().stream().collect(Collectors.groupingBy(Workload.PlannedRequest::userId,
                Collectors.counting()));
    }

    @Test
    void theIssuesWorkloadUser0Sends400Of2000AndUsers1To200EightEach() {
        Workload w = new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, 100, 0.2).workload();

        Map<Integer, Long> perUser = perUser(w);
        assertThat(w.requests().size()).isEqualTo(2000);
        assertThat(perUser).hasSize(201).containsEntry(0, 400L);
        perUser.remove(0);
        assertThat(perUser.keySet()).allMatch(u -> u >= 1 && u <= 200);
        assertThat(perUser.values()).containsOnly(8L);
        // shuffled in with the others, not sent as a block
        assertThat(w.requests().subList(0, 100)).filteredOn(r -> r.userId() == 0).hasSizeBetween(5, 40);
    }

    @Test
    void atHalfTheHotUserSends1000AndTheOthersFiveEach() {
        Map<Integer, Long> perUser = perUser(Workload.create(2000, 200, 42, 0.5));

        assertThat(perUser.remove(0)).isEqualTo(1000L);
        assertThat(perUser.values()).hasSize(200).containsOnly(5L);
    }

    @Test
    void shareZeroIsTheWorkloadWithoutAHotUser() {
        assertThat(Workload.create(2000, 200, 42, 0).requests())
                .isEqualTo(TestConfigs.of(2000, 200).workload().requests());
        assertThat(TestConfigs.defaults().hotShare()).isZero();
    }

    @Test
    void theShareMustBeInZeroToOneAndLeaveRoomForTheOtherUsers() {
        assertThatThrownBy(() -> Workload.create(2000, 200, 42, 1.0))
                .hasMessage("hotShare must be >= 0 and < 1, was 1.0");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, 100, -0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("hotShare must be >= 0 and < 1, was -0.1");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, 100, Double.NaN))
                .hasMessage("hotShare must be >= 0 and < 1, was NaN");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, 100, 0.95))
                .hasMessage("users must be in 1..100 (requests not sent by the hot user), was 200");
    }

    @Test
    void theWarmUpHasTheSameHotShareOverTheFirstUsersThatFit() {
        LoadTestConfig warm = new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, 100, 0.2).warmupConfig().orElseThrow();

        assertThat(warm.requests()).isEqualTo(100);
        assertThat(warm.hotShare()).isEqualTo(0.2);
        assertThat(warm.users()).isEqualTo(80);
        assertThat(perUser(warm.workload())).containsEntry(0, 20L).hasSize(81);
        // a warm-up too short for the hot share goes without it
        LoadTestConfig tiny = new LoadTestConfig(2000, 200, 10, 42, 5_000, 500, 1, 0.6).warmupConfig().orElseThrow();
        assertThat(tiny.hotShare()).isZero();
        assertThat(tiny.users()).isEqualTo(1);
    }

    @Test
    void hotKeyStatisticsCountTheOthersStickinessAndTheHotUsersAgents() {
        List<RequestOutcome> outcomes = List.of(
                RequestOutcome.success("r1", 0, "A1", 200, 1), RequestOutcome.success("r2", 0, "A2", 200, 1),
                RequestOutcome.success("r3", 0, "A1", 200, 1),
                RequestOutcome.success("r4", 1, "A1", 200, 1), RequestOutcome.success("r5", 1, "A1", 200, 1),
                RequestOutcome.success("r6", 2, "A2", 200, 1), RequestOutcome.success("r7", 2, "A3", 200, 1),
                RequestOutcome.success("r8", 3, "A3", 200, 1), RequestOutcome.timeout("r9", 3, 1),
                RequestOutcome.error("r10", 4, 503, 1));

        HotKeyStatistics one = HotKeyStatistics.of(outcomes, 1, o -> 0);

        assertThat(one.otherUsers()).isEqualTo(3);
        assertThat(one.stickyOthers()).isEqualTo(2);
        assertThat(one.othersStickiness()).isEqualTo(2 / 3.0);
        assertThat(one.othersStickinessPerReplica()).isEqualTo(2 / 3.0);
        assertThat(one.hotUserAgents()).containsExactly(Map.entry("A1", 2L), Map.entry("A2", 1L));
        assertThat(one.hotUserAgentCount()).isEqualTo(2);
        assertThat(one.hotUserRequests()).isEqualTo(3);
        assertThat(HotKeyScenario.hotUserOn(one.hotUserAgents())).isEqualTo("2 (A1 2, A2 1)");

        // user 2's r6 passed replica 0 and r7 replica 1: each replica kept it on one agent, they disagree
        HotKeyStatistics two = HotKeyStatistics.of(outcomes, 2, o -> Integer.parseInt(o.requestId().substring(1)) % 2);
        assertThat(two.stickyOthers()).isEqualTo(2);
        assertThat(two.stickyOthersPerReplica()).isEqualTo(3);
        assertThat(two.othersStickinessPerReplica()).isEqualTo(1.0);
    }
}
