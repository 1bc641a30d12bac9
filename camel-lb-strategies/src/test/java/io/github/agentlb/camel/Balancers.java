package io.github.agentlb.camel;

import java.util.function.Consumer;

/** Balancers set up in one expression, for fields and arguments. */
final class Balancers {

    private Balancers() {
    }

    /** {@code balancer} after {@code setup} set its knobs. */
    static <T extends AgentLoadBalancerSupport> T with(T balancer, Consumer<T> setup) {
        setup.accept(balancer);
        return balancer;
    }
}
