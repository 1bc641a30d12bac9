package io.github.agentlb.core.pid;

/**
 * One agent's part of {@link PidWeights}: its controller, its utilization signal, its weight and
 * the utilization its last control step used. The weight and utilization are read and written
 * under the {@code PidWeights} lock only; the signal is lock-free ({@link UtilizationSignal}).
 */
final class AgentState {
    final PidController controller;
    final UtilizationSignal signal = new UtilizationSignal();
    double weight;
    double utilization = Double.NaN;

    AgentState(PidController controller, double weight) {
        this.controller = controller;
        this.weight = weight;
    }
}
