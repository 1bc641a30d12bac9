package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the queue reads of a state when every agent may be full: the agents open now, the trials
 * due, and when the next one opens by time alone (a rest's end, an ejection's end).
 */
class BalancerStateOpeningsTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);

    @Test
    void openAgentsTrialsDueAndTheNextOpeningFollowRestsAndEjections() {
        RoundRobinLB rr = ScriptedChild.startedAgents(new RoundRobinLB(), CAMEL.get(), clock::get, ScriptedChild::naming,
                "A1", "A2", "A3", "A4");
        BalancerState state = rr.balancerState();
        long now = clock.get();
        assertThat(state.openAgents(now)).isEqualTo(4);
        assertThat(state.trialsDue(now)).isZero();
        assertThat(state.nextOpeningNanos(now)).as("nothing closed").isEqualTo(Long.MAX_VALUE);

        state.slot("A1").rest(now + 5 * SECOND, 429);
        state.slot("A2").rest(now + 3 * SECOND, 429);
        assertThat(state.openAgents(now)).isEqualTo(2);
        assertThat(state.nextOpeningNanos(now)).as("A2's rest ends first").isEqualTo(now + 3 * SECOND);

        assertThat(state.detector.onFailure("A3")).isEqualTo(Duration.ofSeconds(10));
        assertThat(state.openAgents(now)).as("A4 alone").isEqualTo(1);
        assertThat(state.trialsDue(now)).isZero();
        assertThat(state.nextOpeningNanos(now)).isEqualTo(now + 3 * SECOND);
        assertThat(state.nextOpeningNanos(now + 3 * SECOND)).as("a rest ending now is no opening to wait for")
                .isEqualTo(now + 5 * SECOND);
        assertThat(state.openAgents(now + 4 * SECOND)).as("A2 and A4").isEqualTo(2);
        clock.set(now + 6 * SECOND);
        assertThat(state.nextOpeningNanos(clock.get())).as("A3's ejection ends").isEqualTo(now + 10 * SECOND);

        clock.set(now + 11 * SECOND);
        assertThat(state.trialsDue(clock.get())).as("A3's trial").isEqualTo(1);
        assertThat(state.openAgents(clock.get())).as("A1, A2 and A4; A3 only by its trial").isEqualTo(3);
        assertThat(state.nextOpeningNanos(clock.get())).isEqualTo(Long.MAX_VALUE);
    }
}
