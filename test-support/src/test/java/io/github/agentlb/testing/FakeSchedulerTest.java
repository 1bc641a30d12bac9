package io.github.agentlb.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FakeSchedulerTest {

    private final FakeScheduler fake = new FakeScheduler();
    private final List<String> ran = new ArrayList<>();

    /** A task that records its name and the fake clock, in ms, when it runs. */
    private Runnable task(String name) {
        return () -> ran.add(name + "@" + fake.nanoTime() / 1_000_000);
    }

    @Test
    void advanceRunsTheDueTasksInTimeOrderThenTiesInSchedulingOrderEachAtItsDueTime() {
        fake.schedule(task("c"), 30, TimeUnit.MILLISECONDS);
        fake.schedule(task("a"), 10, TimeUnit.MILLISECONDS);
        fake.schedule(task("b1"), 20, TimeUnit.MILLISECONDS);
        fake.schedule(task("b2"), 20, TimeUnit.MILLISECONDS);
        fake.schedule(task("late"), 31, TimeUnit.MILLISECONDS);

        assertThat(fake.advance(Duration.ofMillis(30))).isEqualTo(4);

        assertThat(ran).containsExactly("a@10", "b1@20", "b2@20", "c@30");
        assertThat(fake.nanoTime()).isEqualTo(30_000_000L);
        assertThat(fake.pendingDelays()).containsExactly(Duration.ofMillis(1));
        assertThat(fake.advance(1, TimeUnit.MILLISECONDS)).isEqualTo(1);
        assertThat(ran).endsWith("late@31");
    }

    @Test
    void theClockStartsWhereItIsToldAndEndsAtTheTargetWhenNothingIsDue() {
        FakeScheduler late = new FakeScheduler(5_000);
        assertThat(late.advance(Duration.ofNanos(7))).isZero();
        assertThat(late.nanoTime()).isEqualTo(5_007L);
        assertThat(late.nextDelay()).isEmpty();
    }

    @Test
    void tasksScheduledByATaskRunInTheSameAdvanceWhenTheyFallDueWithinIt() {
        fake.schedule(() -> {
            task("first").run();
            fake.schedule(task("chained"), 5, TimeUnit.MILLISECONDS);
            fake.schedule(task("beyond"), 50, TimeUnit.MILLISECONDS);
        }, 10, TimeUnit.MILLISECONDS);

        fake.advance(Duration.ofMillis(20));

        assertThat(ran).containsExactly("first@10", "chained@15");
        assertThat(fake.nextDelay()).hasValue(Duration.ofMillis(40));
    }

    @Test
    void executeSubmitAndANegativeDelayRunAtTheNextRunDueWithoutMovingTheClock() throws Exception {
        fake.execute(task("executed"));
        Future<String> submitted = fake.submit(() -> "answer");
        fake.schedule(task("negative"), -5, TimeUnit.SECONDS);
        assertThat(ran).as("nothing runs on the scheduling thread").isEmpty();
        assertThat(submitted).isNotDone();

        assertThat(fake.runDue()).isEqualTo(3);

        assertThat(ran).containsExactly("executed@0", "negative@0");
        assertThat(submitted.get()).isEqualTo("answer");
        assertThat(fake.nanoTime()).isZero();
    }

    @Test
    void aFixedRateTaskRunsEveryPeriodAndAFixedDelayTaskADelayAfterEachRun() {
        fake.scheduleAtFixedRate(task("rate"), 5, 10, TimeUnit.MILLISECONDS);
        fake.scheduleWithFixedDelay(task("delay"), 0, 12, TimeUnit.MILLISECONDS);

        fake.advance(Duration.ofMillis(30));

        assertThat(ran).containsExactly("delay@0", "rate@5", "delay@12", "rate@15", "delay@24", "rate@25");
        assertThat(fake.pendingDelays()).containsExactly(Duration.ofMillis(5), Duration.ofMillis(6));
    }

    @Test
    void aTaskThatThrowsFailsItsFutureAndStopsWhenPeriodic() {
        ScheduledFuture<?> once = fake.schedule(() -> {
            throw new IllegalStateException("once");
        }, 1, TimeUnit.SECONDS);
        ScheduledFuture<?> periodic = fake.scheduleAtFixedRate(() -> {
            ran.add("tick");
            throw new IllegalStateException("periodic");
        }, 1, 1, TimeUnit.SECONDS);

        fake.advance(Duration.ofSeconds(5));

        assertThat(ran).containsExactly("tick");
        assertThatThrownBy(once::get).isInstanceOf(ExecutionException.class).hasRootCauseMessage("once");
        assertThatThrownBy(periodic::get).isInstanceOf(ExecutionException.class).hasRootCauseMessage("periodic");
        assertThat(fake.pendingCount()).isZero();
    }

    @Test
    void aCancelledTaskLeavesTheQueueAndNeverRuns() {
        ScheduledFuture<?> cancelled = fake.schedule(task("cancelled"), 1, TimeUnit.SECONDS);
        fake.schedule(task("kept"), 2, TimeUnit.SECONDS);
        assertThat(cancelled.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(1_000);

        assertThat(cancelled.cancel(false)).isTrue();

        assertThat(fake.pendingCount()).isEqualTo(1);
        assertThat(fake.nextDelay()).hasValue(Duration.ofSeconds(2));
        fake.advance(Duration.ofSeconds(2));
        assertThat(ran).containsExactly("kept@2000");
    }

    @Test
    void shutdownRejectsNewTasksCancelsPeriodicOnesAndStillRunsDelayedOnes() {
        ScheduledFuture<?> periodic = fake.scheduleAtFixedRate(task("periodic"), 1, 1, TimeUnit.SECONDS);
        fake.schedule(task("delayed"), 3, TimeUnit.SECONDS);

        fake.shutdown();

        assertThat(fake.isShutdown()).isTrue();
        assertThat(periodic.isCancelled()).isTrue();
        assertThatThrownBy(() -> fake.execute(task("new"))).isInstanceOf(RejectedExecutionException.class);
        assertThat(fake.isTerminated()).isFalse();
        assertThat(fake.awaitTermination(1, TimeUnit.DAYS)).as("does not wait").isFalse();
        fake.advance(Duration.ofSeconds(3));
        assertThat(ran).containsExactly("delayed@3000");
        assertThat(fake.isTerminated()).isTrue();
    }

    @Test
    void shutdownNowReturnsTheWaitingTasksWhichNeverRun() {
        fake.schedule(task("a"), 1, TimeUnit.SECONDS);
        fake.scheduleWithFixedDelay(task("b"), 1, 1, TimeUnit.SECONDS);

        assertThat(fake.shutdownNow()).hasSize(2);

        fake.advance(Duration.ofSeconds(5));
        assertThat(ran).isEmpty();
        assertThat(fake.isTerminated()).isTrue();
    }

    @Test
    void badArgumentsAndBlockingCallsAreRefused() {
        assertThatThrownBy(() -> fake.advance(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("duration must be >= 0, was PT-0.000000001S");
        assertThatThrownBy(() -> fake.scheduleAtFixedRate(task("x"), 0, 0, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("period must be > 0, was 0 SECONDS");
        assertThatThrownBy(() -> fake.invokeAll(List.of(() -> 1))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> fake.invokeAny(List.of(() -> 1))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void tasksScheduledFromOtherThreadsAllRunOnTheAdvancingThread() throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Thread> ranOn = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 250; i++) {
                    fake.schedule(() -> ranOn.add(Thread.currentThread()), i, TimeUnit.MILLISECONDS);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(fake.advance(Duration.ofSeconds(1))).isEqualTo(1_000);

        assertThat(ranOn).hasSize(1_000).containsOnly(Thread.currentThread());
    }
}
