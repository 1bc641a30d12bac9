package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.camel.RoundRobinLB;
import java.time.Duration;
import org.apache.camel.CamelContext;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code agent:} endpoint's URI: found by scheme, its address and options, each bad value refused by name. */
class AgentEndpointTest {

    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void stop() {
        camel.stop();
    }

    private AgentEndpoint endpoint(String uri) {
        return camel.getEndpoint(uri, AgentEndpoint.class);
    }

    @Test
    void theSchemeIsFoundWithoutRegisteringTheComponentAndTheDefaultsAreNginxs() {
        AgentEndpoint endpoint = endpoint("agent:http://localhost:8081");

        assertThat(camel.getComponent("agent")).isInstanceOf(AgentComponent.class);
        assertThat(endpoint.getEndpointUri()).isEqualTo("http://localhost:8081");
        assertThat(endpoint.getAddress()).isEqualTo("http://localhost:8081");
        assertThat(endpoint.timeouts()).isEqualTo(AgentTimeouts.DEFAULTS);
        assertThat(endpoint.getConnectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(endpoint.getFirstByteTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(endpoint.getIdleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(endpoint.getRequestTimeout()).isZero();
        assertThat(endpoint.getPoolSize()).isEqualTo(64);
        assertThat(endpoint.getPoolIdleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(endpoint.getMaxAnswerBytes()).isZero();
        assertThat(endpoint.getStallFactor()).isEqualTo(10);
        assertThat(endpoint.getMinStallTime()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theStallRuleTakesAWaitOfTenTimesTheRecentP99AndAtLeastTheMinimumAsTheAgentsFailure() {
        AgentEndpoint endpoint = endpoint("agent:http://localhost:8081");
        assertThat(endpoint.stalled(60_000_000_000L)).as("no answer recorded yet: no judgement").isFalse();
        for (int i = 0; i < 100; i++) {
            endpoint.getComponent().firstByteTimes().record(i < 99 ? 20_000_000L : 200_000_000L, 0); // p99 20 ms
        }
        assertThat(endpoint.stalled(999_000_000L)).as("under minStallTime").isFalse();
        assertThat(endpoint.stalled(1_000_000_000L)).isTrue();

        AgentEndpoint slow = endpoint("agent:http://localhost:8082?stallFactor=100&minStallTime=100ms");
        assertThat(slow.stalled(1_999_000_000L)).as("under 100 x 20 ms").isFalse();
        assertThat(slow.stalled(2_000_000_000L)).isTrue();
        assertThat(endpoint("agent:http://localhost:8083?stallFactor=0").stalled(Long.MAX_VALUE)).as("off").isFalse();
    }

    @Test
    void optionsAreReadFromTheUri() {
        AgentEndpoint endpoint = endpoint("agent:http://127.0.0.1:9/?connectTimeout=250ms&firstByteTimeout=5m"
                + "&idleTimeout=PT30S&requestTimeout=1h&poolSize=0&maxAnswerBytes=1048576");

        assertThat(endpoint.getEndpointUri()).isEqualTo("http://127.0.0.1:9");
        assertThat(endpoint.timeouts()).isEqualTo(new AgentTimeouts(250, 300_000, 30_000, 3_600_000));
        assertThat(endpoint.getPoolSize()).isZero();
        assertThat(endpoint.getMaxAnswerBytes()).isEqualTo(1_048_576);
    }

    @Test
    void thePoolIdleTimeoutIsReadFromTheUriAndZeroKeepsIdleConnectionsForEver() {
        assertThat(endpoint("agent:http://localhost:8081?poolIdleTimeout=5s").getPoolIdleTimeout())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(endpoint("agent:http://localhost:8082?poolIdleTimeout=0").getPoolIdleTimeout()).isZero();
    }

    @Test
    void theTimeoutsSpellThemselvesAsOptions() {
        AgentTimeouts timeouts = new AgentTimeouts(1_000, 20_000, 60_000, 180_000);

        assertThat(endpoint("agent:http://localhost:8081?" + timeouts.uriOptions()).timeouts()).isEqualTo(timeouts);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "connectTimeout=abc|connectTimeout must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was 'abc'",
            "firstByteTimeout=-5s|firstByteTimeout must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was '-5s'",
            "idleTimeout=0|idleTimeout must be at least 1ms, was '0'",
            "requestTimeout=5 s|requestTimeout must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was '5 s'",
            "poolSize=-1|poolSize must be >= 0, was -1",
            "poolIdleTimeout=-5s|poolIdleTimeout must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was '-5s'",
            "poolIdleTimeout=PT-1S|poolIdleTimeout must be a duration such as 250ms, 10s, 2m, 1h or PT10S, was 'PT-1S'",
            "maxAnswerBytes=-2|maxAnswerBytes must be >= 0 (0: no limit), was -2",
            "stallFactor=0.5|stallFactor must be 0 (off) or a finite number >= 1, was 0.5",
            "minStallTime=0|minStallTime must be at least 1ms, was '0'",
            "requestTimeout=PT0.0005S|requestTimeout must be 0 (none) or at least 1ms, was 'PT0.0005S'",
            "connectTimeout=PT597H|connectTimeout must be at most 2147483647ms (24.8 days), was 'PT597H'",
            "idleTimeout=P25D|idleTimeout must be at most 2147483647ms (24.8 days), was 'P25D'",
            "poolSize=abc|poolSize must be a whole number up to 2147483647, was 'abc'",
            "poolSize=2147483648|poolSize must be a whole number up to 2147483647, was '2147483648'",
            "maxAnswerBytes=1kb|maxAnswerBytes must be a whole number up to 9223372036854775807, was '1kb'",
            "stallFactor=abc|stallFactor must be a number, was 'abc'",
            "poolSize=1&poolSize=2|poolSize is given more than once, was '[1, 2]'",
            "stallWhileWaiting=yes|stallWhileWaiting must be true or false, was 'yes'",
            "stallWhileWaiting=true&stallWhileWaiting=true|stallWhileWaiting is given more than once, was '[true, true]'",
            "connectTimeout=1s&connectTimeout=2s|connectTimeout is given more than once, was '[1s, 2s]'",
            "idleTimeout=3s&IdleTimeout=5s|idleTimeout is given more than once (also as IdleTimeout), was '3s'"})
    void aBadOptionFailsNamingItAndItsValue(String option, String message) {
        assertThatThrownBy(() -> endpoint("agent:http://localhost:8081?" + option))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .rootCause().isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void anUnknownOptionFails() {
        assertThatThrownBy(() -> endpoint("agent:http://localhost:8081?bridgeEndpoint=true"))
                .isInstanceOf(ResolveEndpointFailedException.class).hasMessageContaining("bridgeEndpoint");
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://localhost:8443", "http://localhost", "http://localhost:8081/v1", "localhost:8081",
            "http://user:pw@localhost:8081", "http://localhost:99999", "http://localhost:65536", "http://localhost:8081#frag"})
    void anAddressThatIsNotHttpHostPortFailsNamingIt(String address) {
        assertThatThrownBy(() -> endpoint("agent:" + address))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .rootCause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("agent: address must be http://host:port");
    }

    /** An address is written one way (host in lower case, port as a number): one agent listed two ways is listed twice. */
    @Test
    void anAddressIsWrittenOneWaySoAnAgentListedTwoWaysIsRefused() throws Exception {
        assertThat(endpoint("agent:http://LOCALHOST:08081").getAddress()).isEqualTo("http://localhost:8081");
        assertThat(endpoint("agent:http://[::1]:8081").getAddress()).isEqualTo("http://[::1]:8081");
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:twice").loadBalance(new RoundRobinLB())
                        .to("agent:http://localhost:29081")
                        .to("agent:http://LOCALHOST:029081");
            }
        });
        assertThatThrownBy(camel::start).rootCause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://localhost:29081 appears twice");
    }

    @Test
    void anAgentIsNoRoutesConsumer() {
        assertThatThrownBy(() -> endpoint("agent:http://localhost:8081").createConsumer(exchange -> { }))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void inABalancerTheAgentsIdIsItsAddressWithoutOptionsOrTheNameGivenIt() throws Exception {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.nameAgent("http://localhost:8082", "A2");
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:in").loadBalance(balancer)
                        .to("agent:http://localhost:8081?firstByteTimeout=5m")
                        .to("agent:http://localhost:8082?firstByteTimeout=5m");
            }
        });
        camel.start();

        assertThat(balancer.getAgentIds()).containsExactly("http://localhost:8081", "A2");
    }

