package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.RoundRobinLB;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** Readiness knows at start whether any agent accepts, and learns when one does. */
class AgentsReadinessCheckTest {

    @Test
    void downFromTheStartWhenNoAgentAcceptedUntilAProbeOrAnAnswerShowsOne() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            RoundRobinLB balancer = startedWithOneAgent(context);
            AtomicLong clock = new AtomicLong();
            AtomicBoolean accepts = new AtomicBoolean(false);
            AtomicInteger probes = new AtomicInteger();
            AgentsReadinessCheck check = new AgentsReadinessCheck(balancer, null)
                    .unprovenAtStart(() -> {
                        probes.incrementAndGet();
                        return accepts.get();
                    }, clock::get);
            check.setCamelContext(context);

            assertThat(state(check)).isEqualTo(HealthCheck.State.DOWN);
            clock.addAndGet(TimeUnit.SECONDS.toNanos(AgentsReadinessCheck.REPROBE_SECONDS) - 1);
            assertThat(state(check)).isEqualTo(HealthCheck.State.DOWN);
            assertThat(probes).hasValue(0); // not yet time to probe again
            clock.addAndGet(1);
            assertThat(state(check)).isEqualTo(HealthCheck.State.DOWN);
            assertThat(probes).hasValue(1);
            accepts.set(true);
            clock.addAndGet(TimeUnit.SECONDS.toNanos(AgentsReadinessCheck.REPROBE_SECONDS));
            assertThat(state(check)).isEqualTo(HealthCheck.State.UP);
            assertThat(probes).hasValue(2);
            clock.addAndGet(TimeUnit.SECONDS.toNanos(60));
            assertThat(state(check)).isEqualTo(HealthCheck.State.UP);
            assertThat(probes).hasValue(2); // proven once: no more probes
        }
    }

    @Test
    void anAnsweredRequestProvesAnAgentWithoutAProbe() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            RoundRobinLB balancer = startedWithOneAgent(context);
            AgentsReadinessCheck check = new AgentsReadinessCheck(balancer, null)
                    .unprovenAtStart(() -> false, () -> 0L);
            check.setCamelContext(context);
            assertThat(state(check)).isEqualTo(HealthCheck.State.DOWN);

            org.apache.camel.Exchange exchange = new org.apache.camel.support.DefaultExchange(context);
            balancer.process(exchange, done -> { });

            assertThat(exchange.getException()).isNull();
            assertThat(state(check)).isEqualTo(HealthCheck.State.UP);
        }
    }

    /** Health names each member's address beside its name: the balancer's meters name agents, the agent endpoints' meters their URLs. */
    @Test
    void theDetailsMapEachMembersNameToItsAddress() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            RoundRobinLB balancer = startedWithOneAgent(context);
            AgentsReadinessCheck check = new AgentsReadinessCheck(balancer, null, () -> null,
                    id -> id.equals("A1") ? "http://127.0.0.1:18101" : id);
            check.setCamelContext(context);
            assertThat(check.call(Map.of()).getDetails())
                    .containsEntry("members", "A1").containsEntry("addresses", "A1=http://127.0.0.1:18101");
        }
    }

    /** A started rr balancer over one agent, A1, that answers every request with nothing. */
    private static RoundRobinLB startedWithOneAgent(DefaultCamelContext context) {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(context);
        balancer.addAgent("A1", org.apache.camel.support.AsyncProcessorConverterHelper.convert(exchange -> { }), 1.0);
        balancer.start();
        return balancer;
    }

    private static HealthCheck.State state(AgentsReadinessCheck check) {
        return check.call(Map.of()).getState();
    }
}
