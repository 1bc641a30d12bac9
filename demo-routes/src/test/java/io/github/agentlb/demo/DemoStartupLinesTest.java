package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.hedge.HedgePolicy;
import io.github.agentlb.core.retry.RetryBackoff;
import io.github.agentlb.core.retry.RetryBudget;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The start-up lines that say what the failovers and hedges run with, whether a knob was set or not. */
class DemoStartupLinesTest {

    @Test
    void theRetryBudgetAndBackoffAsTheyRun() {
        assertThat(DemoMain.retries(RetryBudget.DEFAULT, RetryBackoff.DISABLED))
                .isEqualTo("failovers in flight at most 0.2 x the requests in flight, or 3; no backoff");
        assertThat(DemoMain.retries(RetryBudget.UNLIMITED, RetryBackoff.ENVOY))
                .isEqualTo("off; backoff with full jitter below 25 ms, doubling up to 250 ms");
    }

    @Test
    void hedgingAsItRuns() {
        assertThat(DemoMain.hedging(HedgePolicy.DISABLED)).isEqualTo("off");
        assertThat(DemoMain.hedging(HedgePolicy.DISABLED.withEnabled(true))).isEqualTo("an idempotent request "
                + "without an answer head after the p97 of recent first-byte times (1000 ms until enough are known) "
                + "also goes to another agent, at most 1 hedge per request");
        assertThat(DemoMain.hedging(new HedgePolicy(true, Duration.ofMillis(300), 0, 2))).isEqualTo("an idempotent "
                + "request without an answer head after 300 ms also goes to another agent, at most 2 hedges per request");
        assertThat(DemoMain.hedging(new HedgePolicy(true, Duration.ofMillis(300), 99.5, 1))).contains("after the p99.5 of");
    }
}
