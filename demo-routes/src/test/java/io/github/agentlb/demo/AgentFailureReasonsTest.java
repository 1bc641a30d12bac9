package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentFailure;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.util.NoSuchElementException;
import org.apache.camel.CamelExchangeException;
import org.junit.jupiter.api.Test;

/** The library's failure reasons on the exceptions the demo's netty-http producers raise. */
class AgentFailureReasonsTest {

    @Test
    void reasonsAreWordsWithoutClassNames() {
        assertThat(AgentFailure.reasonOf(new ConnectException("Connection refused: /127.0.0.1:1")))
                .isEqualTo("connection refused");
        assertThat(AgentFailure.reasonOf(new CamelExchangeException("Cannot connect. Exchange[8DD4]", null,
                new IOException("wrapped", new ConnectException("Connection refused")))))
                .isEqualTo("connection refused");
        assertThat(AgentFailure.reasonOf(new io.netty.handler.timeout.ReadTimeoutException()))
                .isEqualTo("timed out");
        assertThat(AgentFailure.reasonOf(new io.netty.channel.ConnectTimeoutException("connection timed out")))
                .isEqualTo("timed out");
        assertThat(AgentFailure.reasonOf(new IOException("Connection reset by peer"))).isEqualTo("connection reset");
        assertThat(AgentFailure.reasonOf(new CamelExchangeException(
                "No response received from remote server: http://127.0.0.1:9", null)))
                .isEqualTo("closed the connection without answering");
        assertThat(AgentFailure.reasonOf(new ClosedChannelException()))
                .isEqualTo("closed the connection without answering");
        assertThat(AgentFailure.reasonOf(new NoSuchElementException("Unable to validate object")))
                .isEqualTo("could not connect");
        assertThat(AgentFailure.reasonOf(new IOException("disk on fire"))).isEqualTo("I/O error");
        assertThat(AgentFailure.reasonOf(new IllegalStateException("odd"))).isEqualTo("failed");
    }

    @Test
    void nettyConnectTimeoutsAreBeforeSendAndReadTimeoutsAfter() {
        assertThat(io.github.agentlb.camel.FailureClassifier.classify(
                new io.netty.channel.ConnectTimeoutException("connection timed out")))
                .isEqualTo(io.github.agentlb.camel.AttemptOutcome.FAILED_BEFORE_SEND);
        assertThat(io.github.agentlb.camel.FailureClassifier.classify(
                io.netty.handler.timeout.ReadTimeoutException.INSTANCE))
                .isEqualTo(io.github.agentlb.camel.AttemptOutcome.FAILED_AFTER_SEND);
    }
}
