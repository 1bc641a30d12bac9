package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.ClassifiedFailure;

/**
 * The request arrived naming {@code agentlb} in its {@code Via} {@value Hops#MAX_BALANCER_HOPS}
 * times or more (this balancer would be one more): a loop (an agent address that leads back to a balancer)
 * or a client's spoof, which this balancer cannot tell apart. It is sent to no agent; the attempt
 * ends {@link AttemptOutcome#CANCELLED}, so it counts against no agent and is never retried (a
 * client cannot get agents ejected with it). In a real loop the outer passes then get the route's
 * answer to it from the address that leads back; answered with an error status (500, 502, 503 or
 * 504 by default: the README route's and the demo proxy's 502 {@code loop detected}), it counts
 * against that address as any error answer does, which is then ejected. Not 508 (Loop Detected),
 * which no balancer counts as an error unless told ({@code errorStatuses}).
 */
public class RequestLoopException extends Exception implements ClassifiedFailure {
    private static final long serialVersionUID = 1L;

    /** @param message how many balancers the request passed, and which agent was not called */
    public RequestLoopException(String message) {
        super(message);
    }

    /** @return {@link AttemptOutcome#CANCELLED} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.CANCELLED;
    }
}
