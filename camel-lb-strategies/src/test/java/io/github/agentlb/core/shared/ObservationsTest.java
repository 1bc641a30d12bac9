package io.github.agentlb.core.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A follower's share of observations, its bounds, and the shared-allocation settings around it. */
class ObservationsTest {

    private static final Observations.Report REPORT = new Observations.Report("A1", 0.5, 0.25);

    @Test
    void emptyOnlyWithNeitherPositionsNorReports() {
        assertThat(new Observations("r1", 1, List.of(), List.of()).isEmpty()).isTrue();
        assertThat(new Observations("r1", 1, List.of(7L), List.of()).isEmpty()).isFalse();
        assertThat(new Observations("r1", 1, List.of(), List.of(REPORT)).isEmpty()).isFalse();
        assertThat(new Observations("r1", 1, List.of(7L), List.of(REPORT)).isEmpty()).isFalse();
    }

    @Test
    void exactlyTheBoundOfPositionsAndReportsIsAccepted() {
        List<Long> positions = Collections.nCopies(Observations.MAX_POSITIONS, 7L);
        List<Observations.Report> reports = Collections.nCopies(Observations.MAX_REPORTS, REPORT);
        Observations full = new Observations("r1", 1, positions, reports);
        assertThat(full.positions()).hasSize(4096);
        assertThat(full.reports()).hasSize(4096);
    }

    @Test
    void oneMoreThanTheBoundIsRejected() {
        assertThatThrownBy(() -> new Observations("r1", 1, Collections.nCopies(4097, 7L), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("at most 4096 positions, was 4097");
        assertThatThrownBy(() -> new Observations("r1", 1, List.of(), Collections.nCopies(4097, REPORT)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("at most 4096 reports, was 4097");
    }

    @Test
    void sequenceStartsAtOne() {
        assertThat(new Observations("r1", 1, List.of(), List.of()).sequence()).isEqualTo(1);
        assertThatThrownBy(() -> new Observations("r1", 0, List.of(), List.of()))
                .hasMessage("sequence must be >= 1, was 0");
    }

    @Test
    void shareEveryIsAQuarterOfTheReplicasPartOfTheWindow() {
        assertThat(Observations.shareEvery(1000, 2, Observations.SHARES_PER_WINDOW)).isEqualTo(125);
        assertThat(Observations.shareEvery(1000, 0, 0)).isEqualTo(1000);
        assertThat(Observations.shareEvery(3, 4, 4)).isEqualTo(1);
        assertThat(Observations.shareEvery(1_000_000, 1, 1)).isEqualTo(Observations.MAX_POSITIONS);
    }

    @Test
    void sharedAllocationDefaultsToThirtySecondsAndCopiesWithAnother() {
        AllocationExchange exchange = new InMemoryAllocationExchange();
        SharedAllocation shared = SharedAllocation.of(exchange);
        assertThat(shared.exchange()).isSameAs(exchange);
        assertThat(shared.localAfter()).isEqualTo(Duration.ofSeconds(30));
        SharedAllocation copy = shared.withLocalAfter(Duration.ofSeconds(5));
        assertThat(copy.exchange()).isSameAs(exchange);
        assertThat(copy.localAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(shared.localAfter()).isEqualTo(Duration.ofSeconds(30));
        // An exchange that knows nothing of the others counts one replica, named after itself.
        assertThat(exchange.replicas()).isEqualTo(1);
        assertThat(exchange.replicaId())
                .isEqualTo("replica-" + Integer.toHexString(System.identityHashCode(exchange)));
    }
}
