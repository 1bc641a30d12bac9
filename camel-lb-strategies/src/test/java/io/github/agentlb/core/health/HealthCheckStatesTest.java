package io.github.agentlb.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.HealthCheckStates.Transition;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The thresholds of active health checks as exact steps, and their configuration's checks. */
class HealthCheckStatesTest {

    private final HealthCheckStates states = new HealthCheckStates(ActiveHealthCheck.of("/health")
            .withUnhealthyThreshold(3).withHealthyThreshold(2));

    @Test
    void failuresInARowMarkDownAndPassesInARowMarkUp() {
        states.setAgents(List.of("a", "b"));
        assertThat(states.record("a", false)).isEqualTo(Transition.NONE);
        assertThat(states.record("a", false)).isEqualTo(Transition.NONE);
        assertThat(states.record("a", false)).isEqualTo(Transition.MARKED_DOWN);
        assertThat(states.record("a", false)).isEqualTo(Transition.NONE);
        assertThat(states.down()).containsExactly("a");
        assertThat(states.record("a", true)).isEqualTo(Transition.NONE);
        assertThat(states.record("a", false)).as("a failure resets the passes").isEqualTo(Transition.NONE);
        assertThat(states.record("a", true)).isEqualTo(Transition.NONE);
        assertThat(states.record("a", true)).isEqualTo(Transition.MARKED_UP);
        assertThat(states.isDown("a")).isFalse();
        assertThat(states.isDown("b")).isFalse();
    }

    @Test
    void aPassResetsTheFailuresAndAnAgentStartsUp() {
        states.setAgents(List.of("a"));
        states.record("a", false);
        states.record("a", false);
        states.record("a", true);
        assertThat(states.record("a", false)).isEqualTo(Transition.NONE);
        assertThat(states.record("a", true)).as("up already").isEqualTo(Transition.NONE);
    }

    @Test
    void membersKeepTheirStateNewOnesStartUpAndUnknownOnesChangeNothing() {
        states.setAgents(List.of("a"));
        for (int i = 0; i < 3; i++) {
            states.record("a", false);
        }
        states.setAgents(List.of("a", "b"));
        assertThat(states.down()).containsExactly("a");
        states.setAgents(List.of("b"));
        assertThat(states.down()).isEmpty();
        assertThat(states.record("x", false)).isEqualTo(Transition.NONE);
    }

    @Test
    void theDelayIsTheIntervalPlusASeededDrawBelowTheJitter() {
        ActiveHealthCheck config = ActiveHealthCheck.of("/health");
        Random random = new Random(7);
        for (int i = 0; i < 1000; i++) {
            assertThat(config.nextDelayNanos(random)).isBetween(2_000_000_000L, 2_199_999_999L);
        }
        assertThat(config.withJitter(Duration.ZERO).nextDelayNanos(random)).isEqualTo(2_000_000_000L);
        assertThat(config.nextDelayNanos(new Random(7))).isEqualTo(config.nextDelayNanos(new Random(7)));
    }

    /** An interval near the longest time taken, plus its jitter, never wraps to a negative delay (probes back to back). */
    @Test
    void theDelayOfTheLongestIntervalPlusJitterSaturatesNotWraps() {
        ActiveHealthCheck config = ActiveHealthCheck.of("/health")
                .withInterval(io.github.agentlb.core.Check.MAX_DURATION.minusMillis(1)).withJitter(Duration.ofSeconds(1));
        Random random = new Random(7);
        for (int i = 0; i < 100; i++) {
            assertThat(config.nextDelayNanos(random)).isGreaterThanOrEqualTo(config.interval().toNanos());
        }
    }

    /**
     * A path that is no URI path (a character that must be percent-encoded in one, or a fragment) is
     * refused naming it: such an agent's health address could not be made, so it was never probed,
     * without a word, while the start-up line said the checks ran (an operator's trial:
     * {@code /h|x}, {@code /h{x}}, {@code /a\b}). Percent-encoded, and with a query, it is taken.
     */
    @Test
    void aPathThatIsNoUriPathIsRefusedNamingIt() {
        ActiveHealthCheck on = ActiveHealthCheck.of("/health");
        for (String path : new String[] {"/h|x", "/h{x}", "/a\\b", "/h^", "/h`", "/h\"x", "/h<x>", "/h%zz", "/health#ready"}) {
            assertThatThrownBy(() -> on.withPath(path)).as(path).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("healthCheckPath must be a URI path (and query), characters outside it percent-encoded"
                            + " (%7C for |), was '" + path + "'");
        }
        for (String path : new String[] {"/h%7Cx", "/health?full=1", "/v1/models", "/~agent/health:live", "/a@b!$&'()*+,;="}) {
            assertThat(on.withPath(path).path()).as(path).isEqualTo(path);
        }
    }

    @Test
    void offByDefaultAndEveryFieldCheckedByName() {
        assertThat(ActiveHealthCheck.DISABLED.isEnabled()).isFalse();
        assertThat(ActiveHealthCheck.of("/health").isEnabled()).isTrue();
        ActiveHealthCheck on = ActiveHealthCheck.of("/health");
        assertThatThrownBy(() -> on.withPath("health")).hasMessage(
                "healthCheckPath must start with / and hold printable ASCII only, was 'health'");
        assertThatThrownBy(() -> on.withPath("/a b")).hasMessageContaining("healthCheckPath");
        assertThatThrownBy(() -> on.withExpectedStatus(99)).hasMessage("healthCheckExpectedStatus must be in 100..599, was 99");
        assertThatThrownBy(() -> on.withInterval(Duration.ZERO)).hasMessageContaining("healthCheckInterval must be > 0");
        assertThatThrownBy(() -> on.withJitter(Duration.ofMillis(-1))).hasMessageContaining("healthCheckJitter must be >= 0");
        assertThatThrownBy(() -> on.withTimeout(null)).hasMessageContaining("healthCheckTimeout must be > 0");
        assertThatThrownBy(() -> on.withUnhealthyThreshold(0)).hasMessage("healthCheckUnhealthyThreshold must be >= 1, was 0");
        assertThatThrownBy(() -> on.withHealthyThreshold(0)).hasMessage("healthCheckHealthyThreshold must be >= 1, was 0");
    }
}
