package io.github.agentlb.loadgen.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FleetTriggerTest {

    private final AtomicLong clock = new AtomicLong();
    private final List<String> calls = new ArrayList<>();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private int started;

    /** Records each call with the request count it came at; each call takes 7 ns on the clock. */
    private final FleetTrigger.Actions actions = new FleetTrigger.Actions() {
        @Override
        public void join() {
            calls.add("join at " + started);
            clock.addAndGet(7);
        }

        @Override
        public CompletableFuture<Void> drain() {
            calls.add("drain at " + started);
            clock.addAndGet(7);
            return drained;
        }

        @Override
        public void comeBack() {
            calls.add("return at " + started);
            clock.addAndGet(7);
        }
    };

    private void start(FleetTrigger trigger, int from, int to) {
        for (started = from; started <= to; started++) {
            clock.set(started * 1_000L);
            trigger.accept(started);
        }
    }

    @Test
    void eachChangeIsMadeOnceJustBeforeItsRequestAndStampedAroundTheCall() {
        FleetTrigger trigger = new FleetTrigger(1200, actions, clock::get);
        start(trigger, 1, 1200);
        assertThat(calls).containsExactly("join at 301", "drain at 601", "return at 901");
        assertThat(trigger.changes().get(FleetPhase.JOINED))
                .isEqualTo(new FleetTrigger.Change(FleetPhase.JOINED, 301_000L, 301_007L));
        assertThat(trigger.changes().get(FleetPhase.RETURNED))
                .isEqualTo(new FleetTrigger.Change(FleetPhase.RETURNED, 901_000L, 901_007L));
        assertThat(trigger.changes()).doesNotContainKey(FleetPhase.BEFORE);
    }

    @Test
    void theDrainedAgentLeavesWhenItsDrainCompletes() {
        FleetTrigger trigger = new FleetTrigger(1200, actions, clock::get);
        start(trigger, 1, 700);
        assertThat(trigger.leftNanos()).isNull();
        clock.set(650_500L);
        drained.complete(null);
        assertThat(trigger.leftNanos()).isEqualTo(650_500L);
    }

    @Test
    void aRunThatEndsBeforeEveryChangeIsAnError() {
        FleetTrigger trigger = new FleetTrigger(1200, actions, clock::get);
        start(trigger, 1, 700);
        assertThatThrownBy(trigger::changes).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the run ended before every change was made");
    }

    @Test
    void aRejectedChangeIsRethrownLaterNotIntoTheLoad() {
        FleetTrigger trigger = new FleetTrigger(8, new FleetTrigger.Actions() {
            @Override
            public void join() {
                throw new IllegalArgumentException("agent 'A4' is already a member");
            }

            @Override
            public CompletableFuture<Void> drain() {
                return drained;
            }

            @Override
            public void comeBack() {
            }
        }, clock::get);
        start(trigger, 1, 8);
        assertThatThrownBy(trigger::changes).hasMessage("agent 'A4' is already a member");
    }
}
