package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An exchange reads its balancer's state once, when {@code process} starts: a change published
 * while it runs (here by its own picker, between the read and the attempts) reaches the next
 * exchange, never this one, so a decision never mixes two states. (Drain and removal are the
 * exception: read as they are now, so that no new request goes to an agent that left; see
 * {@code RuntimeMembershipTest}.)
 */
class OneStateTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    @Test
    void aChangePublishedDuringADecisionReachesTheNextExchangeOnly() {
        AtomicReference<AgentLoadBalancerSupport> self = new AtomicReference<>();
        TestBalancer balancer = TestBalancer.picking("fixed", exchange -> {
            AgentLoadBalancerSupport lb = self.get();
            if (lb.getMaximumFailoverAttempts() != 0) {
                // Published after this exchange read its state: no more failover.
                lb.setMaximumFailoverAttempts(0);
            }
            return Selection.of(List.of("A", "B").iterator());
        });
        self.set(balancer);
        balancer.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled()); // A stays first in the order
        ScriptedChild.started(balancer, CAMEL.get(), ScriptedChild.answering("A", (exchange, now) -> {
            throw new ConnectException("Connection refused");
        }), ScriptedChild.ok("B"));
        long generation = balancer.getGeneration();

        Exchange first = new DefaultExchange(CAMEL.get());
        balancer.process(first, sync -> { });

        assertThat(first.getException()).isNull();
        assertThat(first.getProperty(AgentLb.AGENT_PROPERTY)).as("failed over to B, by the state it read").isEqualTo("B");
        assertThat(balancer.getGeneration()).isEqualTo(generation + 1);
        Exchange second = new DefaultExchange(CAMEL.get());
        balancer.process(second, sync -> { });
        assertThat(second.getException()).as("the next one reads the new state: A only, no failover")
                .isInstanceOf(NoAgentAvailableException.class).hasMessageContaining("1 of 2 agents tried");
    }
}
