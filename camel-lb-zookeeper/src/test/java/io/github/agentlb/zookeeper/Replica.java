package io.github.agentlb.zookeeper;

import io.github.agentlb.camel.AdaptiveVirtualNodeLB;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.shared.SharedAllocation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * One balancer replica: a CamelContext with {@code direct:in} balanced by {@code avn} over three
 * in-process agents {@code direct:A1..A3}; A1 reports itself busy (CPU 0.9) and the others idle
 * (0.1), so the leader's evaluations move virtual nodes away from A1. Evaluation window 60: the
 * leader of three evaluates every 20 of its own requests.
 */
final class Replica implements AutoCloseable {

    static final List<String> AGENTS = List.of("direct://A1", "direct://A2", "direct://A3");

    final String name;
    final SharedAllocation shared;
    final AdaptiveVirtualNodeLB balancer;
    private final CamelContext context;
    private final ProducerTemplate producer;

    Replica(String name, String connectString, Duration sessionTimeout) throws Exception {
        this.name = name;
        this.shared = ZooKeeperSharedAllocation.builder(connectString, "test-proxy")
                .sessionTimeout(sessionTimeout).connectTimeout(Duration.ofSeconds(1)).build();
        this.balancer = new AdaptiveVirtualNodeLB(shared);
        balancer.setAvnConfig(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(30).evaluationWindow(60).build());
        context = new DefaultCamelContext();
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:in").loadBalance(balancer).to("direct:A1", "direct:A2", "direct:A3");
                from("direct:A1").setHeader(AdaptiveVirtualNodeLB.CPU_HEADER, constant("0.9"))
                        .setHeader(AdaptiveVirtualNodeLB.MEMORY_HEADER, constant("0.9"));
                from("direct:A2").setHeader(AdaptiveVirtualNodeLB.CPU_HEADER, constant("0.1"))
                        .setHeader(AdaptiveVirtualNodeLB.MEMORY_HEADER, constant("0.1"));
                from("direct:A3").setHeader(AdaptiveVirtualNodeLB.CPU_HEADER, constant("0.1"))
                        .setHeader(AdaptiveVirtualNodeLB.MEMORY_HEADER, constant("0.1"));
            }
        });
        context.start();
        producer = context.createProducerTemplate();
    }

    /** Sends one request keyed by {@code user}; returns its duration in ns. */
    long send(String user) {
        long start = System.nanoTime();
        producer.sendBodyAndHeader("direct:in", "x", "user_id", user);
        return System.nanoTime() - start;
    }

    ZooKeeperAllocationExchange exchange() {
        return (ZooKeeperAllocationExchange) shared.exchange();
    }

    long generation() {
        return balancer.allocationGeneration();
    }

    boolean leads() {
        return Boolean.TRUE.equals(balancer.allocationDetails().get("allocation.leader"));
    }

    Map<String, Integer> virtualNodes() {
        return balancer.getVirtualNodesByAgent();
    }

    /** Each key's agent on this replica's ring now. */
    Map<String, String> owners(List<String> keys) {
        HashRing ring = balancer.ring();
        Map<String, String> owners = new TreeMap<>();
        keys.forEach(k -> owners.put(k, ring.agentAt(ring.hash(k))));
        return owners;
    }

    @Override
    public void close() {
        context.stop();
    }

    @Override
    public String toString() {
        return name + " gen=" + generation() + " leader=" + leads() + " " + virtualNodes();
    }
}
