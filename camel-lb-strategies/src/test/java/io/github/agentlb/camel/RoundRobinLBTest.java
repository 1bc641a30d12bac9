package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

class RoundRobinLBTest extends CamelTestSupport {

    private final AgentRoutesFixture fixture = new AgentRoutesFixture();
    private final RoundRobinLB balancer = new RoundRobinLB();
    private final RoundRobinLB withDefaultErrorHandler = new RoundRobinLB();

    @Override
    protected RoutesBuilder[] createRouteBuilders() {
        return new RoutesBuilder[] {fixture.agents(),
            AgentRoutesFixture.balanced("direct:start", balancer, AgentRoutesFixture.AGENTS),
            new RouteBuilder() {
                @Override
                public void configure() {
                    // Camel's default error handler (no redelivery): failover must still see the failure
                    from("direct:default-error-handler").loadBalance(withDefaultErrorHandler)
                            .to("direct:a1").to("direct:a2").to("direct:a3");
                }
            }};
    }

    private String send() {
        return template.requestBody("direct:start", "ping", String.class);
    }

    @Test
    void thirtySequentialRequestsRotateA1A2A3() {
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            agents.add(send());
        }
        for (int i = 0; i < 30; i++) {
            assertThat(agents.get(i)).as("request %d", i).isEqualTo(AgentRoutesFixture.AGENTS.get(i % 3));
        }
    }

    @Test
    void thousandRequestsFromTenThreadsEndWithSpreadAtMostOne() throws Exception {
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(10);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 10; t++) {
            futures.add(pool.submit(() -> {
                for (int i = 0; i < 100; i++) {
                    counts.merge(send(), 1, Integer::sum);
                }
            }));
        }
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(counts.values()).containsExactlyInAnyOrder(334, 333, 333);
    }

    @Test
    void aDeadAgentsRequestTakesTheRotationsNextTurnSoItsShareIsSpread() {
        fixture.down.add("A2");
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            agents.add(send());
        }
        // A2 refuses the 2nd request, which takes the next turn (A3); A2 is then ejected and skipped.
        assertThat(agents).containsExactly("A1", "A3", "A1", "A3", "A1", "A3");
    }

    @Test
    void everyAgentDownFailsTheExchangeWithOneClearException() {
        fixture.down.addAll(AgentRoutesFixture.AGENTS);
        Exchange result = template.request("direct:start", e -> e.getIn().setBody("ping"));
        assertThat(result.getException())
                .isInstanceOf(NoAgentAvailableException.class)
                .hasMessageContaining("3 of 3 agents tried, each failed")
                .hasMessageContaining("direct://a1 (connection refused)");
    }

    @Test
    void aFailureThatIsAnAnswerIsNotRetriedElsewhere() {
        fixture.broken.add("A1");
        Exchange result = template.request("direct:start", e -> e.getIn().setBody("ping"));
        assertThat(result.getException()).isInstanceOf(IllegalStateException.class)
                .hasMessage("agent A1 answered garbage");
        assertThat(send()).isEqualTo("A2");
    }

    @Test
    void theAnsweringAgentIsRecordedOnTheExchange() {
        Exchange result = template.request("direct:start", e -> e.getIn().setBody("ping"));
        assertThat(result.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("direct://a1");
        assertThat(result.getProperty(AgentLb.STRATEGY_PROPERTY)).isEqualTo("rr");
        assertThat(balancer.getAgentIds()).containsExactly("direct://a1", "direct://a2", "direct://a3");
    }

    @Test
    void failoverWorksUnderCamelsDefaultErrorHandler() {
        fixture.down.add("A2");
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            agents.add(template.requestBody("direct:default-error-handler", "ping", String.class));
        }
        assertThat(agents).containsExactly("A1", "A3", "A1");
    }
}
