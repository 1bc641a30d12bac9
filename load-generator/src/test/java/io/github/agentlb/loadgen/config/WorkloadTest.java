package io.github.agentlb.loadgen.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    @Test
    void defaultWorkloadSendsEachOf200UsersExactlyTenTimes() {
        Workload w = TestConfigs.defaults().workload();

        assertThat(w.requests().size()).isEqualTo(2000);
        Map<Integer, Long> perUser = w.requests().stream()
                .collect(Collectors.groupingBy(Workload.PlannedRequest::userId, Collectors.counting()));
        assertThat(perUser).hasSize(200);
        assertThat(perUser.keySet()).allMatch(u -> u >= 1 && u <= 200);
        assertThat(perUser.values()).containsOnly(10L);
    }

    @Test
    void requestIdsAreUniqueAndInSendOrder() {
        List<Workload.PlannedRequest> requests = Workload.create(2000, 200, 42, 0).requests();

        assertThat(requests).extracting(Workload.PlannedRequest::requestId).doesNotHaveDuplicates();
        assertThat(requests.get(0).requestId()).isEqualTo("r0001");
        assertThat(requests.get(1999).requestId()).isEqualTo("r2000");
        assertThat(Workload.create(12345, 10, 1, 0).requests().get(0).requestId()).isEqualTo("r00001");
    }

    @Test
    void sameSeedSameOrderOtherSeedOtherOrder() {
        Function<Long, List<Integer>> users = seed -> Workload.create(2000, 200, seed, 0).requests().stream()
                .map(Workload.PlannedRequest::userId).toList();

        assertThat(users.apply(42L)).isEqualTo(users.apply(42L));
        assertThat(users.apply(43L)).isNotEqualTo(users.apply(42L));
        // shuffled, not user 1..200 repeated in order
        assertThat(users.apply(42L).subList(0, 200)).isNotEqualTo(
                IntStream.rangeClosed(1, 200).boxed().toList());
    }

    @Test
    void unevenSplitGivesTheFirstUsersOneMore() {
        Map<Integer, Long> perUser = Workload.create(7, 3, 1, 0).requests().stream()
                .collect(Collectors.groupingBy(Workload.PlannedRequest::userId, Collectors.counting()));

        assertThat(perUser).containsExactlyInAnyOrderEntriesOf(Map.of(1, 3L, 2, 2L, 3, 2L));
    }

    @Test
    void rejectsBadShapes() {
        assertThatThrownBy(() -> Workload.create(0, 1, 1, 0)).hasMessage("requests must be >= 1, was 0");
        assertThatThrownBy(() -> Workload.create(10, 11, 1, 0)).hasMessage("users must be in 1..10 (requests), was 11");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 0, 42, 5_000, 500, 100, 0))
                .hasMessage("concurrency must be in 1..1000, was 0");
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 0, 500, 100, 0))
                .hasMessage("timeoutMs must be >= 1, was 0");
    }
}
