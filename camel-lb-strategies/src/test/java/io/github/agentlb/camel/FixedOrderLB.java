package io.github.agentlb.camel;

import java.util.List;

/** A strategy named {@code fixed} that offers the same agents in the same order for every exchange. */
final class FixedOrderLB extends AgentLoadBalancerSupport {

    FixedOrderLB(String... order) {
        super(TestBalancer.strategy("fixed", state -> exchange -> Selection.of(List.of(order).iterator())));
    }
}
