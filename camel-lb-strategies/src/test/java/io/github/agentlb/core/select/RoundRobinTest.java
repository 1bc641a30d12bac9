package io.github.agentlb.core.select;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class RoundRobinTest {

    @Test
    void rotatesStrictly() {
        RoundRobin rotation = new RoundRobin();
        int[] picks = new int[7];
        for (int i = 0; i < picks.length; i++) {
            picks[i] = rotation.next(3);
        }
        assertThat(picks).containsExactly(0, 1, 2, 0, 1, 2, 0);
    }

    @Test
    void aCounterStartingNearIntegerMaxValueStillRotatesStrictly() {
        RoundRobin rotation = new RoundRobin(Integer.MAX_VALUE - 1);
        int[] picks = new int[6];
        for (int i = 0; i < picks.length; i++) {
            picks[i] = rotation.next(3);
        }
        assertThat(picks).containsExactly(0, 1, 2, 0, 1, 2);
    }

    @Test
    void concurrentCallersNeverSkewByMoreThanOne() throws Exception {
        RoundRobin rotation = new RoundRobin();
        AtomicIntegerArray counts = new AtomicIntegerArray(3);
        ExecutorService pool = Executors.newFixedThreadPool(10);
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < 10; t++) {
            pool.execute(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < 1000; i++) {
                    counts.incrementAndGet(rotation.next(3));
                }
            });
        }
        start.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        // 10,000 picks: 3334, 3333, 3333
        assertThat(new int[] {counts.get(0), counts.get(1), counts.get(2)}).containsExactly(3334, 3333, 3333);
    }

    @Test
    void shrinkingTheFleetKeepsPositionsInRange() {
        RoundRobin rotation = new RoundRobin();
        rotation.next(5);
        rotation.next(5);
        rotation.next(5); // counter at 2
        assertThat(rotation.next(2)).isEqualTo(0);
        assertThat(rotation.next(2)).isEqualTo(1);
    }

    @Test
    void rejectsAnEmptyFleet() {
        assertThatThrownBy(() -> new RoundRobin().next(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("n must be >= 1, was 0");
    }
}
