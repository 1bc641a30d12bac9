package io.github.agentlb.camel;

/**
 * An exchange waiting in its balancer's queue ({@link FlowControl}): set as exchange property
 * {@value AgentLb#QUEUED_PROPERTY} while it waits, removed when it is released, expires or leaves.
 * A consumer that sees its client go (a closed connection) calls {@link #leave()}: the exchange is
 * taken out of the queue at once, no agent ever gets its request, and it completes with a
 * {@link org.apache.camel.CamelExchangeException} saying the client left. Thread-safe.
 */
public interface QueuedExchange {

    /**
     * Takes the exchange out of the queue at once, as its client left.
     *
     * @return whether it was still waiting (false when it was released, expired or left before)
     */
    boolean leave();
}
