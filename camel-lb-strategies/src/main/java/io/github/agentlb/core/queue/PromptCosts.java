package io.github.agentlb.core.queue;

/**
 * What a queued request is charged, in tokens, by {@link FairQueue}'s fairness: its prompt's
 * estimate when it has a body; for one without (a GET, an MCP call by header), which holds an
 * agent's place as long as any, the mean estimate of the requests with one seen so far (a plain
 * mean of the first {@value #WINDOW}, then an exponential one of weight 1/{@value #WINDOW}), and
 * 1 token before any was seen. No request is free: else a tenant of GETs stays the least served
 * and goes ahead of every tenant that sends prompts, however many it sends, and tenants of GETs
 * alone would leave in arrival order instead of taking turns.
 *
 * <p>Not thread-safe: the caller serializes calls (the Camel adapter under its queue's lock).
 */
public final class PromptCosts {

    /** Requests over which the mean is a plain one before it becomes exponential. */
    public static final int WINDOW = 100;

    private long seen;
    private double mean;

    /**
     * @param promptTokens the request's prompt estimate ({@link FairQueue#estimateTokens}), 0 when it
     *                     has no body
     * @return its cost in tokens, > 0; a request with a body is also counted into the mean
     */
    public double costOf(long promptTokens) {
        if (promptTokens > 0) {
            seen = Math.min(seen + 1, WINDOW);
            mean += (promptTokens - mean) / seen;
            return promptTokens;
        }
        return seen == 0 ? 1 : mean;
    }
}
