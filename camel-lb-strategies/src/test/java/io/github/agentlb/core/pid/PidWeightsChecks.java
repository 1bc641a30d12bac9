package io.github.agentlb.core.pid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

/** Assertions on a {@link PidWeights} that more than one test class makes. */
final class PidWeightsChecks {

    private PidWeightsChecks() {
    }

    /** Asserts that {@code action} leaves the weights and utilizations as they were and the schedule the same one. */
    static void assertChangesNothing(PidWeights balancer, Runnable action) {
        Map<String, Double> weights = balancer.weights();
        Map<String, Double> utilizations = balancer.utilizations();
        Object schedule = balancer.schedule();

        action.run();

        assertThat(balancer.weights()).isEqualTo(weights);
        assertThat(balancer.utilizations()).isEqualTo(utilizations);
        assertThat(balancer.schedule()).isSameAs(schedule);
    }
}
