package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.util.NoSuchElementException;
import org.apache.camel.CamelExchangeException;
import org.junit.jupiter.api.Test;

class ConnectionFailureTest {

    private final RoundRobinLB balancer = new RoundRobinLB();

    @Test
    void aRefusedConnectionAnywhereInTheCauseChainFailsOver() {
        assertThat(balancer.isConnectionFailure(
                new CamelExchangeException("Cannot connect", null, new ConnectException("refused")))).isTrue();
    }

    @Test
    void aPoolThatCannotHandOutAConnectionFailsOver() {
        // What camel-netty-http's producer sets when a pooled connect is refused at once.
        assertThat(balancer.isConnectionFailure(new NoSuchElementException("Unable to validate object"))).isTrue();
    }

    @Test
    void otherFailuresAreAnswersAndDoNotFailOver() {
        assertThat(balancer.isConnectionFailure(new IllegalStateException("bad answer"))).isFalse();
        assertThat(balancer.isConnectionFailure(new CamelExchangeException("HTTP 500", null))).isFalse();
    }

    @Test
    void anAgentClosingTheConnectionBeforeAnsweringFailsOver() {
        // What camel-netty's producer sets when the agent dies mid-request (kill -9).
        assertThat(balancer.isConnectionFailure(new CamelExchangeException(
                "No response received from remote server: localhost:8083", null))).isTrue();
    }

    @Test
    void clientTextInDecisionLogsCannotForgeLines() {
        assertThat(AgentLoadBalancerSupport.loggable("x\ny\u0000z")).isEqualTo("x\\u000ay\\u0000z");
        assertThat(AgentLoadBalancerSupport.loggable("r9 agent=evil\u2028x")).isEqualTo("r9\\u0020agent=evil\\u2028x");
        assertThat(AgentLoadBalancerSupport.loggable("1".repeat(500)))
                .hasSize(AgentLoadBalancerSupport.MAX_LOGGED_CHARS + 3).endsWith("...");
        assertThat(AgentLoadBalancerSupport.loggable("\u7528\u6237-42")).isEqualTo("\u7528\u6237-42");
    }
}
