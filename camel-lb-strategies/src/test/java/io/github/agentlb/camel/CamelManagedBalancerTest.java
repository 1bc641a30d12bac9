package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.camel.CamelContext;
import org.junit.jupiter.api.Test;

/** Threads from Camel's executor service manager, the trace label and JMX attributes. */
class CamelManagedBalancerTest {

    private static List<Thread> threadsNamed(String part) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().contains(part)).toList();
    }

    @Test
    void eachPidBalancerHasANamedCamelThreadThatEndsWithItsRoute() throws Exception {
        PidWeightedLB first = new PidWeightedLB();
        PidWeightedLB second = new PidWeightedLB();
        try (CamelContext context = CamelContexts.started(rb -> {
            rb.from("direct:one").routeId("orders").loadBalance(first).to("direct:a", "direct:b");
            rb.from("direct:two").routeId("billing").loadBalance(second).to("direct:a", "direct:b");
        })) {
            assertThat(threadsNamed("agentlb-pid-orders")).hasSize(1).allMatch(t -> t.getName().startsWith("Camel ("));
            assertThat(threadsNamed("agentlb-pid-billing")).hasSize(1);

            context.getRouteController().stopRoute("orders");
            for (Thread thread : threadsNamed("agentlb-pid-orders")) {
                thread.join(2000);
            }

            assertThat(threadsNamed("agentlb-pid-orders")).noneMatch(Thread::isAlive);
            assertThat(threadsNamed("agentlb-pid-billing")).hasSize(1);
            assertThat(first.isControlLoopRunning()).isFalse();
        }
        for (Thread thread : threadsNamed("agentlb-pid-")) {
            thread.join(2000);
        }
        assertThat(threadsNamed("agentlb-pid-")).noneMatch(Thread::isAlive);
    }

    @Test
    void aPidBalancerOutsideARouteNamesItsThreadAfterItsIdElseBalancer() throws Exception {
        try (CamelContext context = new org.apache.camel.impl.DefaultCamelContext()) {
            context.start();
            PidWeightedLB named = new PidWeightedLB();
            named.setId("pid-outside-a-route");
            named.setCamelContext(context);
            PidWeightedLB unnamed = new PidWeightedLB();
            unnamed.setCamelContext(context);
            long unnamedBefore = threadsNamed("agentlb-pid-balancer").stream().filter(Thread::isAlive).count();

            named.start();
            unnamed.start();

            assertThat(threadsNamed("agentlb-pid-pid-outside-a-route")).filteredOn(Thread::isAlive).hasSize(1);
            assertThat(threadsNamed("agentlb-pid-balancer").stream().filter(Thread::isAlive).count())
                    .isEqualTo(unnamedBefore + 1);
            named.stop();
            unnamed.stop();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void agentsAreAddedWeightedDrainedAndRemovedThroughJmxOperations() throws Exception {
        RoundRobinLB rr = new RoundRobinLB();
        try (CamelContext context = CamelContexts.started(rb -> {
            rb.from("direct:a").routeId("agent-a").setBody(rb.constant("a"));
            rb.from("direct:c").routeId("agent-c").setBody(rb.constant("c"));
            rb.from("direct:rr").routeId("rr-route").loadBalance(rr).id("rr-lb").to("direct:a");
        })) {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = only(server.queryNames(new ObjectName("org.apache.camel:context="
                    + context.getManagementName() + ",type=processors,name=\"rr-lb\""), null));
            long generation = (Long) server.getAttribute(name, "Generation");

            server.invoke(name, "addAgent", new Object[] {"C", "direct:c", 2.0},
                    new String[] {String.class.getName(), String.class.getName(), double.class.getName()});
            assertThat((List<String>) server.getAttribute(name, "AgentIds")).containsExactly("direct://a", "C");
            assertThat(rr.balancerState().weights()).containsEntry("C", 2.0);
            List<String> answers = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                answers.add(context.createProducerTemplate().requestBody("direct:rr", "x", String.class));
            }
            assertThat(answers).containsExactlyInAnyOrder("c", "c", "a");

            server.invoke(name, "setAgentWeight", new Object[] {"C", 1.0},
                    new String[] {String.class.getName(), double.class.getName()});
            server.invoke(name, "drain", new Object[] {"direct://a"}, new String[] {String.class.getName()});
            assertThat((List<String>) server.getAttribute(name, "AgentIds")).containsExactly("C");
            server.invoke(name, "removeAgent", new Object[] {"C"}, new String[] {String.class.getName()});
            assertThat((List<String>) server.getAttribute(name, "AgentIds")).isEmpty();
            assertThat((Long) server.getAttribute(name, "Generation")).isEqualTo(generation + 5);
        }
    }

    @Test
    void traceLabelNamesTheStrategy() {
        assertThat(new RoundRobinLB().getTraceLabel()).isEqualTo("agentlb-rr");
        assertThat(new ConsistentHashLB().getTraceLabel()).isEqualTo("agentlb-ch");
        assertThat(new PidWeightedLB().getTraceLabel()).isEqualTo("agentlb-pid");
        assertThat(new AdaptiveVirtualNodeLB().getTraceLabel()).isEqualTo("agentlb-avn");
    }

    @Test
    @SuppressWarnings("unchecked")
    void weightsVirtualNodesImbalanceAndEjectionsAreJmxAttributes() throws Exception {
        PidWeightedLB pid = new PidWeightedLB();
        AdaptiveVirtualNodeLB avn = new AdaptiveVirtualNodeLB();
        try (CamelContext context = CamelContexts.started(rb -> {
            rb.from("direct:a").routeId("agent-a").setBody(rb.constant("a"));
            rb.from("direct:b").routeId("agent-b").throwException(new java.net.ConnectException("refused"));
            rb.from("direct:pid").routeId("pid-route").loadBalance(pid).id("pid-lb").to("direct:a", "direct:b");
            rb.from("direct:avn").routeId("avn-route").loadBalance(avn).id("avn-lb").to("direct:a", "direct:b");
        })) {
            for (int i = 0; i < 2; i++) {
                context.createProducerTemplate().requestBody("direct:pid", "x", String.class);
            }

            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName pidName = only(server.queryNames(new ObjectName("org.apache.camel:context="
                    + context.getManagementName() + ",type=processors,name=\"pid-lb\""), null));
            ObjectName avnName = only(server.queryNames(new ObjectName("org.apache.camel:context="
                    + context.getManagementName() + ",type=processors,name=\"avn-lb\""), null));

            assertThat(server.getAttribute(pidName, "Strategy")).isEqualTo("pid");
            assertThat((Map<String, Double>) server.getAttribute(pidName, "Weights"))
                    .containsOnlyKeys("direct://a", "direct://b");
            assertThat(server.getAttribute(pidName, "EjectedAgents")).isEqualTo(Set.of("direct://b"));
            assertThat(server.getAttribute(pidName, "Ejections")).isEqualTo(1L);
            assertThat(server.getAttribute(avnName, "VirtualNodesByAgent")).isEqualTo(Map.of("direct://a", 75, "direct://b", 75));
            assertThat(server.getAttribute(avnName, "ImbalanceIndex")).isEqualTo(0.0);
            assertThat(server.getAttribute(avnName, "ImbalanceThreshold")).isEqualTo(0.1);
        }
    }

    private static ObjectName only(Set<ObjectName> names) {
        assertThat(names).hasSize(1);
        return names.iterator().next();
    }
}
