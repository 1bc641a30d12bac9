package io.github.agentlb.core.shared;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.shared.Observations.Report;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The replica's side of a shared allocation against an in-memory exchange and a manual clock. */
class SharedAllocationSyncTest {

    private static final Map<String, Integer> LEARNED = Map.of("A1", 3, "A2", 16, "A3", 11);

    private final AtomicLong now = new AtomicLong();
    private final AtomicInteger pickerChanges = new AtomicInteger();
    private final InMemoryAllocationExchange exchange = new InMemoryAllocationExchange(3, "me");
    private final List<Allocation> published = exchange.published();
    private final List<Observations> shares = exchange.shared();
    private final AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.custom()
            .totalVirtualNodes(30).build(), now::get);
    private SharedAllocationSync sync;

    @BeforeEach
    void start() throws Exception {
        avn.setAgents(List.of("A1", "A2", "A3"));
        sync = new SharedAllocationSync(new SharedAllocation(exchange, Duration.ofSeconds(30)), () -> avn,
                pickerChanges::incrementAndGet, now::get);
        sync.start(null);
        sync.connectionChanged(true);
    }

    /** Makes this replica the leader and lands its first write, of the counts it routes by; returns those counts. */
    private Map<String, Integer> leadingWithTheFirstWriteLanded() {
        sync.leadershipChanged(true);
        Map<String, Integer> start = avn.virtualNodes();
        sync.published(published.get(0), true, "version 0");
        return start;
    }

    private static final Map<String, Integer> FOUR_AGENTS = Map.of("A1", 5, "A2", 10, "A3", 7, "A4", 8);

    /** The agents become A1 to A4, as the balancer's membership hook tells the sync after the ring followed. */
    private void aFourthAgentJoins() {
        avn.updateAgents(List.of("A1", "A2", "A3", "A4"));
        sync.agentsChanged();
    }

    /** Makes this replica a follower of generation 4 (epoch 1, {@link #LEARNED}), then loses its connection to the store. */
    private void followingThenCutOffFromTheStore() {
        sync.allocationChanged(Allocation.of(4, 1, LEARNED));
        sync.connectionChanged(false);
    }

    @Test
    void aFollowerEvaluatesNothingAndInstallsANewerAllocationAsOneNewPicker() {
        assertThat(sync.evaluates()).isFalse();
        assertThat(sync.source()).isEqualTo(AllocationSource.LOCAL);

        sync.allocationChanged(Allocation.of(4, 1, LEARNED));

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(LEARNED));
        assertThat(pickerChanges).hasValue(1);
        assertThat(sync.generation()).isEqualTo(4);
        assertThat(sync.source()).isEqualTo(AllocationSource.LEADER);
        assertThat(sync.details()).containsEntry("allocation.generation", 4L).containsEntry("allocation.leader.epoch", 1L);
    }

    @Test
    void aFollowerSharesItsKeysAndReportsFourTimesPerLeadersWindow() {
        // Window 100 over three replicas: the leader's window is 33 of its requests, a share every 8.
        for (int i = 1; i <= 7; i++) {
            sync.reported("A" + (i % 3 + 1), 0.5, 0.25);
            sync.routed(i == 4 ? null : (long) i);
        }
        assertThat(shares).isEmpty();
        sync.routed(8L);
        sync.routed(9L);

        assertThat(shares).containsExactly(new Observations("me", 1, List.of(1L, 2L, 3L, 5L, 6L, 7L, 8L),
                List.of(new Report("A2", 0.5, 0.25), new Report("A3", 0.5, 0.25), new Report("A1", 0.5, 0.25),
                        new Report("A2", 0.5, 0.25), new Report("A3", 0.5, 0.25), new Report("A1", 0.5, 0.25),
                        new Report("A2", 0.5, 0.25))));
        for (long i = 10; i <= 16; i++) {
            sync.routed(i);
        }
        assertThat(shares).hasSize(2).last().isEqualTo(new Observations("me", 2,
                List.of(9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L), List.of()));
        assertThat(sync.details()).containsEntry("allocation.observations.shared", 2L);
    }

    @Test
    void aLeaderOrAReplicaWithoutTheStoreSharesNothing() {
        sync.connectionChanged(false);
        for (long i = 0; i < 20; i++) {
            sync.routed(i);
        }
        sync.connectionChanged(true);
        sync.leadershipChanged(true);
        for (long i = 0; i < 20; i++) {
            sync.reported("A1", 0.5, 0.5);
            sync.routed(i);
        }
        assertThat(shares).isEmpty();
    }

    @Test
    void theLeaderTakesObservationsIntoItsHistoryAndReportsNotItsWindow() {
        Observations o = new Observations("other", 1, List.of(1L, 2L, 3L, 4L, 5L), List.of(new Report("A1", 0.9, 0.9)));
        sync.observed(o);
        assertThat(sync.details()).containsEntry("allocation.observations.taken", 0L);

        sync.leadershipChanged(true);
        sync.observed(o);

        assertThat(avn.windowRequests()).isZero();
        assertThat(avn.evaluate()).hasValueSatisfying(e -> assertThat(e.requests()).isEqualTo(5));
        assertThat(sync.details()).containsEntry("allocation.observations.taken", 1L);
    }

    @Test
    void anOlderOrForeignAllocationIsNotInstalled() {
        sync.allocationChanged(Allocation.of(4, 1, LEARNED));
        sync.allocationChanged(Allocation.of(3, 1, Map.of("A1", 10, "A2", 10, "A3", 10)));
        sync.allocationChanged(Allocation.of(5, 1, Map.of("A1", 10, "A2", 10, "A4", 10)));

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(LEARNED));
        assertThat(sync.generation()).isEqualTo(4);
        assertThat(sync.details().get("allocation.problem").toString()).contains("membership digest");
        sync.allocationUnreadable("garbage");
        assertThat(sync.generation()).isEqualTo(4);
        assertThat(sync.details()).containsEntry("allocation.problem", "garbage");
    }

    @Test
    void aNewLeaderPublishesTheNextGenerationWithTheCountsItRoutesBy() {
        sync.allocationChanged(Allocation.of(4, 2, LEARNED));

        sync.leadershipChanged(true);

        assertThat(published).singleElement().isEqualTo(Allocation.of(5, 3, LEARNED));
        assertThat(sync.evaluates()).isTrue();
        sync.published(published.get(0), true, "version 5");
        assertThat(sync.generation()).isEqualTo(5);
    }

    @Test
    void aNewLeaderPublishesAfterTheHighestStoredGenerationEvenOneItCouldNotInstall() {
        // Generation 9 was written for other members: not installed here, but the next leader's
        // generation must pass it, or the replicas that installed 9 would refuse every write after it.
        sync.allocationChanged(Allocation.of(9, 9, FOUR_AGENTS));
        assertThat(sync.generation()).isZero();

        sync.leadershipChanged(true);

        assertThat(published).singleElement().isEqualTo(Allocation.of(10, 10, avn.virtualNodes()));
    }

    @Test
    void aFollowerInstallsANewerLeadersAllocationEvenWhenItsGenerationIsLower() {
        // A store that went back (a leader that never read the old value, the znode deleted):
        // the newer leader epoch is what every replica follows, not the higher number it once saw.
        sync.allocationChanged(Allocation.of(9, 9, LEARNED));
        Map<String, Integer> other = Map.of("A1", 8, "A2", 12, "A3", 10);

        sync.allocationChanged(Allocation.of(2, 10, other));

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(other));
        assertThat(sync.generation()).isEqualTo(2);
        sync.allocationChanged(Allocation.of(1, 10, LEARNED));
        assertThat(sync.generation()).as("an older generation of the same leader").isEqualTo(2);
    }

    @Test
    void aFollowerFollowsTheStoreWhenItWasWipedAndANewLeaderStartedFromNothing() {
        // ZooKeeper's data lost and the leader restarted: the new leader never saw epoch 4 and
        // writes generation 1 of epoch 1. What the store holds is what every follower routes by.
        sync.allocationChanged(Allocation.of(28, 4, LEARNED));
        Map<String, Integer> fresh = Map.of("A1", 8, "A2", 12, "A3", 10);

        sync.allocationChanged(Allocation.of(1, 1, fresh));

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(fresh));
        assertThat(sync.generation()).isEqualTo(1);
        sync.allocationChanged(Allocation.of(2, 1, LEARNED));
        assertThat(sync.generation()).isEqualTo(2);
    }

    /** Health names the lost store as its problem while it is lost, and forgets it when it is back. */
    @Test
    void healthNamesALostStoreAsItsProblem() {
        followingThenCutOffFromTheStore();
        now.addAndGet(Duration.ofSeconds(12).toNanos());
        assertThat(sync.details()).containsEntry("allocation.problem",
                "the store is unreachable for 12 s: routing on generation 4, learning alone after 30 s");
        now.addAndGet(Duration.ofSeconds(20).toNanos());
        assertThat(sync.details()).containsEntry("allocation.problem",
                "the store is unreachable for 32 s: learning alone");
        sync.connectionChanged(true);
        assertThat(sync.details()).containsEntry("allocation.problem", "");
    }

    @Test
    void healthSaysLocalOnceTheStoreIsLostPastLocalAfterWithoutARequest() {
        followingThenCutOffFromTheStore();
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        assertThat(sync.source()).isEqualTo(AllocationSource.LEADER);

        now.addAndGet(1);

        assertThat(sync.source()).isEqualTo(AllocationSource.LOCAL);
        assertThat(sync.details()).containsEntry("allocation.source", "local");
    }

    @Test
    void oneWriteInFlightAtATimeAndTheLatestCountsFollowIt() {
        sync.leadershipChanged(true);
        Map<String, Integer> start = avn.virtualNodes();
        sync.evaluated(start, LEARNED);
        assertThat(published).hasSize(1);

        sync.published(published.get(0), true, "version 0");

        assertThat(published).hasSize(2);
        assertThat(published.get(1).generation()).isEqualTo(2);
        assertThat(published.get(1).virtualNodes()).isEqualTo(LEARNED);
    }

    /**
     * The leader's evaluation goes to the store, not to its own ring: it routes by what every
     * replica routes by until the write lands, and keeps that ring when the write fails (a
     * ZooKeeper outage not yet noticed, a deposed leader), so no key moves on the leader alone.
     */
    @Test
    void theLeaderRoutesByAnEvaluationOnlyOnceItIsWritten() {
        Map<String, Integer> start = leadingWithTheFirstWriteLanded();
        int pickersBefore = pickerChanges.get();

        sync.evaluated(start, LEARNED);

        assertThat(avn.virtualNodes()).isEqualTo(start);
        assertThat(published).hasSize(2).last().satisfies(a -> {
            assertThat(a.generation()).isEqualTo(2);
            assertThat(a.virtualNodes()).isEqualTo(LEARNED);
        });
        sync.published(published.get(1), false, "CONNECTIONLOSS");
        assertThat(avn.virtualNodes()).isEqualTo(start);
        assertThat(sync.generation()).isEqualTo(1);
        assertThat(pickerChanges).hasValue(pickersBefore);

        sync.evaluated(start, LEARNED);
        assertThat(avn.virtualNodes()).isEqualTo(start);
        sync.published(published.get(2), true, "version 1");

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(LEARNED));
        assertThat(sync.generation()).isEqualTo(2);
        assertThat(pickerChanges).hasValue(pickersBefore + 1);
    }

    /**
     * A proposal made on the ring a write in flight replaces, or reported after that write landed,
     * is dropped: publishing it would undo the landed moves on every replica.
     */
    @Test
    void aProposalOvertakenByAWriteLandingIsDropped() {
        Map<String, Integer> start = leadingWithTheFirstWriteLanded();
        sync.evaluated(start, LEARNED);
        Map<String, Integer> other = Map.of("A1", 6, "A2", 12, "A3", 12);

        sync.evaluated(start, other);
        sync.published(published.get(1), true, "version 1");
        sync.evaluated(start, other);

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(LEARNED));
        assertThat(sync.generation()).isEqualTo(2);
        assertThat(published).hasSize(2);
    }

    /** A proposal belongs to its leadership: one lost and won again publishes the counts routed by. */
    @Test
    void aProposalIsDroppedWithTheLeadership() {
        sync.leadershipChanged(true);
        Map<String, Integer> start = avn.virtualNodes();
        sync.evaluated(start, LEARNED);
        sync.leadershipChanged(false);
        sync.published(published.get(0), true, "version 0");
        assertThat(published).hasSize(1);

        sync.leadershipChanged(true);

        assertThat(published).hasSize(2).last().isEqualTo(Allocation.of(2, 2, start));
    }

    /** The other writer's value came before the answer to this leader's failed write: take over at once. */
    @Test
    void aWriteRejectedAfterTheWinnersValueWasReadIsTakenOverAtOnce() {
        Map<String, Integer> start = leadingWithTheFirstWriteLanded();
        sync.evaluated(start, LEARNED);
        Map<String, Integer> other = Map.of("A1", 6, "A2", 12, "A3", 12);

        sync.allocationChanged(Allocation.of(2, 5, other));
        sync.published(published.get(1), false, "BADVERSION");

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(other));
        assertThat(published).hasSize(3).last().isEqualTo(Allocation.of(3, 6, other));
    }

    /** Back from learning alone, a follower routes by the shared allocation again at once. */
    @Test
    void aFollowerBackFromLearningAloneRoutesByTheSharedAllocationAgain() {
        followingThenCutOffFromTheStore();
        now.addAndGet(Duration.ofSeconds(31).toNanos());
        assertThat(sync.evaluates()).isTrue();
        avn.installVirtualNodes(Map.of("A1", 10, "A2", 10, "A3", 10));
        int pickersBefore = pickerChanges.get();

        sync.connectionChanged(true);

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(LEARNED));
        assertThat(sync.source()).isEqualTo(AllocationSource.LEADER);
        assertThat(pickerChanges).hasValue(pickersBefore + 1);
    }

    /** A connection event during the first write asks for nothing new: one generation, not two alike. */
    @Test
    void countsTheLeaderHasWrittenAreNotWrittenAgainUnlessTheStoredValueIsUnreadable() {
        sync.connectionChanged(false);
        sync.leadershipChanged(true);
        sync.connectionChanged(true);
        sync.published(published.get(0), true, "version 0");
        assertThat(published).hasSize(1);

        sync.connectionChanged(false);
        sync.connectionChanged(true);
        assertThat(published).hasSize(1);

        sync.allocationUnreadable("garbage");
        assertThat(published).hasSize(2).last().satisfies(a -> {
            assertThat(a.generation()).isEqualTo(2);
            assertThat(a.virtualNodes()).isEqualTo(published.get(0).virtualNodes());
        });
    }

    @Test
    void aDeletedAllocationIsWrittenAgainByTheLeaderAndLeftToItByAFollower() {
        sync.connectionChanged(true);
        sync.leadershipChanged(true);
        sync.published(published.get(0), true, "version 0");

        sync.allocationDeleted();

        assertThat(published).hasSize(2).last().satisfies(a -> {
            assertThat(a.generation()).isEqualTo(2);
            assertThat(a.virtualNodes()).isEqualTo(published.get(0).virtualNodes());
        });
        sync.published(published.get(1), true, "version 0");
        sync.leadershipChanged(false);
        sync.allocationDeleted();
        assertThat(published).as("a follower leaves it to the leader").hasSize(2);
        assertThat(sync.generation()).as("routing goes on on the installed generation").isEqualTo(2);
    }

    @Test
    void aReplicaThatLostTheStoreBeforeLocalAfterKeepsTheLastAllocationOverItsOwnEvaluation() {
        sync.allocationChanged(Allocation.of(4, 1, LEARNED));
        sync.leadershipChanged(true);
        sync.published(published.get(0), true, "version 1");
        sync.connectionChanged(false);

        sync.evaluated(LEARNED, Map.of("A1", 10, "A2", 10, "A3", 10));

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(LEARNED));
        assertThat(published).hasSize(1);
    }

    @Test
    void aRejectedWriteTakesOverAgainFromWhatTheOtherWriterStored() {
        sync.leadershipChanged(true);
        sync.published(published.get(0), false, "BADVERSION");
        assertThat(sync.generation()).isZero();

        sync.allocationChanged(Allocation.of(7, 4, LEARNED));

        assertThat(published).hasSize(2);
        assertThat(published.get(1).generation()).isEqualTo(8);
        assertThat(published.get(1).leaderEpoch()).isEqualTo(5);
    }

    @Test
    void withoutTheStoreTheLastAllocationStaysUntilLocalAfterThenTheReplicaLearnsAlone() {
        followingThenCutOffFromTheStore();

        now.addAndGet(Duration.ofSeconds(30).toNanos());
        assertThat(sync.evaluates()).isFalse();
        assertThat(sync.source()).isEqualTo(AllocationSource.LEADER);

        now.addAndGet(1);
        assertThat(sync.evaluates()).isTrue();
        assertThat(sync.source()).isEqualTo(AllocationSource.LOCAL);
        assertThat(sync.generation()).isEqualTo(4);

        sync.connectionChanged(true);
        assertThat(sync.evaluates()).isFalse();
        sync.allocationChanged(Allocation.of(5, 2, LEARNED));
        assertThat(sync.source()).isEqualTo(AllocationSource.LEADER);
    }

    @Test
    void stopClosesTheExchangeAndARestartedLeaderPublishesThoughItsLastWriteWasNeverAnswered() throws Exception {
        sync.leadershipChanged(true);
        assertThat(published).hasSize(1);

        sync.stop();
        assertThat(exchange.closes()).isEqualTo(1);
        sync.start(null);
        sync.connectionChanged(true);
        sync.leadershipChanged(true);

        assertThat(published).hasSize(2);
    }

    @Test
    void aReplicaLearningAloneRoutesByItsOwnEvaluationsUntilTheStoreIsBack() {
        followingThenCutOffFromTheStore();
        assertThat(sync.routesByWritten()).isTrue();

        now.addAndGet(Duration.ofSeconds(31).toNanos());
        assertThat(sync.evaluates()).isTrue();
        assertThat(sync.routesByWritten()).isFalse();

        sync.connectionChanged(true);
        assertThat(sync.routesByWritten()).isTrue();
    }

    @Test
    void theTimeWithoutTheStoreCountsFromWhenItWasLost() {
        now.set(Duration.ofSeconds(100).toNanos());
        sync.connectionChanged(false);

        now.addAndGet(Duration.ofSeconds(30).toNanos());
        assertThat(sync.evaluates()).isFalse();
        now.addAndGet(1);
        assertThat(sync.evaluates()).isTrue();
    }

    @Test
    void aFollowerSharesItsReportsAtOnceWhenTheirBoundIsReached() {
        for (int i = 1; i < Observations.MAX_REPORTS; i++) {
            sync.reported("A1", 0.5, 0.25);
        }
        assertThat(shares).isEmpty();

        sync.reported("A2", 0.75, 0.5);

        assertThat(shares).singleElement().satisfies(o -> {
            assertThat(o.positions()).isEmpty();
            assertThat(o.reports()).hasSize(Observations.MAX_REPORTS).last().isEqualTo(new Report("A2", 0.75, 0.5));
        });
    }

    @Test
    void theLeaderLearnsTheReportsOfTheObservationsAsIfTheyWereItsOwn() {
        List<Report> reports = List.of(new Report("A1", 0.9, 0.8), new Report("A2", 0.1, 0.2), new Report("A3", 0.5, 0.5));
        List<Long> positions = List.of(1L << 60, 3L << 60, 5L << 60, 7L << 60, -(1L << 60));
        AdaptiveVirtualNodes alone = new AdaptiveVirtualNodes(avn.config(), now::get);
        alone.setAgents(List.of("A1", "A2", "A3"));
        positions.forEach(alone::observe);
        AdaptiveVirtualNodes withoutReports = new AdaptiveVirtualNodes(avn.config(), now::get);
        withoutReports.setAgents(List.of("A1", "A2", "A3"));
        positions.forEach(withoutReports::observe);
        reports.forEach(r -> alone.report(r.agent(), r.cpu(), r.memory()));
        sync.leadershipChanged(true);

        sync.observed(new Observations("other", 1, positions, reports));

        Map<String, Double> learned = avn.evaluate().orElseThrow().loadIndices();
        assertThat(learned).isEqualTo(alone.evaluate().orElseThrow().loadIndices())
                .isNotEqualTo(withoutReports.evaluate().orElseThrow().loadIndices());
    }

    @Test
    void aLeaderPublishesTheCountsOfNewMembersAtOnce() {
        leadingWithTheFirstWriteLanded();

        aFourthAgentJoins();

        assertThat(avn.virtualNodes()).containsKey("A4");
        assertThat(published).hasSize(2).last().isEqualTo(Allocation.of(2, 1, avn.virtualNodes()));
    }

    @Test
    void aProposalForTheMembersBeforeAChangeIsNotPublished() {
        sync.leadershipChanged(true);
        Map<String, Integer> start = avn.virtualNodes();
        sync.evaluated(start, LEARNED);

        aFourthAgentJoins();
        sync.published(published.get(0), true, "version 0");

        assertThat(published).hasSize(2).last().isEqualTo(Allocation.of(2, 1, avn.virtualNodes()));
    }

    @Test
    void aFollowerInstallsAnAllocationForNewMembersOnceItHasThem() {
        sync.allocationChanged(Allocation.of(5, 1, FOUR_AGENTS));
        assertThat(sync.generation()).isZero();
        assertThat(sync.details().get("allocation.problem").toString()).startsWith("generation 5 not installed: ");

        aFourthAgentJoins();

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(FOUR_AGENTS));
        assertThat(sync.generation()).isEqualTo(5);
        assertThat(sync.source()).isEqualTo(AllocationSource.LEADER);
        assertThat(sync.details()).containsEntry("allocation.problem", "");
        assertThat(pickerChanges).as("the state writer builds the picker after its hook").hasValue(0);
    }

    @Test
    void anAllocationForOtherMembersWaitsWhileTheMembersStillDiffer() {
        sync.allocationChanged(Allocation.of(5, 1, Map.of("A1", 5, "A2", 10, "A3", 7, "A5", 8)));

        aFourthAgentJoins();

        assertThat(sync.generation()).isZero();
        assertThat(avn.virtualNodes()).containsKey("A4").doesNotContainKey("A5");
    }

    @Test
    void anAllocationOfTheInstalledGenerationForOtherMembersIsNoProblemToReport() {
        sync.allocationChanged(Allocation.of(4, 1, LEARNED));

        sync.allocationChanged(Allocation.of(4, 1, FOUR_AGENTS));
        aFourthAgentJoins();

        assertThat(sync.generation()).isEqualTo(4);
        assertThat(sync.details()).containsEntry("allocation.problem", "");
        assertThat(avn.virtualNodes()).isNotEqualTo(new java.util.TreeMap<>(FOUR_AGENTS));
    }

    @Test
    void aFailedWriteIsTakenOverWhenTheStoredValueIsReadEvenIfItIsForOtherAgents() {
        sync.leadershipChanged(true);
        sync.published(published.get(0), false, "BADVERSION");

        sync.allocationChanged(Allocation.of(7, 4, FOUR_AGENTS));

        assertThat(published).hasSize(2).last().satisfies(a -> assertThat(a.leaderEpoch()).isEqualTo(5));
    }

    @Test
    void installingTheCountsAlreadyRoutedByChangesNoPicker() {
        sync.allocationChanged(Allocation.of(4, 1, avn.virtualNodes()));

        assertThat(sync.generation()).isEqualTo(4);
        assertThat(pickerChanges).hasValue(0);
    }

    @Test
    void aProposalMadeOnTheRingAnotherLeadersValueReplacedIsDropped() {
        sync.leadershipChanged(true);
        Map<String, Integer> start = avn.virtualNodes();
        sync.evaluated(start, LEARNED);
        Map<String, Integer> other = Map.of("A1", 6, "A2", 12, "A3", 12);

        sync.allocationChanged(Allocation.of(2, 1, other));
        sync.published(published.get(0), true, "version 0");

        assertThat(avn.virtualNodes()).isEqualTo(new java.util.TreeMap<>(other));
        assertThat(published).hasSize(1);
    }

    @Test
    void aProposalMadeOnTheRingInstalledGoesOutWithTheNextWrite() {
        sync.leadershipChanged(true);
        Map<String, Integer> start = avn.virtualNodes();
        sync.evaluated(start, LEARNED);

        sync.allocationChanged(Allocation.of(2, 1, start));
        sync.published(published.get(0), true, "version 0");

        assertThat(published).hasSize(2).last().isEqualTo(Allocation.of(3, 1, LEARNED));
    }

    @Test
    void whatAFollowerBufferedBeforeItLedIsNeverShared() {
        for (long i = 1; i <= 5; i++) {
            sync.routed(i);
        }
        sync.leadershipChanged(true);
        sync.leadershipChanged(false);

        for (long i = 10; i <= 17; i++) {
            sync.routed(i);
        }

        assertThat(shares).singleElement().isEqualTo(new Observations("me", 1,
                List.of(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L), List.of()));
    }

    @Test
    void aLeaderBackWithTheStorePublishesTheMembersThatChangedWithoutIt() {
        leadingWithTheFirstWriteLanded();
        sync.connectionChanged(false);
        aFourthAgentJoins();
        assertThat(published).hasSize(1);

        sync.connectionChanged(true);

        assertThat(published).hasSize(2).last().isEqualTo(Allocation.of(2, 1, avn.virtualNodes()));
    }

    @Test
    void theLeaderEvaluatesForEveryReplicaAndAFollowerForItself() {
        assertThat(sync.replicasPerWindow()).isEqualTo(1);
        sync.leadershipChanged(true);
        assertThat(sync.replicasPerWindow()).isEqualTo(3);
    }
}
