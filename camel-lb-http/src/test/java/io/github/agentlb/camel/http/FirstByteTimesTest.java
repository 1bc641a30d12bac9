package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FirstByteTimesTest {

    @Test
    void noAnswerYetHasNoPercentile() {
        assertThat(new FirstByteTimes().p99()).isEqualTo(-1);
    }

    @Test
    void theP99IsTheNearestRankOfTheTimesHeld() {
        FirstByteTimes times = new FirstByteTimes();
        times.record(20, 0);
        times.record(10, 0);
        assertThat(times.p99()).isEqualTo(20);       // rank ceil(0.99 x 2) = 2 of 10, 20

        FirstByteTimes hundred = new FirstByteTimes();
        for (int i = 100; i >= 1; i--) {
            hundred.record(i * 1_000_000L, 0);          // 1..100 ms, in any order
        }
        assertThat(hundred.p99()).isEqualTo(99_000_000L);  // rank 99 of 100
    }

    @Test
    void onlyTheLast1024AnswersCount() {
        FirstByteTimes times = new FirstByteTimes();
        for (int i = 0; i < FirstByteTimes.SIZE; i++) {
            times.record(5_000_000_000L, 0);            // an old slow period, 5 s each
        }
        for (int i = 0; i < FirstByteTimes.SIZE; i++) {
            times.record(i < 1_000 ? 10_000_000L : 30_000_000L, 0);  // then 1,000 at 10 ms and 24 at 30 ms
        }
        assertThat(times.p99()).isEqualTo(30_000_000L);  // rank 1014 of 1024: past the 1,000 at 10 ms
    }
}
