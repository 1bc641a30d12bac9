package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.Check;
import io.github.agentlb.demo.ProxySettings;
import io.github.agentlb.demo.Strategies;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One balancer set-up a scenario runs: a strategy, or a strategy with settings named after it
 * ({@code ch-bounded}), and the proxy replicas over the same agents. Immutable.
 *
 * @param label    the name in tables, charts and file names, e.g. {@code ch-bounded}
 * @param strategy the demo proxy's strategy name ({@code rr}, {@code ch}, ...)
 * @param balancer makes a new, unstarted balancer of this set-up (once per proxy)
 * @param replicas proxies over the same agents, each with its own balancer, >= 1
 */
public record Variant(String label, String strategy, Supplier<? extends AgentLoadBalancerSupport> balancer,
                      int replicas) {

    public Variant {
        Check.atLeast("replicas", replicas, 1);
    }

    /** {@code strategy} with what {@code configure} sets on each new balancer, under {@code label}. */
    public static Variant of(String label, String strategy, Consumer<AgentLoadBalancerSupport> configure,
                             int replicas) {
        return new Variant(label, strategy, () -> {
            AgentLoadBalancerSupport balancer = Strategies.create(strategy);
            configure.accept(balancer);
            return balancer;
        }, replicas);
    }

    /**
     * Set-ups of rr with the demo proxy's settings ({@link ProxySettings}), one per label, each then as {@code configure}
     * (its label, a new balancer) sets it, over one proxy; none when {@code strategies} has no rr.
     */
    static List<Variant> demoRoundRobin(List<String> strategies, List<String> labels,
                                        BiConsumer<String, AgentLoadBalancerSupport> configure) {
        return !strategies.contains(Strategies.ROUND_ROBIN) ? List.of() : labels.stream().map(label -> of(label,
                Strategies.ROUND_ROBIN, b -> configure.accept(label, new ProxySettings().configure(b)), 1)).toList();
    }

    /** This set-up over {@code n} replicas, labelled {@code <label> x<n>}. */
    public Variant withReplicas(int n) {
        return new Variant(label + " x" + n, strategy, balancer, n);
    }
}
