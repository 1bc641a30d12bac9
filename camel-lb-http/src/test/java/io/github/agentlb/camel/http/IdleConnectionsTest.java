package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FakeScheduler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One event loop's idle connections to an agent: the newest taken first, each closed once idle for
 * the pool idle timeout, by one sweep at a time on the loop (a fake scheduler and clock here).
 */
class IdleConnectionsTest {

    private static final long MINUTE = TimeUnit.SECONDS.toNanos(60);
    private final FakeScheduler loop = new FakeScheduler(1_000_000_000L);

    private IdleConnections pool(int capacity, long timeoutNanos) {
        return new IdleConnections(loop, loop::nanoTime, capacity, timeoutNanos);
    }

    @Test
    void aConnectionIdleForTheTimeoutIsClosedAndLeavesThePool() {
        IdleConnections pool = pool(64, MINUTE);
        EmbeddedChannel a = new EmbeddedChannel();

        assertThat(pool.offer(a)).isTrue();
        loop.advance(Duration.ofMillis(59_999));
        assertThat(a.isOpen()).as("idle 59.999 s").isTrue();
        loop.advance(Duration.ofMillis(1));

        assertThat(a.isOpen()).as("idle 60 s").isFalse();
        assertThat(pool.size()).isZero();
        assertThat(pool.take()).isNull();
        assertThat(loop.pendingCount()).as("no sweep while the pool is empty").isZero();
    }

    @Test
    void theNewestIsTakenFirstAndEachClosesOnItsOwnDeadlineWithOneSweepPending() {
        IdleConnections pool = pool(64, MINUTE);
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        pool.offer(a);
        loop.advance(Duration.ofSeconds(10));
        pool.offer(b);
        assertThat(loop.pendingDelays()).containsExactly(Duration.ofSeconds(50));

        loop.advance(Duration.ofSeconds(10));
        assertThat(pool.take()).isSameAs(b);
        pool.offer(b); // idle again from 20 s
        loop.advance(Duration.ofSeconds(40));

        assertThat(a.isOpen()).as("idle since 0 s, now 60 s").isFalse();
        assertThat(b.isOpen()).as("idle since 20 s").isTrue();
        assertThat(loop.pendingDelays()).containsExactly(Duration.ofSeconds(20));
        loop.advance(Duration.ofSeconds(20));
        assertThat(b.isOpen()).isFalse();
        assertThat(loop.pendingCount()).isZero();
    }

    @Test
    void aConnectionTakenForACallIsNotClosedBySweeps() {
        IdleConnections pool = pool(64, MINUTE);
        EmbeddedChannel a = new EmbeddedChannel();
        pool.offer(a);
        loop.advance(Duration.ofSeconds(30));

        assertThat(pool.take()).isSameAs(a);
        loop.advance(Duration.ofMinutes(5));

        assertThat(a.isOpen()).isTrue();
        assertThat(loop.pendingCount()).isZero();
    }

    @Test
    void aClosedConnectionIsSkippedWhenTakenAndRemovedWhenItsCloseIsSeen() {
        IdleConnections pool = pool(64, MINUTE);
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        EmbeddedChannel c = new EmbeddedChannel();
        pool.offer(a);
        pool.offer(b);
        pool.offer(c);

        c.close();
        assertThat(pool.take()).as("c closed: the next newest").isSameAs(b);
        a.close();
        pool.remove(a);

        assertThat(pool.size()).isZero();
    }

    @Test
    void aFullPoolRefusesTheConnection() {
        IdleConnections pool = pool(1, MINUTE);

        assertThat(pool.offer(new EmbeddedChannel())).isTrue();
        assertThat(pool.offer(new EmbeddedChannel())).isFalse();
        assertThat(pool.size()).isEqualTo(1);
    }

    @Test
    void aTimeoutOfZeroKeepsIdleConnectionsWithNoSweep() {
        IdleConnections pool = pool(64, 0);
        EmbeddedChannel a = new EmbeddedChannel();

        pool.offer(a);
        loop.advance(Duration.ofDays(1));

        assertThat(a.isOpen()).isTrue();
        assertThat(loop.pendingCount()).isZero();
    }

    @Test
    void closeIdleClosesEveryIdleConnectionOnTheLoopAndCancelsTheSweep() {
        IdleConnections pool = pool(64, MINUTE);
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        EmbeddedChannel oldest = new EmbeddedChannel();
        pool.offer(oldest);
        pool.offer(a);
        pool.offer(b);
        assertThat(pool.take()).isSameAs(b);

        pool.closeIdle();
        assertThat(a.isOpen()).as("handed to the loop, not run on the caller's thread").isTrue();
        loop.runDue();

        assertThat(a.isOpen()).isFalse();
        assertThat(oldest.isOpen()).isFalse();
        assertThat(b.isOpen()).as("in a call").isTrue();
        assertThat(pool.size()).isZero();
        assertThat(loop.pendingCount()).isZero();
        pool.offer(b);
        assertThat(loop.pendingDelays()).as("a later connection is swept again").containsExactly(Duration.ofSeconds(60));
    }
}
