package io.github.agentlb.camel;

import org.apache.camel.Exchange;

/**
 * The exchange waited in its balancer's queue ({@link FlowControl}) for {@code queueTimeout} and no
 * agent had room for it: no agent got its request. A {@link NoAgentAvailableException}, so a route
 * that maps that one to 503 answers this one with 503 too; a route that wants the gateway's 504
 * catches this one first.
 */
public class QueueTimeoutException extends NoAgentAvailableException {

    private static final long serialVersionUID = 1L;

    private final long waitedMillis;

    public QueueTimeoutException(String message, Exchange exchange, long waitedMillis) {
        super(message, exchange, null);
        this.waitedMillis = waitedMillis;
    }

    /** @return how long the exchange waited in the queue, ms */
    public long waitedMillis() {
        return waitedMillis;
    }
}
