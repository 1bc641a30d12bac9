package io.github.agentlb.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromptCostsTest {

    @Test
    void aRequestWithoutABodyCostsOneTokenThenTheMeanOfThePromptsSeen() {
        PromptCosts costs = new PromptCosts();
        assertThat(costs.costOf(0)).as("before any prompt").isEqualTo(1.0);
        assertThat(costs.costOf(100)).isEqualTo(100.0);
        assertThat(costs.costOf(300)).isEqualTo(300.0);
        assertThat(costs.costOf(0)).as("mean of 100 and 300").isEqualTo(200.0);
        assertThat(costs.costOf(1)).as("a body of a few bytes costs its tokens").isEqualTo(1.0);
    }

    @Test
    void afterTheWindowTheMeanIsExponentialWithWeightOneHundredth() {
        PromptCosts costs = new PromptCosts();
        for (int i = 0; i < PromptCosts.WINDOW; i++) {
            costs.costOf(100);
        }
        costs.costOf(300);
        assertThat(costs.costOf(0)).isEqualTo(102.0);
    }

    @Test
    void oneHugePromptCountsAtMostFourMeansIntoTheMean() {
        PromptCosts costs = new PromptCosts();
        for (int i = 0; i < PromptCosts.WINDOW; i++) {
            costs.costOf(100);
        }
        assertThat(costs.costOf(250_000)).as("it is charged its own tokens").isEqualTo(250_000.0);
        assertThat(costs.costOf(0)).as("the mean moves by (400 - 100) / 100").isEqualTo(103.0);
    }

    @Test
    void aHugePromptEarlyCountsAtMostFourMeansToo() {
        PromptCosts costs = new PromptCosts();
        for (int i = 0; i < 15; i++) {
            costs.costOf(100);
        }
        costs.costOf(250_000);
        assertThat(costs.costOf(0)).as("(15 x 100 + 400) / 16").isEqualTo(118.75);
    }
}
