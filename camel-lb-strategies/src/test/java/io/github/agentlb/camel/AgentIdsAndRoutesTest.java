package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** Default agent ids carry no endpoint options; one balancer instance serves one route. */
class AgentIdsAndRoutesTest {

    @Test
    void defaultIdsDropUserInfoAndQuery() {
        assertThat(Membership.withoutOptions("http://localhost:8081?bridgeEndpoint=true&authPassword=s3cret"))
                .isEqualTo("http://localhost:8081");
        assertThat(Membership.withoutOptions("http://user:s3cret@localhost:8081/api/v1?token=abc"))
                .isEqualTo("http://localhost:8081/api/v1");
        assertThat(Membership.withoutOptions("vertx-http://http://user:s3cret@localhost:8082?x=1"))
                .isEqualTo("vertx-http://http://localhost:8082");
        assertThat(Membership.withoutOptions("netty-http://http://localhost:8083")).isEqualTo("netty-http://http://localhost:8083");
        assertThat(Membership.withoutOptions("direct://a1")).isEqualTo("direct://a1");
    }

    @Test
    void noEndpointOptionReachesIdsDecisionsOrErrors() throws Exception {
        RoundRobinLB balancer = new RoundRobinLB();
        try (CamelContext context = CamelContexts.started(rb -> {
            rb.errorHandler(rb.noErrorHandler());
            rb.from("direct:a1").throwException(new java.net.ConnectException("refused"));
            rb.from("direct:start").loadBalance(balancer).to("direct:a1?timeout=4321");
        })) {
            Exchange answer = context.createProducerTemplate().request("direct:start", e -> e.getIn().setBody("x"));

            assertThat(balancer.getAgentIds()).containsExactly("direct://a1");
            assertThat(answer.getException()).isInstanceOf(NoAgentAvailableException.class)
                    .hasMessageNotContaining("4321").hasMessageContaining("direct://a1");
        }
    }

    @Test
    void namedAgentsKeepTheirNamesWhetherNamedWithOrWithoutOptions() throws Exception {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.nameAgent("direct:a1?timeout=4321", "A1").nameAgent("direct:a2", "A2");
        try (CamelContext context = CamelContexts.started(rb -> {
            rb.from("direct:start").loadBalance(balancer).to("direct:a1?timeout=4321").to("direct:a2?timeout=1234");
        })) {
            assertThat(balancer.getAgentIds()).containsExactly("A1", "A2");
        }
    }

    @Test
    void aSecondRouteUsingTheSameInstanceIsRejectedNamingBothRoutes() throws Exception {
        ConsistentHashLB shared = new ConsistentHashLB();
        try (CamelContext context = new DefaultCamelContext()) {
            context.getRegistry().bind("lb", shared);
            RouteBuilder.addRoutes(context, rb -> {
                rb.from("direct:one").routeId("first").loadBalance().custom("lb").to("direct:a", "direct:b");
                rb.from("direct:two").routeId("second").loadBalance().custom("lb").to("direct:c", "direct:d");
            });
            assertThatThrownBy(context::start).rootCause().isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("route 'first'").hasMessageContaining("route 'second'")
                    .hasMessageContaining("its own instance");
            assertThat(shared.getAgentIds()).containsExactly("direct://a", "direct://b");
        }
    }

    @Test
    void twoInstancesServeTwoRoutes() throws Exception {
        List<ConsistentHashLB> balancers = List.of(new ConsistentHashLB(), new ConsistentHashLB());
        try (CamelContext context = CamelContexts.started(rb -> {
            rb.from("direct:one").routeId("first").loadBalance(balancers.get(0)).to("direct:a", "direct:b");
            rb.from("direct:two").routeId("second").loadBalance(balancers.get(1)).to("direct:a", "direct:b");
        })) {
            assertThat(balancers.get(0).getRouteId()).isEqualTo("first");
            assertThat(balancers.get(1).getRouteId()).isEqualTo("second");
        }
    }
}
