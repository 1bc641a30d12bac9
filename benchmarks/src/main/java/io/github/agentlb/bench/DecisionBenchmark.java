package io.github.agentlb.bench;

import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost of one balancing decision as a Camel user pays it: a new exchange, then
 * {@code balancer.process(exchange, callback)} over synchronous no-op children, for our four
 * strategies and Camel's built-ins in the same harness ({@link BalancerHarness}). {@code direct}
 * (no balancer) is the floor every row shares: the exchange and the callback.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecisionBenchmark {

    @Param({"direct", "rr", "ch", "pid", "avn", "lr",
            "camel-rr", "camel-weighted", "camel-sticky", "camel-failover", "camel-failover-rr"})
    public String strategy;

    @Param({"3", "30", "300"})
    public int agents;

    private BalancerHarness harness;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        harness = new BalancerHarness(strategy, agents);
        Exchange probe = harness.request();
        if (harness.completed != 1 || probe.getException() != null) {
            throw new IllegalStateException(strategy + " did not complete a request synchronously: completed="
                    + harness.completed + " exception=" + probe.getException());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        harness.close();
    }

    @Benchmark
    public Exchange decision() {
        return harness.request();
    }
}
