package io.github.agentlb.camel;

import java.util.function.Function;

/** A balancer over a strategy written in a test. */
final class TestBalancer extends AgentLoadBalancerSupport {

    TestBalancer(Strategy strategy) {
        super(strategy);
    }

    /** A strategy named {@code name} whose pickers {@code pickers} makes from each state. */
    static Strategy strategy(String name, Function<BalancerState, Picker> pickers) {
        return new Strategy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Picker newPicker(BalancerState state) {
                return pickers.apply(state);
            }
        };
    }

    /** A balancer whose strategy, named {@code name}, picks with {@code picker} in every state. */
    static TestBalancer picking(String name, Picker picker) {
        return new TestBalancer(strategy(name, state -> picker));
    }
}
