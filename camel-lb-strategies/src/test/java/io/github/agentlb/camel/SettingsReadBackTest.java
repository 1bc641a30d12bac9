package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hedge.HedgePolicy;
import io.github.agentlb.core.retry.RetryBackoff;
import io.github.agentlb.core.retry.RetryBudget;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Settings set whole or by one knob read back as set, for hedging, the retry budget, backoff and sessions. */
class SettingsReadBackTest {

    private final RoundRobinLB lb = new RoundRobinLB();

    @Test
    void hedgingSetWholeOrTurnedOnReadsBack() {
        assertThat(lb.isHedgingEnabled()).isFalse();
        lb.setHedgingEnabled(true);
        assertThat(lb.isHedgingEnabled()).isTrue();

        HedgePolicy policy = HedgePolicy.DISABLED.withDelay(Duration.ofMillis(40)).withMaxHedges(2);
        lb.setHedging(policy);

        assertThat(lb.getHedging()).isEqualTo(policy);
        assertThatThrownBy(() -> lb.setHedging(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theRetryBudgetAndTheBackoffSetWholeOrByTheirSwitchReadBack() {
        assertThat(lb.isRetryBudgetEnabled()).isTrue();
        lb.setRetryBudgetEnabled(false);
        assertThat(lb.isRetryBudgetEnabled()).isFalse();
        RetryBudget budget = RetryBudget.DEFAULT.withShare(0.5).withMinRetries(7);
        lb.setRetryBudget(budget);
        assertThat(lb.getRetryBudget()).isEqualTo(budget);

        assertThat(lb.isRetryBackoffEnabled()).isFalse();
        lb.setRetryBackoffEnabled(true);
        assertThat(lb.isRetryBackoffEnabled()).isTrue();
        RetryBackoff backoff = RetryBackoff.ENVOY.withSeed(9);
        lb.setRetryBackoff(backoff);
        assertThat(lb.getRetryBackoff()).isEqualTo(backoff);
    }

    @Test
    void a2aTaskSessionsTurnedOnReadBack() {
        assertThat(lb.isSessionA2aTasks()).isFalse();
        lb.setSessionA2aTasks(true);
        assertThat(lb.isSessionA2aTasks()).isTrue();
    }
}
