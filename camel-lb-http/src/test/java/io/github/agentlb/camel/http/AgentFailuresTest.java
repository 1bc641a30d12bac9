package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AgentFailure;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.FailureClassifier;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

/** The outcomes a call says through its exceptions, which the library classifies without naming them. */
class AgentFailuresTest {

    @Test
    void theClassifierKnowsTheStreamingOutcomesWhateverTheirCause() {
        assertThat(FailureClassifier.classify(new AgentCallCancelledException("client left")))
                .isEqualTo(AttemptOutcome.CANCELLED);
        assertThat(FailureClassifier.classify(new AnswerInterruptedException("cut", new ClosedChannelException())))
                .isEqualTo(AttemptOutcome.FAILED_AFTER_FIRST_BYTE);
        assertThat(FailureClassifier.classify(new AnswerTimeoutException("no first byte in 60000 ms")))
                .isEqualTo(AttemptOutcome.ANSWER_TIMED_OUT);
        assertThat(FailureClassifier.classify(new IOException("wrapped", new AnswerTimeoutException("x"))))
                .isEqualTo(AttemptOutcome.ANSWER_TIMED_OUT);
        assertThat(AgentFailure.reasonOf(new AnswerTimeoutException("x"))).isEqualTo("timed out");
        AgentMarkedDownException down = new AgentMarkedDownException(
                "agent http://h:1 was marked down by its health checks while the call waited for an answer");
        assertThat(FailureClassifier.classify(down)).isEqualTo(AttemptOutcome.FAILED_AFTER_SEND);
        assertThat(AgentFailure.reasonOf(down)).isEqualTo("marked down by health checks");
    }
}
