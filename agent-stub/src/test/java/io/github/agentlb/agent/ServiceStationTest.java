package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServiceStationTest {

    private static final long MS = 1_000_000L;

    private FakeScheduler scheduler;
    private final List<String> events = new ArrayList<>();
    private final List<LoadSnapshot> loads = new ArrayList<>();

    @BeforeEach
    void setUp() {
        scheduler = new FakeScheduler();
    }

    private ServiceStation station(int capacity, int delayMs) {
        AgentConfig config = AgentConfig.custom().capacity(capacity).delayMs(delayMs, delayMs).build();
        return new ServiceStation(config, DelayChooser.of(config), scheduler);
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

    @Test
    void thirdRequestWaitsUntilOneCompletesAndSeesUtilizationOnePointFive() {
        ServiceStation station = station(2, 100);
        station.submit(customer("r1"));
        station.submit(customer("r2"));
        station.submit(customer("r3"));

        assertThat(station.inService()).isEqualTo(2);
        assertThat(station.queued()).isEqualTo(1);
        assertThat(scheduler.pendingCount()).as("r3's delay has not started").isEqualTo(2);
        assertThat(station.load().utilization()).isEqualTo(1.5);

        scheduler.advance(100 * MS);
        assertThat(events).containsExactly("r1", "r2");
        assertThat(loads.get(0).utilization()).as("r1 answered with 3 in system").isEqualTo(1.5);
        assertThat(loads.get(0).inService()).isEqualTo(2);
        assertThat(loads.get(0).queued()).isEqualTo(1);
        assertThat(loads.get(0).cpu()).isEqualTo(1.0);
        assertThat(loads.get(1).utilization()).as("r2 answered with r2 and r3 in service").isEqualTo(1.0);
        assertThat(station.inService()).isEqualTo(1);
        assertThat(station.queued()).isZero();

        scheduler.advance(99 * MS);
        assertThat(events).as("r3's delay started when r1 completed").containsExactly("r1", "r2");
        scheduler.advance(1 * MS);
        assertThat(events).containsExactly("r1", "r2", "r3");
        assertThat(loads.get(2).utilization()).isEqualTo(0.5);
        assertThat(station.inService()).isZero();
        assertThat(station.load().utilization()).isZero();
    }

    @Test
    void queueIsFifo() {
        ServiceStation station = station(1, 10);
        for (int i = 1; i <= 5; i++) {
            station.submit(customer("r" + i));
        }
        assertThat(station.queued()).isEqualTo(4);
        scheduler.advance(50 * MS);
        assertThat(events).containsExactly("r1", "r2", "r3", "r4", "r5");
        assertThat(loads).extracting(LoadSnapshot::utilization).containsExactly(5.0, 4.0, 3.0, 2.0, 1.0);
    }

    @Test
    void unlimitedCapacityNeverQueuesAndReportsAgainstNominalCapacity() {
        ServiceStation station = station(0, 10);
        for (int i = 1; i <= 15; i++) {
            station.submit(customer("r" + i));
        }
        assertThat(station.inService()).isEqualTo(15);
        assertThat(station.queued()).isZero();
        scheduler.advance(10 * MS);
        assertThat(events).hasSize(15);
        assertThat(loads.get(0).utilization()).isEqualTo(1.5);
        assertThat(loads.get(14).utilization()).isEqualTo(0.1);
    }

    @Test
    void delaysAreChosenWhenServiceStarts() {
        AgentConfig config = AgentConfig.custom().capacity(1).seed(42).build();
        ServiceStation station = new ServiceStation(config, DelayChooser.of(config), scheduler);
        station.submit(customer("r1"));
        station.submit(customer("r2"));
        assertThat(scheduler.scheduledDelays).containsExactly(65 * MS);
        scheduler.advance(65 * MS);
        assertThat(scheduler.scheduledDelays).containsExactly(65 * MS, 109 * MS);
    }

    @Test
    void rejectionAnswersEveryWaitingRequestAndFreesTheServers() {
        ServiceStation station = station(1, 10);
        station.submit(customer("r1"));
        station.submit(customer("r2"));
        station.submit(customer("r3"));
        scheduler.stop();
        scheduler.advance(10 * MS);
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
        try {
            scheduler.advance(10 * MS);
        } catch (IllegalStateException expected) {
            // The scheduler's thread would swallow it; the station must have moved on anyway.
        }
        scheduler.advance(10 * MS);
        assertThat(events).containsExactly("r2");
        assertThat(station.inService()).isZero();
    }
}
