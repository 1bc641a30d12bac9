package io.github.agentlb.camel;

import java.util.List;
import org.apache.camel.Exchange;

/** A strategy named {@code fixed} that offers the same agents in the same order for every exchange. */
final class FixedOrderLB extends AgentLoadBalancerSupport {

    private final List<String> order;

    FixedOrderLB(String... order) {
        this.order = List.of(order);
    }

    @Override
    public String strategyName() {
        return "fixed";
    }

    @Override
    protected Selection select(Exchange exchange, List<String> agentIds) {
        return Selection.of(order.iterator());
    }
}