    /**
     * {@code nameAgent} takes an {@code agent:} child's URI as written in {@code .to(...)}, normalized, without
     * its options or as its bare address (a trailing slash too), before the start or after it; a URI that is no
     * child's fails the start, or the call after it, naming the URI and the children, and a name with white
     * space is refused as {@code addAgent} refuses it.
     */
    @Test
    void nameAgentTakesAnAgentChildsUriInEveryFormItsJavadocGivesAndRefusesOneThatIsNoChilds() throws Exception {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.nameAgent("agent:http://localhost:8081?firstByteTimeout=5m", "A1")
                .nameAgent("agent://http://localhost:8082", "A2")
                .nameAgent("http://localhost:8083/", "A3");
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:in").loadBalance(balancer)
                        .to("agent:http://localhost:8081?firstByteTimeout=5m")
                        .to("agent:http://localhost:8082?firstByteTimeout=5m")
                        .to("agent:http://localhost:8083")
                        .to("agent:http://localhost:8084");
            }
        });
        camel.start();
        assertThat(balancer.getAgentIds()).containsExactly("A1", "A2", "A3", "http://localhost:8084");

        balancer.nameAgent("agent:http://localhost:8084", "A4");
        assertThat(balancer.getAgentIds()).containsExactly("A1", "A2", "A3", "A4");
        assertThatThrownBy(() -> balancer.nameAgent("http://typo:1", "A5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nameAgent: no child of this balancer has endpoint 'http://typo:1'; its children: "
                        + "http://localhost:8081, http://localhost:8082, http://localhost:8083, http://localhost:8084");
        assertThatThrownBy(() -> balancer.nameAgent("agent:http://localhost:8084", "A 4"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("agentId must not contain white space, was 'A 4'");
        assertThat(balancer.getAgentIds()).containsExactly("A1", "A2", "A3", "A4");

        balancer.removeAgent("A4");
        camel.getRouteController().stopRoute(camel.getRoutes().get(0).getRouteId());
        camel.getRouteController().startRoute(camel.getRoutes().get(0).getRouteId());
        assertThat(balancer.getAgentIds()).as("a restart after a named agent left").containsExactly("A1", "A2", "A3");

        RoundRobinLB typo = new RoundRobinLB();
        typo.nameAgent("http://localhost:9999", "A1");
        CamelContext other = new DefaultCamelContext();
        other.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:in").loadBalance(typo).to("agent:http://localhost:8081");
            }
        });
        assertThatThrownBy(other::start).hasRootCauseInstanceOf(IllegalArgumentException.class)
                .rootCause().hasMessage("nameAgent: no child of this balancer has endpoint 'http://localhost:9999'; its "
                        + "children: http://localhost:8081");
        other.close();
    }

    /**
     * {@code stallWhileWaiting} for every endpoint at once, as Camel components take endpoint
     * defaults: set on the component (in Camel Main, {@code camel.component.agent.stallWhileWaiting=true}),
     * an endpoint's own option still wins.
     */
    @Test
    void theComponentSetsStallWhileWaitingForItsEndpointsAndAnEndpointsOwnOptionWins() throws Exception {
        assertThat(endpoint("agent:http://localhost:8081").isStallWhileWaiting()).isFalse();
        camel.getComponent("agent", AgentComponent.class).setStallWhileWaiting(true);
        assertThat(endpoint("agent:http://localhost:8082").isStallWhileWaiting()).isTrue();
        assertThat(endpoint("agent:http://localhost:8083?stallWhileWaiting=false").isStallWhileWaiting()).isFalse();

        org.apache.camel.main.Main main = new org.apache.camel.main.Main();
        main.addInitialProperty("camel.component.agent.stallWhileWaiting", "true");
        main.configure().addRoutesBuilder(new org.apache.camel.builder.RouteBuilder() {
            @Override
            public void configure() {
                from("direct:in").to("agent:http://localhost:8084");
            }
        });
        main.start();
        try {
            assertThat(main.getCamelContext().getEndpoint("agent:http://localhost:8084", AgentEndpoint.class)
                    .isStallWhileWaiting()).as("from Camel Main's properties").isTrue();
        } finally {
            main.stop();
        }
    }
}
