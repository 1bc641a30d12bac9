package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;

/**
 * The client stopped sending the rest of its request body ({@link BodyRest}) for the endpoint's
 * {@code firstByteTimeout} while the agent was ready for more: the client's slowness, not the
 * agent's. The attempt ends {@link AttemptOutcome#CANCELLED}, so it counts neither against the
 * agent nor for it, and is never retried; a route answers it 408 and closes the connection (the
 * rest of the body would otherwise be read as a next request).
 */
public class RequestBodyTimeoutException extends Exception implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    private final long waitedMs;

    /**
     * @param message  what timed out, e.g. which agent waited how long
     * @param waitedMs how long the agent waited for more of the body, ms
     */
    public RequestBodyTimeoutException(String message, long waitedMs) {
        super(message);
        this.waitedMs = waitedMs;
    }

    /** @return how long the agent waited for more of the body, ms (a route's answer names the agent as it likes) */
    public long waitedMs() {
        return waitedMs;
    }

    /** @return {@link AttemptOutcome#CANCELLED} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.CANCELLED;
    }
}
