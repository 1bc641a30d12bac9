package io.github.agentlb.camel;

import org.apache.camel.Exchange;

/**
 * A strategy's decision procedure for one {@link BalancerState}: built by the strategy when the
 * state changes (a ring, a rotation, a weighted schedule, captured whole), then asked once per
 * exchange. Never sees another state's agents. Must not block; thread-safe.
 */
@FunctionalInterface
public interface Picker {

    /** @return the agents to try for {@code exchange}, the choice first */
    Selection select(Exchange exchange);
}
