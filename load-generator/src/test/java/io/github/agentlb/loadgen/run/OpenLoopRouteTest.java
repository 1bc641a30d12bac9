package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OpenLoopRouteTest {

    private static final long MS = 1_000_000;

    @Test
    void requestIIsDueAtStartPlusIOverRate() {
        OpenLoopRoute.Schedule schedule = new OpenLoopRoute.Schedule(3, 1_000, 10);
        assertThat(schedule.intendedNanos(0)).isEqualTo(1_000);
        assertThat(schedule.intendedNanos(1)).isEqualTo(1_000 + 333_333_333);
        assertThat(schedule.intendedNanos(2)).isEqualTo(1_000 + 666_666_666);
        assertThat(schedule.intendedNanos(3)).isEqualTo(1_000 + 1_000_000_000);
    }

    @Test
    void dueByCountsRequestsWhoseIntendedTimeHasComeUpToTheTotal() {
        OpenLoopRoute.Schedule schedule = new OpenLoopRoute.Schedule(100, 0, 5);
        assertThat(schedule.dueBy(-1)).isZero();
        assertThat(schedule.dueBy(0)).isEqualTo(1);
        assertThat(schedule.dueBy(10 * MS - 1)).isEqualTo(1);
        assertThat(schedule.dueBy(10 * MS)).isEqualTo(2);
        assertThat(schedule.dueBy(40 * MS)).isEqualTo(5);
        assertThat(schedule.dueBy(10_000 * MS)).isEqualTo(5);
    }

    @Test
    void dueByAgreesWithIntendedTimesAtEveryBoundaryOfAnUnevenRate() {
        OpenLoopRoute.Schedule schedule = new OpenLoopRoute.Schedule(7, 5, 1_000);
        for (long i = 0; i < 1_000; i++) {
            long t = schedule.intendedNanos(i);
            assertThat(schedule.dueBy(t)).as("at request %d's time", i).isEqualTo(i + 1);
            assertThat(schedule.dueBy(t - 1)).as("just before request %d", i).isEqualTo(i);
        }
    }

    @Test
    void invalidArgumentsAreNamed() {
        assertThatThrownBy(() -> new OpenLoopRoute.Schedule(0, 0, 1)).hasMessageContaining("ratePerSecond").hasMessageContaining("0");
        assertThatThrownBy(() -> new OpenLoopRoute.Schedule(1, 0, 0)).hasMessageContaining("total must be >= 1, was 0");
    }

    @Test
    void aLateTickHandsOutEverythingDueMeanwhileWithItsOwnIntendedTime() {
        AtomicLong now = new AtomicLong(1_000 * MS);
        OpenLoopRoute.Dispatcher dispatcher =
                new OpenLoopRoute.Dispatcher(100, 6, Workload.create(6, 2, 1, 0), now::get);
        List<Long> intended = new ArrayList<>();
        dispatcher.due().forEach(d -> intended.add(d.intendedNanos()));
        assertThat(intended).containsExactly(1_000 * MS);
        assertThat(dispatcher.due()).isEmpty();
        now.set(1_035 * MS); // the timer thread stalled for 35 ms: requests 1, 2, 3 fell due meanwhile
        intended.clear();
        List<OpenLoopRoute.Dispatcher.Due> batch = dispatcher.due();
        batch.forEach(d -> intended.add(d.intendedNanos()));
        assertThat(intended).containsExactly(1_010 * MS, 1_020 * MS, 1_030 * MS);
        assertThat(batch).extracting(d -> d.request().requestId()).containsExactly("r0002", "r0003", "r0004");
        now.set(5_000 * MS);
        assertThat(dispatcher.due()).hasSize(2);
        assertThat(dispatcher.due()).isEmpty();
        assertThat(dispatcher.startNanos()).isEqualTo(1_000 * MS);
    }

    @Test
    void aTimeBoundOpenLoopSendsTheRequestsDueBeforeItsEnd() {
        assertThat(new Pacing(3, java.time.Duration.ofSeconds(10), java.time.Duration.ofSeconds(1))
                .openLoopRequests(2000)).isEqualTo(30);
        assertThat(new Pacing(2.5, java.time.Duration.ofSeconds(3), java.time.Duration.ofSeconds(1))
                .openLoopRequests(2000)).isEqualTo(8);
        assertThat(new Pacing(2.5, null, Pacing.DEFAULT_INTERVAL).openLoopRequests(2000)).isEqualTo(2000);
    }

    @Test
    void workloadRepeatsWithoutEndForATimeBoundRun() {
        Workload w = Workload.create(4, 2, 7, 0);
        assertThat(w.requestAt(3)).isEqualTo(w.requests().get(3));
        assertThat(w.requestAt(4)).isEqualTo(new Workload.PlannedRequest("r0005", w.requests().get(0).userId()));
        assertThat(w.requestAt(12_344).requestId()).isEqualTo("r12345");
        assertThat(w.requestAt(12_344).userId()).isEqualTo(w.requests().get(0).userId());
    }
}
