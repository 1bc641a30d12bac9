package io.github.agentlb.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The retry budget's arithmetic (Envoy's: 20% of requests in flight, at least 3) and its counts. */
class RetryBudgetTest {

    @Test
    void theRetriesAllowedAreTheShareOfRequestsInFlightButAtLeastTheMinimum() {
        assertThat(RetryBudget.DEFAULT.allowed(0)).isEqualTo(3);
        assertThat(RetryBudget.DEFAULT.allowed(19)).isEqualTo(3);
        assertThat(RetryBudget.DEFAULT.allowed(20)).isEqualTo(4);
        assertThat(RetryBudget.DEFAULT.allowed(100)).isEqualTo(20);
        assertThat(RetryBudget.UNLIMITED.allowed(0)).isEqualTo(Long.MAX_VALUE);
        assertThat(RetryBudget.DEFAULT.withShare(0.5).withMinRetries(0).allowed(7)).isEqualTo(3);
    }

    @Test
    void retriesStartWhileUnderTheBudgetAndEachRefusalIsCounted() {
        RetriesInFlight counts = new RetriesInFlight();
        RetryBudget budget = RetryBudget.DEFAULT.withMinRetries(1).withShare(0.5);
        for (int i = 0; i < 4; i++) {
            counts.requestStarted();
        }
        assertThat(counts.tryStartRetry(budget)).isTrue();
        assertThat(counts.tryStartRetry(budget)).isTrue();
        assertThat(counts.tryStartRetry(budget)).as("2 of 4 in flight").isFalse();
        counts.retryEnded();
        assertThat(counts.tryStartRetry(budget)).isTrue();
        assertThat(counts.retriesStarted()).isEqualTo(3);
        assertThat(counts.budgetExhausted()).isEqualTo(1);
        assertThat(counts.retries()).isEqualTo(2);
        assertThat(counts.requests()).isEqualTo(4);
    }

    @Test
    void badValuesAreRefusedNamingTheField() {
        assertThatThrownBy(() -> RetryBudget.DEFAULT.withShare(1.5)).hasMessage("retryBudgetShare must be in 0..1, was 1.5");
        assertThatThrownBy(() -> RetryBudget.DEFAULT.withMinRetries(-1)).hasMessage("retryBudgetMinRetries must be >= 0, was -1");
    }
}
