package io.github.agentlb.camel;

import java.util.function.Consumer;

/**
 * A balancer's {@link BalancerConfig}, changed one knob at a time: the base of the knob interfaces
 * ({@link FailureSettings}, {@link AgentSettings}, {@link KeySettings}, ...), whose JavaBean setters
 * YAML {@code beans:}, {@code camel.beans.*} properties and XML bind, and whose getters show the
 * value set.
 *
 * <h2>When a knob takes effect</h2>
 * At once, before or after the balancer starts: its balancer's one writer applies it to the
 * configuration in use and publishes the result as one new state (under one lock; requests never
 * take it). A value out of its range is refused at once with an {@link IllegalArgumentException}
 * naming the knob and the value, and changes nothing. A value that breaks a relation with another
 * knob (for example {@code maxEjectionTime} below {@code baseEjectionTime}, or {@code avn}'s
 * weights that must sum to 1) is refused at once once the balancer has started; before, it waits
 * for the knobs that make the configuration whole again, set in any order (as a YAML bean's
 * properties are), and the start fails naming it if none does ({@link AgentLoadBalancerSupport#checkSettings()}
 * checks the same earlier). Thread-safe.
 */
public interface Configurable {

    /** @return the configuration in use: what requests read now */
    BalancerConfig balancerConfig();

    /**
     * Sets one knob, as described in the class comment.
     *
     * @param knob   the knob's name as users set it (its JavaBean property), e.g. {@code baseEjectionTime}
     * @param value  the value set, which {@link #configured} shows while it waits
     * @param change applies the value to a draft of the configuration in use
     * @throws IllegalArgumentException naming the knob and the value when it is refused (nothing changes then)
     */
    void configure(String knob, Object value, Consumer<ConfigDraft> change);

    /**
     * @param current the knob's value in the configuration in use
     * @return the value of {@code knob} set but waiting for others (see the class comment), else {@code current}
     */
    <T> T configured(String knob, T current);

    /**
     * @return whether {@code knob} was set by name on this balancer (its setter called and not
     *     refused), before or after the start: a feature switched off by name stays off whichever of
     *     its value knobs is set after (YAML and properties bind a bean's knobs by name, not in the
     *     file's order)
     */
    boolean wasSet(String knob);
}
