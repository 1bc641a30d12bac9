package io.github.agentlb.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.agentlb.core.shared.Allocation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three replicas (three CamelContexts) on a real ZooKeeper on loopback (Curator's
 * {@link TestingServer} on a free port). End to end, on the wall clock: each wait is bounded (10 s
 * for what ZooKeeper's watches deliver at once, which a starved CPU still meets) and each test by
 * {@link Timeout}.
 */
@Tag("e2e")
@Timeout(60)
class SharedAllocationZooKeeperTest {

    private static final List<String> KEYS = IntStream.range(0, 500).mapToObj(i -> "user-" + i).toList();
    private static final Duration SESSION = Duration.ofSeconds(2);
    /** How long a change ZooKeeper's watches deliver at once may take to reach every replica. */
    private static final Duration PROPAGATION = Duration.ofSeconds(10);

    private TestingServer zk;
    private final List<Replica> replicas = new ArrayList<>();

    @BeforeEach
    void startZooKeeper() throws Exception {
        zk = new TestingServer(true);
    }

    @AfterEach
    void stopAll() throws Exception {
        replicas.forEach(Replica::close);
        zk.close();
    }

    private void startReplicas() throws Exception {
        for (int i = 1; i <= 3; i++) {
            replicas.add(new Replica("r" + i, zk.getConnectString(), SESSION));
        }
        // The first leader takes over from nothing: generation 1 with the start-up counts.
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> replicas.stream().filter(Replica::leads).count() == 1
                    && replicas.stream().allMatch(r -> r.generation() == 1));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no one leader with generation 1 on all: " + replicas, e);
        }
        // Each counts the election's participants: the leader evaluates every 60/3 of its own requests.
        await().atMost(PROPAGATION).until(() -> replicas.stream().allMatch(r -> r.exchange().replicas() == 3));
    }

    /** Keys whose agent differs between two owner maps. */
    private static long moved(Map<String, String> owners, Map<String, String> before) {
        return KEYS.stream().filter(k -> !owners.get(k).equals(before.get(k))).count();
    }

    private Replica leader(List<Replica> among) {
        return among.stream().filter(Replica::leads).findFirst().orElseThrow();
    }

    /** Sends keyed requests across the replicas until the leader publishes a newer generation. */
    private long driveUntilLeaderPublishes() {
        Replica leader = leader(replicas);
        long before = leader.generation();
        int i = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (leader.generation() == before) {
            assertThat(System.nanoTime()).as("leader published within 20 s").isLessThan(deadline);
            replicas.get(i % replicas.size()).send(KEYS.get(i % 60));
            i++;
        }
        return leader.generation();
    }

    /**
     * Waits until every replica routes by one generation, at least {@code generation} (the leader
     * may have published again meanwhile), with the same counts; returns it.
     */
    private long awaitAllAt(List<Replica> among, long generation, Duration within) {
        try {
            await().atMost(within).pollInterval(Duration.ofMillis(20)).until(() -> among.stream()
                    .allMatch(r -> r.generation() >= generation && r.generation() == among.get(0).generation()
                            && r.virtualNodes().equals(among.get(0).virtualNodes())));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("not all at one generation >= " + generation + " within " + within + ": " + among, e);
        }
        return among.get(0).generation();
    }

    @Test
    void everyReplicaInstallsTheLeadersNewGeneration() throws Exception {
        startReplicas();
        Map<String, Integer> startCounts = replicas.get(0).virtualNodes();

        long published = driveUntilLeaderPublishes();

        long generation = awaitAllAt(replicas, published, PROPAGATION);
        assertThat(replicas.get(0).virtualNodes()).isNotEqualTo(startCounts);
        assertThat(replicas.get(0).virtualNodes().get("direct://A1")).isLessThan(startCounts.get("direct://A1"));
        assertThat(replicas).allSatisfy(r -> assertThat(moved(r.owners(KEYS), replicas.get(0).owners(KEYS))).as(r.toString()).isZero());
        assertThat(replicas).allSatisfy(r -> assertThat(r.balancer.allocationDetails())
                .containsEntry("allocation.source", "leader").containsEntry("allocation.generation", generation));
    }

    @Test
    void anotherLeaderTakesOverWithTheNextGenerationAndNoKeyMoved() throws Exception {
        startReplicas();
        long generation = awaitAllAt(replicas, driveUntilLeaderPublishes(), PROPAGATION);
        Replica old = leader(replicas);
        long epoch = (Long) old.balancer.allocationDetails().get("allocation.leader.epoch");
        List<Replica> survivors = replicas.stream().filter(r -> r != old).toList();
        Map<String, String> owners = survivors.get(0).owners(KEYS);
        Map<String, Integer> counts = survivors.get(0).virtualNodes();

        old.close();
        replicas.remove(old);

        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> {
            // No key moves at any time in between, on any survivor.
            survivors.forEach(r -> assertThat(moved(r.owners(KEYS), owners)).as(r.toString()).isZero());
            return survivors.stream().filter(Replica::leads).count() == 1
                    && survivors.stream().allMatch(r -> r.generation() == generation + 1);
        });
        assertThat(survivors).allSatisfy(r -> {
            assertThat(r.virtualNodes()).isEqualTo(counts);
            assertThat(r.balancer.allocationDetails()).containsEntry("allocation.leader.epoch", epoch + 1);
        });
    }

    @Test
    void aWriteWithAStaleVersionIsRejected() throws Exception {
        startReplicas();
        long generation = awaitAllAt(replicas, driveUntilLeaderPublishes(), PROPAGATION);
        ZooKeeperAllocationExchange exchange = replicas.get(0).exchange();
        int version = exchange.curator().checkExists().forPath(exchange.allocationPath()).getVersion();
        Allocation deposed = Allocation.of(generation + 1, 1, Map.of("direct://A1", 1, "direct://A2", 1, "direct://A3", 1));

        assertThat(exchange.write(deposed, version - 1)).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(KeeperException.BadVersionException.class);
        assertThat(exchange.write(deposed, ZooKeeperAllocationExchange.ABSENT)).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(KeeperException.NodeExistsException.class);

        byte[] stored = exchange.curator().getData().forPath(exchange.allocationPath());
        assertThat(AllocationCodec.decode(stored).generation()).isEqualTo(generation);
        Thread.sleep(200);
        assertThat(replicas).allSatisfy(r -> assertThat(r.generation()).isEqualTo(generation));
    }

    /**
     * A 30 s outage is shortened to 4 s here with a 2 s session timeout: long enough for every
     * session to expire (leadership gone, a new election when ZooKeeper is back), shorter than the
     * 30 s after which a replica would learn on its own.
     */
    @Test
    void routingGoesOnOnTheLastAllocationWhileZooKeeperIsDownAndPublishingResumes() throws Exception {
        startReplicas();
        long published = awaitAllAt(replicas, driveUntilLeaderPublishes(), PROPAGATION);
        for (int i = 0; i < 300; i++) {
            replicas.get(i % 3).send(KEYS.get(i % 60));
        }
        // The leader may have moved again meanwhile.
        long generation = awaitAllAt(replicas, published, PROPAGATION);
        Map<String, String> owners = replicas.get(0).owners(KEYS);

        zk.stop();
        long slowestDuring = 0;
        long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        int i = 0;
        // At least 300 requests (the leader evaluates and publishes meanwhile), however slow the CPU.
        while (System.nanoTime() < end || i <= 300) {
            slowestDuring = Math.max(slowestDuring, replicas.get(i % 3).send(KEYS.get(i % 60)));
            i++;
        }
        assertThat(replicas).allSatisfy(r -> {
            assertThat(r.generation()).isEqualTo(generation);
            assertThat(moved(r.owners(KEYS), owners)).as(r.toString()).isZero();
            assertThat(r.balancer.allocationDetails()).containsEntry("allocation.store.connected", false)
                    .containsEntry("allocation.source", "leader");
        });
        // No request waits on ZooKeeper: one that did would wait at least the 1 s connect timeout
        // (a bound, not a latency comparison: the machine running this is shared).
        assertThat(Duration.ofNanos(slowestDuring)).isLessThan(Duration.ofSeconds(1));

        zk.restart();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() ->
                replicas.stream().filter(Replica::leads).count() == 1
                        && replicas.stream().allMatch(r -> r.generation() == generation + 1));
        assertThat(replicas).allSatisfy(r -> assertThat(moved(r.owners(KEYS), owners)).as(r.toString()).isZero());
        awaitAllAt(replicas, driveUntilLeaderPublishes(), PROPAGATION);
    }

    /**
     * ZooKeeper away at start: the replica starts after its 1 s connect timeout at most (joining
     * the election without a session blocked the start for the client's retries, 15 s with the
     * demo's settings and a refused port), routes on its start-up ring, and joins when ZooKeeper
     * comes. The bound is the start's (10 s, between the two), not a latency comparison.
     */
    @Test
    void aReplicaStartedWithZooKeeperAwayStartsAtOnceAndJoinsWhenItComes() throws Exception {
        zk.stop();
        long start = System.nanoTime();
        Replica alone = new Replica("r1", zk.getConnectString(), SESSION);
        replicas.add(alone);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(alone.send("user-1")).isLessThan(Duration.ofSeconds(1).toNanos());
        assertThat(alone.balancer.allocationDetails()).containsEntry("allocation.store.connected", false);

        zk.restart();

        await().atMost(Duration.ofSeconds(20)).until(() -> alone.leads() && alone.generation() == 1);
    }

    /**
     * A replica leaves a ZooKeeper that accepts its connections but never answers (hung, or a port
     * of something else) within a bound, so that its context's drain is not held back: leaving
     * such a server held a stopping proxy 9-13 s before its drain began (the demo's 15 s session).
     * The bound (4 s) lies between.
     */
    @Test
    void aReplicaLeavesAZooKeeperThatDoesNotAnswerWithinItsBound() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            List<java.net.Socket> held = new ArrayList<>();
            Thread accepting = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (java.io.IOException closed) {
                    // the test ends
                }
            });
            accepting.setDaemon(true);
            accepting.start();
            Replica replica = new Replica("r1", "127.0.0.1:" + silent.getLocalPort(), Duration.ofSeconds(15));
            replica.send("user-1");
            await().atMost(Duration.ofSeconds(10)).until(() -> !held.isEmpty());

            long start = System.nanoTime();
            replica.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        }
    }

    @Test
    void aCorruptAllocationIsIgnoredAndTheLastGoodKept() throws Exception {
        startReplicas();
        long generation = awaitAllAt(replicas, driveUntilLeaderPublishes(), PROPAGATION);
        Map<String, Integer> counts = replicas.get(0).virtualNodes();
        ZooKeeperAllocationExchange exchange = replicas.get(0).exchange();

        exchange.curator().setData().forPath(exchange.allocationPath(), "{not an allocation".getBytes(StandardCharsets.UTF_8));

        // Every replica ignores it (one WARN each, the last good kept); the leader writes its counts over it at once, with no request sent: the next generation.
        long next = awaitAllAt(replicas, generation + 1, PROPAGATION);
        assertThat(next).isEqualTo(generation + 1);
        assertThat(replicas).allSatisfy(r -> {
            assertThat(r.virtualNodes()).isEqualTo(counts);
            assertThat(r.balancer.allocationDetails()).containsEntry("allocation.problem", "");
        });
    }

    @Test
    void aDeletedAllocationIsWrittenAgainByTheLeaderAtOnce() throws Exception {
        startReplicas();
        long generation = awaitAllAt(replicas, driveUntilLeaderPublishes(), PROPAGATION);
        Map<String, Integer> counts = replicas.get(0).virtualNodes();
        ZooKeeperAllocationExchange exchange = replicas.get(0).exchange();

        exchange.curator().delete().forPath(exchange.allocationPath());

        // The leader writes its counts again with no request sent (a replica starting meanwhile would
        // otherwise route on its start-up ring until the leader's next move): the next generation, every
        // replica on it, the counts unchanged.
        long next = awaitAllAt(replicas, generation + 1, PROPAGATION);
        assertThat(next).isEqualTo(generation + 1);
        assertThat(exchange.curator().checkExists().forPath(exchange.allocationPath())).isNotNull();
        assertThat(replicas).allSatisfy(r -> assertThat(r.virtualNodes()).isEqualTo(counts));
    }

    @Test
    void aReplicaStartsAndRoutesWithZooKeeperDownAndJoinsWhenItComesBack() throws Exception {
        zk.stop();
        Replica alone = new Replica("r1", zk.getConnectString(), SESSION);
        replicas.add(alone);
        long slowest = 0;
        for (int i = 0; i < 100; i++) {
            slowest = Math.max(slowest, alone.send(KEYS.get(i % 60)));
        }
        assertThat(alone.generation()).isZero();
        assertThat(alone.balancer.allocationDetails()).containsEntry("allocation.store.connected", false);
        assertThat(Duration.ofNanos(slowest)).as("no request waits on ZooKeeper").isLessThan(Duration.ofSeconds(1));

        zk.restart();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> alone.leads() && alone.generation() == 1);
    }

    @Test
    void joinFailsNamingAMissingCamelContext() {
        ZooKeeperAllocationExchange exchange = (ZooKeeperAllocationExchange) ZooKeeperSharedAllocation
                .of(zk.getConnectString(), "x").exchange();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> exchange.start(null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CamelContext");
    }
}
