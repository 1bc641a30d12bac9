package io.github.agentlb.bench;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.LeastRequestLB;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.camel.RoundRobinLB;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.loadbalancer.FailOverLoadBalancer;
import org.apache.camel.processor.loadbalancer.LoadBalancer;
import org.apache.camel.processor.loadbalancer.RoundRobinLoadBalancer;
import org.apache.camel.processor.loadbalancer.StickyLoadBalancer;
import org.apache.camel.processor.loadbalancer.WeightedRoundRobinLoadBalancer;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.builder.ExpressionBuilder;
import org.apache.camel.support.service.ServiceHelper;

/**
 * One balancer, ours or Camel's, over {@code agents} synchronous no-op children ({@link NoOpAgent})
 * in a started CamelContext, driven exactly as a route drives it: a new exchange per request, with
 * the key header set, then {@code balancer.process(exchange, callback)}. Not thread-safe: one per
 * benchmark thread.
 *
 * <p>Names: ours {@code rr}, {@code ch}, {@code pid}, {@code avn}; Camel's {@code camel-rr}
 * ({@link RoundRobinLoadBalancer}), {@code camel-weighted} ({@link WeightedRoundRobinLoadBalancer},
 * all ratios 1), {@code camel-sticky} ({@link StickyLoadBalancer} on the same {@code user_id}
 * header), {@code camel-failover} ({@link FailOverLoadBalancer}, defaults: always the first child
 * while it works), {@code camel-failover-rr} (the same with round-robin, the built-in closest to
 * our failover semantics); and {@code direct}: no balancer, the first child called directly, the
 * cost of the exchange and the callback alone.
 */
final class BalancerHarness implements AutoCloseable {

    static final String KEY_HEADER = "user_id";
    /** Keys cycled through, a power of two. */
    private static final int KEYS = 1024;

    private final CamelContext context;
    private final AsyncProcessor balancer;
    private final AsyncProcessor[] children;
    private final String[] keys = new String[KEYS];
    private final AsyncCallback callback = this::done;
    private int next;
    long completed;

    BalancerHarness(String strategy, int agents) throws Exception {
        context = new DefaultCamelContext();
        context.start();
        children = NoOpAgent.fleet(agents);
        balancer = create(strategy.toLowerCase(Locale.ROOT), agents);
        if (balancer instanceof CamelContextAware aware) {
            aware.setCamelContext(context);
        }
        if (balancer instanceof LoadBalancer lb) {
            for (AsyncProcessor child : children) {
                lb.addProcessor(child);
            }
        }
        ServiceHelper.startService(balancer);
        for (int i = 0; i < KEYS; i++) {
            keys[i] = Integer.toString(100_000 + i * 7919);
        }
    }

    private AsyncProcessor create(String strategy, int agents) {
        Expression key = ExpressionBuilder.headerExpression(KEY_HEADER);
        return switch (strategy) {
            case "rr" -> new RoundRobinLB();
            case "ch" -> new ConsistentHashLB();
            case "pid" -> new PidWeightedLB();
            case "lr" -> new LeastRequestLB();
            // The default total of 150 virtual nodes is 50 per agent at 3 agents; keep 50 per agent.
            case "avn" -> {
                AdaptiveVirtualNodeLB avn = new AdaptiveVirtualNodeLB();
                avn.setTotalVirtualNodes(50 * agents);
                yield avn;
            }
            case "camel-rr" -> new RoundRobinLoadBalancer();
            case "camel-weighted" -> new WeightedRoundRobinLoadBalancer(ones(agents));
            case "camel-sticky" -> new StickyLoadBalancer(key);
            case "camel-failover" -> new FailOverLoadBalancer();
            case "camel-failover-rr" -> {
                FailOverLoadBalancer failover = new FailOverLoadBalancer();
                failover.setRoundRobin(true);
                yield failover;
            }
            case "direct" -> children[0];
            default -> throw new IllegalArgumentException("unknown strategy '" + strategy + "'");
        };
    }

    private static List<Integer> ones(int n) {
        List<Integer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(1);
        }
        return out;
    }

    /** One request: a new exchange keyed by the next key, through the balancer. */
    Exchange request() {
        Exchange exchange = new DefaultExchange(context);
        exchange.getIn().setHeader(KEY_HEADER, keys[next++ & (KEYS - 1)]);
        balancer.process(exchange, callback);
        return exchange;
    }

    private void done(boolean doneSync) {
        completed++;
    }

    /** Calls per child, in child order. */
    long[] childCalls() {
        long[] out = new long[children.length];
        for (int i = 0; i < children.length; i++) {
            out[i] = ((NoOpAgent) children[i]).calls;
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        ServiceHelper.stopService(balancer);
        context.close();
    }
}
