package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;
import java.io.IOException;

/**
 * The agent's answer is longer than the endpoint's {@code maxAnswerBytes}: announced so by its
 * {@code Content-Length} or held whole and found so (then nothing of it went to the client, and
 * the route answers, the README's route with a 502), or grown past it while it streamed (then the
 * client's connection was closed without the terminating chunk: the client sees the answer cut).
 * The limit is the route's, and the answer would be as long from any agent: the attempt ends
 * {@link AttemptOutcome#EXCEPTION_ANSWER}, never sent to another agent and not counted against
 * this one (no outlier ejection).
 */
public class AnswerTooLargeException extends IOException implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    /** @param message which agent, how many bytes, and the limit */
    public AnswerTooLargeException(String message) {
        super(message);
    }

    /** @return {@link AttemptOutcome#EXCEPTION_ANSWER} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.EXCEPTION_ANSWER;
    }
}
