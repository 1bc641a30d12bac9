package io.github.agentlb.camel;

import static io.github.agentlb.camel.AttemptOutcome.EXCEPTION_ANSWER;
import static io.github.agentlb.camel.AttemptOutcome.FAILED_AFTER_SEND;
import static io.github.agentlb.camel.AttemptOutcome.FAILED_BEFORE_SEND;
import static io.github.agentlb.camel.AttemptOutcome.SUCCESS;
import static io.github.agentlb.camel.FailureClassifier.classify;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeoutException;
import org.apache.camel.CamelExchangeException;
import org.apache.camel.ExchangeTimedOutException;
import org.apache.camel.component.direct.DirectConsumerNotAvailableException;
import org.junit.jupiter.api.Test;

class FailureClassifierTest {

    @Test
    void noFailureIsASuccess() {
        assertThat(classify(null)).isEqualTo(SUCCESS);
    }

    @Test
    void failuresThatNeverReachedTheAgentAreBeforeSend() {
        assertThat(classify(new CamelExchangeException("Cannot connect", null, new ConnectException("refused"))))
                .isEqualTo(FAILED_BEFORE_SEND);
        // camel-netty-http's pool reports a refused pooled connect this way.
        assertThat(classify(new NoSuchElementException("Unable to validate object"))).isEqualTo(FAILED_BEFORE_SEND);
        assertThat(classify(new UnknownHostException("agent-9"))).isEqualTo(FAILED_BEFORE_SEND);
        assertThat(classify(new SocketTimeoutException("Connect timed out"))).isEqualTo(FAILED_BEFORE_SEND);
        assertThat(classify(new DirectConsumerNotAvailableException("No consumers", null))).isEqualTo(FAILED_BEFORE_SEND);
    }

    @Test
    void failuresAfterTheRequestMayHaveArrivedAreAfterSend() {
        assertThat(classify(new SocketTimeoutException("Read timed out"))).isEqualTo(FAILED_AFTER_SEND);
        assertThat(classify(new IOException("Connection reset by peer"))).isEqualTo(FAILED_AFTER_SEND);
        assertThat(classify(new ClosedChannelException())).isEqualTo(FAILED_AFTER_SEND);
        assertThat(classify(new TimeoutException())).isEqualTo(FAILED_AFTER_SEND);
        assertThat(classify(new ExchangeTimedOutException(null, 5000))).isEqualTo(FAILED_AFTER_SEND);
        // camel-netty's producer when the agent closes the connection before answering (kill -9).
        assertThat(classify(new CamelExchangeException(
                "No response received from remote server: localhost:8083", null))).isEqualTo(FAILED_AFTER_SEND);
    }

    @Test
    void anAnswerThatIsNotHttpIsAFailureAfterSend() {
        // Netty's HTTP decoder on an agent answering "NOT HTTP AT ALL": was EXCEPTION_ANSWER (no failover, no ejection).
        assertThat(classify(new DecoderException(new IllegalArgumentException("invalid version format: NOT"))))
                .isEqualTo(FAILED_AFTER_SEND);
        assertThat(classify(new TooLongFrameException("An HTTP line is larger than 4096 bytes.")))
                .isEqualTo(FAILED_AFTER_SEND);
        assertThat(AgentFailure.of("a", new DecoderException(new IllegalArgumentException("x"))).reason())
                .isEqualTo("answered something that is not HTTP");
    }

    @Test
    void aBeforeSendCauseAnywhereInTheChainWins() {
        assertThat(classify(new IOException("wrapped", new ConnectException("refused")))).isEqualTo(FAILED_BEFORE_SEND);
    }

    @Test
    void otherFailuresAreAnswersAndAreNeverRetried() {
        assertThat(classify(new IllegalStateException("bad answer"))).isEqualTo(EXCEPTION_ANSWER);
        assertThat(classify(new CamelExchangeException("HTTP 500", null))).isEqualTo(EXCEPTION_ANSWER);
    }

    @Test
    void clientTextInDecisionLogsCannotForgeLines() {
        assertThat(DecisionLog.loggable("x\ny\u0000z")).isEqualTo("x\\u000ay\\u0000z");
        assertThat(DecisionLog.loggable("r9 agent=evil\u2028x")).isEqualTo("r9\\u0020agent=evil\\u2028x");
        assertThat(DecisionLog.loggable("1".repeat(500)))
                .hasSize(DecisionLog.MAX_LOGGED_CHARS + 3).endsWith("...");
        assertThat(DecisionLog.loggable("\u7528\u6237-42")).isEqualTo("\u7528\u6237-42");
    }

    @Test
    void theLosingLegOfAHedgedRequestEndsCancelled() {
        assertThat(classify(new HedgeLostException("A2"))).isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(new HedgeLostException("A2")).hasMessageContaining("agent A2");
    }
}
