package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.demo.AttemptFailures.Failure;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.camel.CamelExchangeException;
import org.junit.jupiter.api.Test;

class AttemptFailuresTest {

    @Test
    void reasonsAreWordsWithoutClassNames() {
        assertThat(AttemptFailures.reason(new ConnectException("Connection refused: /127.0.0.1:1")))
                .isEqualTo("connection refused");
        assertThat(AttemptFailures.reason(new CamelExchangeException("Cannot connect. Exchange[8DD4]", null,
                new IOException("wrapped", new ConnectException("Connection refused")))))
                .isEqualTo("connection refused");
        assertThat(AttemptFailures.reason(new io.netty.handler.timeout.ReadTimeoutException()))
                .isEqualTo("timed out");
        assertThat(AttemptFailures.reason(new io.netty.channel.ConnectTimeoutException("connection timed out")))
                .isEqualTo("timed out");
        assertThat(AttemptFailures.reason(new IOException("Connection reset by peer"))).isEqualTo("connection reset");
        assertThat(AttemptFailures.reason(new CamelExchangeException(
                "No response received from remote server: http://127.0.0.1:9", null)))
                .isEqualTo("closed the connection without answering");
        assertThat(AttemptFailures.reason(new ClosedChannelException()))
                .isEqualTo("closed the connection without answering");
        assertThat(AttemptFailures.reason(new NoSuchElementException("Unable to validate object")))
                .isEqualTo("could not connect");
        assertThat(AttemptFailures.reason(new IOException("disk on fire"))).isEqualTo("I/O error");
        assertThat(AttemptFailures.reason(new IllegalStateException("odd"))).isEqualTo("failed");
    }

    @Test
    void theSummaryCountsAndListsTheAgentsInOrder() {
        assertThat(AttemptFailures.summary(List.of())).isNull();
        assertThat(AttemptFailures.summary(List.of(new Failure("A1", "timed out"))))
                .isEqualTo("the only agent tried failed: A1 (timed out)");
        assertThat(AttemptFailures.summary(List.of(new Failure("A2", "connection refused"),
                new Failure("http://h:1", "timed out"))))
                .isEqualTo("all 2 agents tried failed: A2 (connection refused), http://h:1 (timed out)");
    }
}
