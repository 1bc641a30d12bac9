package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.testing.FakeScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServiceStationTest {

    private static final long MS = 1_000_000L;
    private static final double TAU_MS = ServiceStation.LOAD_TIME_CONSTANT.toMillis();
    private static final double EPS = 1e-12;

    private FakeScheduler fake;
    private DelayScheduler scheduler;
    private final List<String> events = new ArrayList<>();
    private final List<LoadSnapshot> loads = new ArrayList<>();

    @BeforeEach
    void setUp() {
        fake = new FakeScheduler();
        scheduler = (task, delayNanos) -> fake.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    private ServiceStation station(int capacity, int delayMs) {
        AgentConfig config = AgentConfig.custom().capacity(capacity).delayMs(delayMs, delayMs).build();
        return new ServiceStation(config, DelayChooser.of(config), scheduler, fake::nanoTime);
    }

    /** The moving average after {@code n} requests in the system for {@code ms}, from {@code avg}. */
    private static double average(double avg, int n, double ms) {
        return n + (avg - n) * Math.exp(-ms / TAU_MS);
    }

    private ServiceStation.Customer customer(String name) {
        return new ServiceStation.Customer() {
            @Override
            public void served(LoadSnapshot load) {
                events.add(name);
                loads.add(load);
            }

            @Override
            public void rejected(RuntimeException cause) {
                events.add(name + " rejected");
            }
        };
    }

    /** Submits customers r1..r{@code count}, in order. */
    private void submit(ServiceStation station, int count) {
        for (int i = 1; i <= count; i++) {
            station.submit(customer("r" + i));
        }
    }

    @Test
    void thirdRequestWaitsUntilOneCompletesAndSeesUtilizationOnePointFive() {
        ServiceStation station = station(2, 100);
        submit(station, 3);

        assertThat(station.inService()).isEqualTo(2);
        assertThat(station.queued()).isEqualTo(1);
        assertThat(fake.pendingCount()).as("r3's delay has not started").isEqualTo(2);
        assertThat(station.load().utilization()).isEqualTo(1.5);

        fake.advance(100, TimeUnit.MILLISECONDS);
        assertThat(events).containsExactly("r1", "r2");
        double atR1 = average(0, 3, 100);
        assertThat(loads.get(0).utilization()).as("r1 answered after 100 ms with 3 in system")
                .isCloseTo(atR1 / 2, within(EPS));
        assertThat(loads.get(0).inService()).isEqualTo(2);
        assertThat(loads.get(0).queued()).isEqualTo(1);
        assertThat(loads.get(0).cpu()).isCloseTo(0.1 + 0.9 * atR1 / 2, within(EPS));
        assertThat(loads.get(1).utilization()).as("r2 answered at the same instant").isCloseTo(atR1 / 2, within(EPS));
        assertThat(loads.get(1).inService()).isEqualTo(2);
        assertThat(loads.get(1).queued()).isZero();
        assertThat(station.inService()).isEqualTo(1);
        assertThat(station.queued()).isZero();

        fake.advance(99, TimeUnit.MILLISECONDS);
        assertThat(events).as("r3's delay started when r1 completed").containsExactly("r1", "r2");
        fake.advance(1, TimeUnit.MILLISECONDS);
        assertThat(events).containsExactly("r1", "r2", "r3");
        assertThat(loads.get(2).utilization()).as("then 1 in system for 100 ms")
                .isCloseTo(average(atR1, 1, 100) / 2, within(EPS));
        assertThat(station.inService()).isZero();
        assertThat(station.load().utilization()).isZero();
    }

    @Test
    void queueIsFifo() {
        ServiceStation station = station(1, 10);
        submit(station, 5);
        assertThat(station.queued()).isEqualTo(4);
        fake.advance(50, TimeUnit.MILLISECONDS);
        assertThat(events).containsExactly("r1", "r2", "r3", "r4", "r5");
        double avg = 0;
        for (int i = 0; i < 5; i++) {
            avg = average(avg, 5 - i, 10);
            assertThat(loads.get(i).utilization()).as("r%d, after %d in system for 10 ms", i + 1, 5 - i)
                    .isCloseTo(avg, within(EPS));
        }
    }

    @Test
    void unlimitedCapacityNeverQueuesAndReportsAgainstNominalCapacity() {
        ServiceStation station = station(0, 10);
        submit(station, 15);
        assertThat(station.inService()).isEqualTo(15);
        assertThat(station.queued()).isZero();
        fake.advance(10, TimeUnit.MILLISECONDS);
        assertThat(events).hasSize(15);
        double answered = average(0, 15, 10) / AgentConfig.NOMINAL_CAPACITY;
        assertThat(loads.get(0).utilization()).isCloseTo(answered, within(EPS));
        assertThat(loads.get(14).utilization()).as("all at the same instant").isCloseTo(answered, within(EPS));
        assertThat(station.load().utilization()).isZero();
    }

    @Test
    void reportedUtilizationIsTheTimeAverageAndNotTheCountAtTheAnswer() {
        ServiceStation station = station(2, 100);
        double avg = 0;
        // 20 rounds of 2 requests: the station is full for 100 ms, then idle for 100 ms.
        for (int round = 0; round < 20; round++) {
            station.submit(customer("a" + round));
            station.submit(customer("b" + round));
            fake.advance(100, TimeUnit.MILLISECONDS);
            avg = average(avg, 2, 100);
            assertThat(loads.get(2 * round).utilization()).isCloseTo(avg / 2, within(EPS));
            fake.advance(100, TimeUnit.MILLISECONDS);
            avg = average(avg, 0, 100);
        }
        // A count at the answer says 1.0 (0.5 and 0 without the answered request) however long
        // the idle gaps; the average of this half-busy station settles at 1 / (1 + e^-0.4) = 0.60.
        double periodic = 2 / (1 + Math.exp(-100 / TAU_MS));
        assertThat(loads.get(39).utilization()).isCloseTo(periodic / 2, within(1e-6));
        assertThat(station.reportedLoad().utilization()).isCloseTo(avg / 2, within(EPS));
        assertThat(station.load().utilization()).isZero();
    }

    @Test
    void delaysAreChosenWhenServiceStarts() {
        AgentConfig config = AgentConfig.custom().capacity(1).seed(42).build();
        ServiceStation station = new ServiceStation(config, DelayChooser.of(config), scheduler);
        submit(station, 2);
        assertThat(fake.pendingDelays()).containsExactly(Duration.ofMillis(65));
        fake.advance(65, TimeUnit.MILLISECONDS);
        assertThat(fake.pendingDelays()).as("r2's, chosen when it starts").containsExactly(Duration.ofMillis(109));
    }

    @Test
    void rejectionAnswersEveryWaitingRequestAndFreesTheServers() {
        ServiceStation station = station(1, 10);
        submit(station, 3);
        fake.shutdown();
        fake.advance(10, TimeUnit.MILLISECONDS);
        assertThat(events).containsExactly("r1", "r2 rejected", "r3 rejected");
        assertThat(station.inService()).isZero();
        assertThat(station.queued()).isZero();

        station.submit(customer("r4"));
        assertThat(events).endsWith("r4 rejected");
        assertThat(station.inService()).isZero();
    }

    @Test
    void aFailingCustomerStillReleasesItsServer() {
        ServiceStation station = station(1, 10);
        station.submit(new ServiceStation.Customer() {
            @Override
            public void served(LoadSnapshot load) {
                throw new IllegalStateException("boom");
            }

            @Override
            public void rejected(RuntimeException cause) {
            }
        });
        station.submit(customer("r2"));
        // The customer's exception ends in the task's future, as on a real scheduler's thread; the
        // station must have moved on anyway.
        fake.advance(10, TimeUnit.MILLISECONDS);
        fake.advance(10, TimeUnit.MILLISECONDS);
        assertThat(events).containsExactly("r2");
        assertThat(station.inService()).isZero();
    }
}
