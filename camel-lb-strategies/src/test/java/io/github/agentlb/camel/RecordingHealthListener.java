package io.github.agentlb.camel;

import java.time.Duration;
import java.util.List;

/**
 * Adds what a balancer's health listener hears to a list, each line after {@code prefix}:
 * {@code "ejected <agent> <whole seconds> s"} and {@code "readmitted <agent>"}.
 */
record RecordingHealthListener(List<String> events, String prefix) implements HealthListener {

    @Override
    public void agentEjected(String agentId, Duration ejectionTime) {
        events.add(prefix + "ejected " + agentId + " " + ejectionTime.toSeconds() + " s");
    }

    @Override
    public void agentReadmitted(String agentId) {
        events.add(prefix + "readmitted " + agentId);
    }
}
