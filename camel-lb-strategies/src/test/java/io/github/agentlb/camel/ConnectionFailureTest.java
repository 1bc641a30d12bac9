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
}
