package io.github.agentlb.camel;

import org.apache.camel.CamelContext;

/** What a started {@link Strategy} may use of its balancer. Thread-safe. */
public interface StrategyContext {

    /** @return the balancer's clock, ns (the one its ejections, rests and reports use) */
    long nanoTime();

    /**
     * Publishes a new state with the same agents and a new picker from {@link Strategy#newPicker}:
     * for a strategy that learned a new ring or schedule (a control step, a reallocation).
     */
    void pickerChanged();

    /** @return the balancer's CamelContext, for threads and stores */
    CamelContext camelContext();

    /** @return the balancer (for Camel's executor service manager, which names threads by their source) */
    Object source();

    /** @return a name for the balancer's threads: its route's id, else its own id, else {@code balancer} */
    String name();
}
