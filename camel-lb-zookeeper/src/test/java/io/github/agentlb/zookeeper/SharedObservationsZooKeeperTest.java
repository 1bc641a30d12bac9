package io.github.agentlb.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.agentlb.core.shared.Allocation;
import io.github.agentlb.core.shared.AllocationExchange;
import io.github.agentlb.core.shared.Observations;
import io.github.agentlb.core.shared.Observations.Report;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.curator.test.TestingServer;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Followers' observations through ZooKeeper ({@link TestingServer} on loopback): two bare
 * exchanges with recording listeners, and three balancer replicas ({@link Replica}). End to end,
 * on the wall clock: each wait is bounded (10 s for what ZooKeeper delivers at once, which a
 * starved CPU still meets) and each test by {@link Timeout}.
 */
@Tag("e2e")
@Timeout(60)
class SharedObservationsZooKeeperTest {

    private TestingServer zk;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private AbstractAppender appender;

    /** Records what an exchange hands its replica. */
    private static final class Recorder implements AllocationExchange.Listener {
        final List<Observations> observed = new CopyOnWriteArrayList<>();
        volatile boolean leader;

        @Override
        public void allocationChanged(Allocation allocation) {
        }

        @Override
        public void allocationUnreadable(String detail) {
        }

        @Override
        public void leadershipChanged(boolean leading) {
            leader = leading;
        }

        @Override
        public void connectionChanged(boolean connected) {
        }

        @Override
        public void published(Allocation allocation, boolean written, String detail) {
        }

        @Override
        public void observed(Observations observations) {
            observed.add(observations);
        }
    }

