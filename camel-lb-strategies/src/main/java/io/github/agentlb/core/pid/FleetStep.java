package io.github.agentlb.core.pid;

/**
 * One control step of the whole fleet, as {@link PidWeights} describes it: each agent's process
 * variable from its {@link UtilizationSignal}, the setpoint their mean, each agent with a signal
 * stepped by its controller ({@code w * (1 + out)}), each stale agent reset to the mean of the
 * updated weights, then all normalized to mean 1 within the clamp ({@link WeightNormalization}).
 * Called under the {@code PidWeights} lock; O(n) plus the normalization, n = agents.
 */
final class FleetStep {

    private FleetStep() {
    }

    /**
     * Steps every agent's weight and utilization in place.
     *
     * @param states    the agents, in a fixed order
     * @param now       the clock's time, ns
     * @param stepNanos the time since the previous step, ns, > 0
     * @return the setpoint (mean utilization of the agents with a signal), NaN if none had one
     */
    static double step(AgentState[] states, long now, long stepNanos, PidWeightsConfig config) {
        double dt = stepNanos / 1e9;
        long expiryNanos = config.reportExpiry().toNanos();
        int n = states.length;
        double[] pv = new double[n];
        double pvSum = 0;
        int withSignal = 0;
        for (int i = 0; i < n; i++) {
            pv[i] = states[i].signal.processVariable(now, stepNanos, expiryNanos, config.nominalCapacity());
            if (!Double.isNaN(pv[i])) {
                pvSum += pv[i];
                withSignal++;
            }
        }
        double setpoint = withSignal == 0 ? Double.NaN : pvSum / withSignal;
        double[] w = new double[n];
        double updatedSum = 0;
        for (int i = 0; i < n; i++) {
            AgentState s = states[i];
            s.utilization = pv[i];
            if (!Double.isNaN(pv[i])) {
                w[i] = s.weight * (1 + s.controller.update(setpoint, pv[i], dt));
                updatedSum += w[i];
            }
        }
        // The mean of the updated weights, so that a stale agent sits exactly at the mean
        // once the weights are normalized.
        double staleWeight = withSignal == 0 ? 1.0 : updatedSum / withSignal;
        for (int i = 0; i < n; i++) {
            if (Double.isNaN(pv[i])) {
                states[i].controller.reset();
                w[i] = staleWeight;
            }
        }
        WeightNormalization.normalize(w, config.minWeight(), config.maxWeight());
        for (int i = 0; i < n; i++) {
            states[i].weight = w[i];
        }
        return setpoint;
    }
}
