package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

class AgentFailureTest {

    @Test
    void reasonNamesTheFirstRecognisedCauseInTheChain() {
        assertThat(AgentFailure.reasonOf(new ConnectException("Connection refused: /127.0.0.1:1")))
                .isEqualTo("connection refused");
        assertThat(AgentFailure.reasonOf(new RuntimeException("wrapped", new SocketException("Connection reset"))))
                .isEqualTo("connection reset");
        assertThat(AgentFailure.reasonOf(new SocketTimeoutException("Read timed out"))).isEqualTo("timed out");
        assertThat(AgentFailure.reasonOf(new IllegalStateException("x", new ClosedChannelException())))
                .isEqualTo("closed the connection without answering");
        assertThat(AgentFailure.reasonOf(new RuntimeException("No response received from remote server")))
                .isEqualTo("closed the connection without answering");
        assertThat(AgentFailure.reasonOf(new IOException("agent A1 marked down by its health checks")))
                .isEqualTo("marked down by health checks");
        assertThat(AgentFailure.reasonOf(new IOException("agent http://127.0.0.1:1 sent no answer in 1004 ms, over 10.0 x the"
                + " p99 time to first byte of recent answers, while other agents answered: taken as hung")))
                .as("the agent: component's stall rule while the client waits")
                .isEqualTo("sent no answer while other agents answered (stall rule)");
    }

    @Test
    void theAgentChildsOwnRefusalsAreNamedNotLeftAsIoErrors() {
        assertThat(AgentFailure.reasonOf(new ConnectException("agent A1 not called: the request passed 10 balancers"
                + " already (Via), a loop: the agent's address leads back to a balancer")))
                .isEqualTo("a loop: its address leads back to a balancer");
        assertThat(AgentFailure.reasonOf(new IOException("agent A1 answered Content-Encoding gzip to a request sent"
                + " without Accept-Encoding: its task ids cannot be sealed")))
                .isEqualTo("answered a compressed body that had to be read");
        assertThat(AgentFailure.reasonOf(new IOException("agent A1 answered 300 bytes, over maxAnswerBytes=200")))
                .isEqualTo("answered more than maxAnswerBytes");
        assertThat(AgentFailure.reasonOf(new IOException("agent A1 sent more than maxAnswerBytes=200")))
                .isEqualTo("answered more than maxAnswerBytes");
    }

    /** An agent killed mid-stream: its answer had begun (a trial's WARN said "without answering"). */
    @Test
    void aConnectionClosedAfterTheAnswerBeganIsNamedSo() {
        assertThat(AgentFailure.reasonOf(new IOException("agent A1 failed after 2048 bytes of its answer had gone to the"
                + " client", new ClosedChannelException()))).isEqualTo("closed the connection mid-answer");
        assertThat(AgentFailure.reasonOf(new IOException("agent A1 failed after 2048 bytes of its answer had gone to the"
                + " client", new java.net.SocketException("Connection reset")))).isEqualTo("connection reset mid-answer");
    }

    /** Netty's decoder failures: a head over the decoder's limit (TooLongFrameException, or a subclass, in the chain) or not HTTP. */
    @Test
    void aHeadOverTheLimitIsToldFromAnAnswerThatIsNotHttp() {
        assertThat(AgentFailure.reasonOf(new io.netty.handler.codec.TooLongFrameException("HTTP header is larger than 8192 bytes.")))
                .isEqualTo("answered a head over the 8 KiB limit");
        assertThat(AgentFailure.reasonOf(new io.netty.handler.codec.DecoderException(
                new io.netty.handler.codec.TooLongFrameException("too long") { }))).isEqualTo("answered a head over the 8 KiB limit");
        assertThat(AgentFailure.reasonOf(new io.netty.handler.codec.DecoderException("invalid version format: ABC")))
                .isEqualTo("answered something that is not HTTP");
        assertThat(AgentFailure.reasonOf(new io.netty.handler.codec.DecoderException(new IllegalStateException("no"))))
                .isEqualTo("answered something that is not HTTP");
    }

    @Test
    void aTimeoutAboveARefusalInTheChainWins() {
        Throwable failure = new SocketTimeoutException("t");
        failure.initCause(new ConnectException("Connection refused"));
        assertThat(AgentFailure.reasonOf(failure)).isEqualTo("timed out");
    }

    @Test
    void unrecognisedFailuresFallBackOnTheirKind() {
        assertThat(AgentFailure.reasonOf(new RuntimeException("pool", new NoSuchElementException("Timeout waiting"))))
                .isEqualTo("could not connect");
        assertThat(AgentFailure.reasonOf(new RuntimeException("x", new IOException("disk")))).isEqualTo("I/O error");
        assertThat(AgentFailure.reasonOf(new IOException((String) null))).isEqualTo("I/O error");
        assertThat(AgentFailure.reasonOf(new IllegalStateException("boom"))).isEqualTo("failed");
        assertThat(AgentFailure.reasonOf(new NoSuchElementException("first, not last", new IllegalStateException())))
                .isEqualTo("failed");
    }

    @Test
    void ofDerivesReasonAndOutcomeAndPrintsAgentWithReason() {
        AgentFailure failure = AgentFailure.of("A1", new ConnectException("Connection refused"));
        assertThat(failure.reason()).isEqualTo("connection refused");
        assertThat(failure.outcome()).isEqualTo(FailureClassifier.classify(failure.failure()));
        assertThat(failure.outcome()).isEqualTo(AttemptOutcome.FAILED_BEFORE_SEND);
        assertThat(failure).hasToString("A1 (connection refused)");
    }
}