    private record Member(ZooKeeperAllocationExchange exchange, Recorder recorder) {
    }

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer(true);
        appender = new AbstractAppender("warnings", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getLevel() == Level.WARN) {
                    warnings.add(event.getMessage().getFormattedMessage());
                }
            }
        };
        appender.start();
        ((LoggerContext) LogManager.getContext(false)).getConfiguration().getLoggerConfig("io.github.agentlb.shared")
                .addAppender(appender, Level.WARN, null);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        ((LoggerContext) LogManager.getContext(false)).getConfiguration().getLoggerConfig("io.github.agentlb.shared")
                .removeAppender("warnings");
        zk.close();
    }

    private Member member() throws Exception {
        ZooKeeperAllocationExchange exchange = (ZooKeeperAllocationExchange) ZooKeeperSharedAllocation
                .builder(zk.getConnectString(), "obs").sessionTimeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(1)).build().exchange();
        DefaultCamelContext context = new DefaultCamelContext();
        context.start();
        Recorder recorder = new Recorder();
        exchange.start(context, recorder);
        toClose.add(context);
        toClose.add(exchange);
        return new Member(exchange, recorder);
    }

    private static Observations observations(String replica, long sequence) {
        return new Observations(replica, sequence, List.of(sequence, -sequence), List.of(new Report("A1", 0.5, 0.25)));
    }

    /** Shares and waits until the write is done, so that no share is dropped for one in flight. */
    private static void shareAndWait(ZooKeeperAllocationExchange exchange, Observations o) {
        long written = exchange.sharesWritten();
        exchange.share(o);
        await().atMost(Duration.ofSeconds(10)).until(() -> exchange.sharesWritten() == written + 1);
    }

    /** Two bare exchanges once one of them leads: the leader first, then the follower. */
    private List<Member> leaderAndFollower() throws Exception {
        Member a = member();
        Member b = member();
        await().atMost(Duration.ofSeconds(10)).until(() -> a.recorder.leader ^ b.recorder.leader);
        return a.recorder.leader ? List.of(a, b) : List.of(b, a);
    }

    @Test
    void eachShareOfAFollowerReachesTheLeaderOnceAndItsOwnAndStaleOnesDoNot() throws Exception {
        List<Member> pair = leaderAndFollower();
        Member leader = pair.get(0);
        Member follower = pair.get(1);
        String id = follower.exchange.replicaId();

        for (long s = 1; s <= 3; s++) {
            shareAndWait(follower.exchange, observations(id, s));
            long expected = s;
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.recorder.observed.size() == expected);
        }
        // A stale sequence, then the leader's own share: neither comes.
        shareAndWait(follower.exchange, observations(id, 2));
        shareAndWait(leader.exchange, observations(leader.exchange.replicaId(), 9));
        shareAndWait(follower.exchange, observations(id, 4));
        await().atMost(Duration.ofSeconds(10)).until(() -> leader.recorder.observed.size() == 4);
        Thread.sleep(200);

        assertThat(leader.recorder.observed).extracting(Observations::sequence).containsExactly(1L, 2L, 3L, 4L);
        assertThat(leader.recorder.observed.get(0)).isEqualTo(observations(id, 1));
        assertThat(follower.recorder.observed).isEmpty();
        byte[] stored = leader.exchange.curator().getData().forPath(leader.exchange.observationsPath() + "/" + id);
        assertThat(new String(stored, StandardCharsets.UTF_8)).startsWith("agentlb-observations 1\nreplica " + id
                + "\nsequence 4\n");
        assertThat(leader.exchange.curator().checkExists().forPath(leader.exchange.observationsPath() + "/" + id)
                .getEphemeralOwner()).isNotZero();
    }

    @Test
    void aCorruptObservationsZnodeIsIgnoredWithOneWarning() throws Exception {
        List<Member> pair = leaderAndFollower();
        Member leader = pair.get(0);
        Member follower = pair.get(1);
        String corrupt = leader.exchange.observationsPath() + "/intruder";

        leader.exchange.curator().create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                .forPath(corrupt, "{not observations".getBytes(StandardCharsets.UTF_8));
        leader.exchange.curator().setData().forPath(corrupt, "still not".getBytes(StandardCharsets.UTF_8));
        shareAndWait(follower.exchange, observations(follower.exchange.replicaId(), 1));
        await().atMost(Duration.ofSeconds(10)).until(() -> leader.recorder.observed.size() == 1);

        // Both replicas watch the znode; each warns once about it.
        assertThat(warnings).filteredOn(w -> w.contains(corrupt)).hasSize(2)
                .allSatisfy(w -> assertThat(w).contains("not observations"));
        assertThat(leader.recorder.observed).extracting(Observations::replicaId).containsExactly(follower.exchange.replicaId());
    }

    @Test
    void theLeaderLearnsFromTheFollowersAndAFollowerWithoutZooKeeperKeepsRoutingAndDropsItsShares() throws Exception {
        List<Replica> replicas = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            replicas.add(new Replica("r" + i, zk.getConnectString(), Duration.ofSeconds(2)));
            toClose.add(replicas.get(i - 1));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> replicas.stream().filter(Replica::leads).count() == 1
                && replicas.stream().allMatch(r -> r.exchange().replicas() == 3));
        Replica leader = replicas.stream().filter(Replica::leads).findFirst().orElseThrow();
        Replica follower = replicas.stream().filter(r -> r != leader).findFirst().orElseThrow();
        List<String> keys = IntStream.range(0, 60).mapToObj(i -> "user-" + i).toList();

        // Window 60 over three replicas: a follower shares every 60 / (3 x 4) = 5 of its requests.
        // Paced (one share written before the next is due), none is dropped and each is taken once.
        for (int share = 1; share <= 10; share++) {
            for (int i = 0; i < 5; i++) {
                follower.send(keys.get((share * 5 + i) % 60));
            }
            long expected = share;
            await().atMost(Duration.ofSeconds(10)).until(() -> (Long) leader.balancer.allocationDetails()
                    .get("allocation.observations.taken") == expected);
            // The leader may read a share before its writer hears the write is done: wait for that
            // too, or the next share could find this one still in flight and be dropped.
            await().atMost(Duration.ofSeconds(10)).until(() -> follower.exchange().sharesWritten() == expected);
        }
        assertThat(follower.exchange().sharesDropped()).isZero();
        assertThat(follower.exchange().sharesWritten()).isEqualTo(10);
        assertThat(follower.balancer.allocationDetails()).containsEntry("allocation.observations.shared", 10L)
                .containsEntry("allocation.observations.taken", 0L);
        assertThat(leader.balancer.allocationDetails()).containsEntry("allocation.observations.shared", 0L);

        zk.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> follower.balancer.allocationDetails()
                .get("allocation.store.connected").equals(false));
        long dropped = follower.exchange().sharesDropped();
        long slowest = 0;
        for (int i = 0; i < 100; i++) {
            slowest = Math.max(slowest, follower.send(keys.get(i % 60)));
        }
        // Disconnected, the follower buffers nothing, and a share handed to the exchange is dropped at once.
        assertThat(follower.balancer.allocationDetails()).containsEntry("allocation.observations.shared", 10L);
        follower.exchange().share(observations(follower.exchange().replicaId(), 99));
        assertThat(follower.exchange().sharesDropped()).isEqualTo(dropped + 1);
        assertThat(Duration.ofNanos(slowest)).isLessThan(Duration.ofSeconds(1));
        assertThat(follower.balancer.allocationDetails()).containsEntry("allocation.store.connected", false);
    }
}
