package io.github.agentlb.camel;

/**
 * The callback of an exchange that may go back to wait in the queue that let it through, after a
 * busy answer when no other agent can take it: a {@link QueuePermit}, or the first leg of a hedged
 * request let through by one.
 */
interface WaitsAgain {

    /** @return true when the exchange waits again: this callback must then not be called */
    boolean waitAgain();
}
