package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.run.BalancerLog.Kind;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BalancerLogTest {

    @Test
    void delaysAreMeasuredFromAnInstantToTheFirstMatchingEventAtOrAfterIt() {
        AtomicLong clock = new AtomicLong(100);
        BalancerLog log = new BalancerLog(clock::get);
        log.agentEjected("A1", Duration.ofSeconds(1));
        clock.set(300);
        log.agentReadmitted("A1");
        clock.set(500);
        log.agentEjected("A1", Duration.ofSeconds(2));
        log.agentEjected("A2", Duration.ofSeconds(1));

        assertThat(log.nanosUntil("A1", Kind.EJECTED, 100)).hasValue(0);
        assertThat(log.nanosUntil("A1", Kind.EJECTED, 200)).hasValue(300);
        assertThat(log.nanosUntil("A1", Kind.READMITTED, 301)).isEmpty();
        assertThat(log.count("A1", Kind.EJECTED, 0)).isEqualTo(2);
        assertThat(log.count("A1", Kind.EJECTED, 101)).isEqualTo(1);
        assertThat(log.count("A3", Kind.EJECTED, 0)).isZero();
        assertThat(log.events()).extracting(BalancerLog.Event::ejectionTime)
                .containsExactly(Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(1));
    }
}
