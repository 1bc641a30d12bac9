package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;
import io.github.agentlb.camel.FailoverPolicy;
import java.util.concurrent.TimeoutException;

/**
 * The request reached the agent and no answer began in time (the endpoint's
 * {@code firstByteTimeout}), or the answer did not end within its {@code requestTimeout} before
 * its first byte went to the client: the attempt ends {@link AttemptOutcome#ANSWER_TIMED_OUT},
 * which counts against the agent and fails over only where
 * {@link FailoverPolicy#failOverOnAnswerTimeout()} allows. A route answers it 504.
 */
public class AnswerTimeoutException extends TimeoutException implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    /** @param message what timed out, e.g. which agent after how long */
    public AnswerTimeoutException(String message) {
        super(message);
    }

    /** @return {@link AttemptOutcome#ANSWER_TIMED_OUT} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.ANSWER_TIMED_OUT;
    }
}
