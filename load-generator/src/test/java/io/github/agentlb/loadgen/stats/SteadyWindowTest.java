package io.github.agentlb.loadgen.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SteadyWindowTest {

    private static final long MS = 1_000_000L;

    private static TimedOutcome success(long sentMs, long latencyMs) {
        return new TimedOutcome(RequestOutcome.success("r", 1, "A1", 200, latencyMs * MS), sentMs * MS);
    }

    private static TimedOutcome error(long sentMs, long latencyMs) {
        return new TimedOutcome(RequestOutcome.error("r", 1, 502, latencyMs * MS), sentMs * MS);
    }

    @Test
    void countsTheSuccessesAnsweredBetweenTheConcurrencyThSendAndTheLastSend() {
        // Two workers. Worker 1 sends at 0, 10, 20, 30 ms (10 ms answers); worker 2 starts late, at
        // 5 ms, then sends at 25 and 45 ms (20 ms answers). Sends sorted: 0 5 10 20 25 30 45, so
        // the window is [5, 45] ms. Answers: 10 20 30 40 (worker 1), 25 45 65 (worker 2); inside
        // [5, 45]: 10 20 30 40 25 45 = 6, one of them (45) an error.
        List<TimedOutcome> run = new ArrayList<>(List.of(success(0, 10), success(10, 10), success(20, 10),
                success(30, 10), success(5, 20), error(25, 20), success(45, 20)));
        SteadyWindow window = SteadyWindow.of(run, 2).orElseThrow();
        assertThat(window.fromNanos()).isEqualTo(5 * MS);
        assertThat(window.toNanos()).isEqualTo(45 * MS);
        assertThat(window.successes()).isEqualTo(5);
        assertThat(window.lengthMs()).isEqualTo(40.0);
        assertThat(window.throughputRps()).isCloseTo(125.0, within(1e-9));
    }

    @Test
    void leavesOutTheStartAndTheDrainThatTheWallTimeCounts() {
        // Four workers starting 5 ms apart (0 5 10 15 ms), each sending three requests back to back
        // with 10 ms answers. Worker 0 sends its second request at 10 ms, before worker 3 started:
        // all four are first in flight at 15 ms (the 5th send, not the 4th). The last send is at
        // 35 ms, the last answer at 45 ms. Wall time: 12 answers in 45 ms, 267 req/s.
        List<TimedOutcome> run = new ArrayList<>();
        for (int worker = 0; worker < 4; worker++) {
            for (int turn = 0; turn < 3; turn++) {
                run.add(success(worker * 5L + turn * 10L, 10));
            }
        }
        SteadyWindow window = SteadyWindow.of(run, 4).orElseThrow();
        assertThat(window.fromNanos()).isEqualTo(15 * MS);
        assertThat(window.toNanos()).isEqualTo(35 * MS);
        // Answers at 10 20 30 | 15 25 35 | 20 30 40 | 25 35 45: inside [15, 35]: 20 30 15 25 35 20 30 25 35 = 9.
        assertThat(window.successes()).isEqualTo(9);
        assertThat(window.throughputRps()).isCloseTo(450.0, within(1e-9));
        RunStatistics wall = RunStatistics.of(run.stream().map(TimedOutcome::outcome).toList(), List.of(), 45 * MS);
        assertThat(wall.throughputRps()).isCloseTo(12 / 0.045, within(1e-9));
    }

    @Test
    void hasNoWindowWhenEveryRequestWentOutAtTheStart() {
        assertThat(SteadyWindow.of(List.of(success(0, 10), success(0, 20)), 2)).isEmpty();
        assertThat(SteadyWindow.of(List.of(success(0, 10), success(0, 20), success(0, 30)), 2)).isEmpty();
        assertThat(SteadyWindow.of(List.of(), 1)).isEmpty();
    }

    @Test
    void runStatisticsOfARunCountOverItsWindow() {
        List<TimedOutcome> run = List.of(success(0, 10), success(10, 10), success(20, 10), success(30, 10));
        List<RequestOutcome> outcomes = run.stream().map(TimedOutcome::outcome).toList();
        RunStatistics.Accumulator accumulator = new RunStatistics.Accumulator();
        outcomes.forEach(accumulator::add);
        RunStatistics stats = accumulator.statistics(List.of("A1"), 40 * MS, SteadyWindow.of(run, 1).orElse(null));
        // Window [0, 30] ms: answers at 10, 20, 30 -> 3 / 0.030 s; wall time would give 4 / 0.040 s.
        assertThat(stats.throughputRps()).isCloseTo(100.0, within(1e-9));
        assertThat(stats.steady().successes()).isEqualTo(3L);
        assertThat(stats.durationMs()).isEqualTo(40.0);
        assertThat(RunStatistics.of(outcomes, List.of("A1"), 40 * MS).steady()).isNull();
    }

    @Test
    void rejectsAWindowThatIsNotOne() {
        assertThatThrownBy(() -> SteadyWindow.of(List.of(), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("concurrency").hasMessageContaining("0");
        assertThatThrownBy(() -> new SteadyWindow(5, 5, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("toNanos");
        assertThatThrownBy(() -> new SteadyWindow(0, 5, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("successes");
    }
}
