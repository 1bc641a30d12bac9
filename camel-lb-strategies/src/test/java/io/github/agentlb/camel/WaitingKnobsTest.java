package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.OutlierEjection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Knobs that break a relation with another knob wait before the start, are applied in the order
 * set, and are refused at once after it; values out of range are refused at once.
 */
class WaitingKnobsTest {

    private final WaitingKnobs waiting = new WaitingKnobs();
    private final BalancerConfig config = BalancerConfig.DEFAULT;

    @Test
    void aKnobThatBreaksARelationWaitsAndShowsUntilTheOneThatMendsItThenTheConfigurationShows() {
        assertThat(waiting.apply(config, "maxEjectionTime", Duration.ofSeconds(5),
                d -> d.ejection().maxEjectionTime(Duration.ofSeconds(5)), true)).as("5 s is below the base 10 s").isNull();
        assertThat(waiting.value("maxEjectionTime", Duration.ofSeconds(300))).isEqualTo(Duration.ofSeconds(5));
        assertThat(waiting.value("baseEjectionTime", Duration.ofSeconds(10))).as("another knob").isEqualTo(Duration.ofSeconds(10));

        BalancerConfig next = waiting.apply(config, "baseEjectionTime", Duration.ofSeconds(2),
                d -> d.ejection().baseEjectionTime(Duration.ofSeconds(2)), true);

        assertThat(next.ejection()).isEqualTo(OutlierEjection.custom().baseEjectionTime(Duration.ofSeconds(2))
                .maxEjectionTime(Duration.ofSeconds(5)).build());
        assertThat(waiting.value("maxEjectionTime", Duration.ofSeconds(300))).as("forgotten once applied")
                .isEqualTo(Duration.ofSeconds(300));
        assertThat(waiting.applyAll(next)).isSameAs(next);
    }

    /**
     * {@code defaultRest} above the default {@code maxRest} (1 m) waits for the {@code maxRest} that
     * mends it, in either order, as YAML may set them; out of range is refused at once, and a relation
     * still broken at the start is refused naming both.
     */
    @Test
    void theRestsWaitForEachOtherInEitherOrder() {
        RoundRobinLB lb = new RoundRobinLB();
        lb.setDefaultRest("2m");
        lb.setMaxRest("5m");
        assertThat(lb.getDefaultRest()).isEqualTo(Duration.ofMinutes(2));
        assertThat(lb.getMaxRest()).isEqualTo(Duration.ofMinutes(5));

        RoundRobinLB other = new RoundRobinLB();
        other.setMaxRest("5m");
        other.setDefaultRest("2m");
        assertThat(other.getDefaultRest()).isEqualTo(Duration.ofMinutes(2));

        RoundRobinLB broken = new RoundRobinLB();
        broken.setDefaultRest("2m");
        assertThatThrownBy(() -> broken.setDefaultRest("-1s")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(broken::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("defaultRest must be <= maxRest (PT1M), was PT2M");
    }

    @Test
    void waitingKnobsApplyInTheOrderSetAndASecondSetReplacesTheFirst() {
        waiting.apply(config, "maxEjectionTime", 1, d -> d.ejection().maxEjectionTime(Duration.ofSeconds(1)), true);
        waiting.apply(config, "consecutiveErrorAnswers", 2, d -> d.ejection().maxEjectionTime(Duration.ofSeconds(2)), true);
        waiting.apply(config, "maxEjectionTime", 3, d -> d.ejection().maxEjectionTime(Duration.ofSeconds(3)), true);
        assertThat(waiting.value("maxEjectionTime", 0)).isEqualTo(3);

        BalancerConfig next = waiting.apply(config, "baseEjectionTime", 1, d -> d.ejection().baseEjectionTime(Duration.ofSeconds(1)), true);

        assertThat(next.ejection().maxEjectionTime()).as("set last").isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void atTheStartAKnobWhoseRelationNowHoldsIsAppliedAndForgotten() {
        waiting.apply(config, "maxEjectionTime", Duration.ofSeconds(5), d -> d.ejection().maxEjectionTime(Duration.ofSeconds(5)), true);
        BalancerConfig mended = new ConfigDraft(config).ejection(OutlierEjection.custom().baseEjectionTime(Duration.ofSeconds(1))
                .build()).build();

        BalancerConfig started = waiting.applyAll(mended);

        assertThat(started.ejection().maxEjectionTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(started.ejection().baseEjectionTime()).isEqualTo(Duration.ofSeconds(1));
        assertThat(waiting.value("maxEjectionTime", Duration.ZERO)).as("forgotten").isEqualTo(Duration.ZERO);
    }

    @Test
    void aStartThatFailsKeepsTheKnobsWaitingForTheNextStart() {
        waiting.apply(config, "maxEjectionTime", Duration.ofSeconds(5), d -> d.ejection().maxEjectionTime(Duration.ofSeconds(5)), true);

        assertThatThrownBy(() -> waiting.applyAll(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT10S), was PT5S");
        assertThat(waiting.value("maxEjectionTime", Duration.ZERO)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void onceStartedAKnobThatBreaksARelationIsRefusedAtOnceAndNothingWaits() {
        assertThatThrownBy(() -> waiting.apply(config, "maxEjectionTime", Duration.ofSeconds(5),
                d -> d.ejection().maxEjectionTime(Duration.ofSeconds(5)), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT10S), was PT5S");
        assertThat(waiting.value("maxEjectionTime", Duration.ZERO)).isEqualTo(Duration.ZERO);
    }

    @Test
    void aValueOutOfRangeIsRefusedAtOnceAlsoBeforeTheStart() {
        assertThatThrownBy(() -> waiting.apply(config, "consecutiveFailures", 0, d -> d.ejection().consecutiveFailures(0), true))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("consecutiveFailures must be >= 1, was 0");
        assertThat(waiting.value("consecutiveFailures", 1)).isEqualTo(1);
    }
}
