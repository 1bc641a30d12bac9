package io.github.agentlb.core.queue;

/**
 * What a queued request is charged, in tokens, by {@link FairQueue}'s fairness: its prompt's
 * estimate when it has a body; for one without (a GET, an MCP call by header), which holds an
 * agent's place as long as any, the typical prompt estimate, so that no request is free. Else a
 * tenant of GETs stays the least served and goes ahead of every tenant that sends prompts, however
 * many it sends, and tenants of GETs alone leave in arrival order instead of taking turns.
 *
 * <p>Typical: the mean prompt estimate of the requests with a body seen so far, a plain mean of
 * the first {@value #WINDOW}, then an exponential one of weight 1/{@value #WINDOW}; each prompt
 * after the first counts into it at most {@value #OUTLIER_FACTOR} times the mean before it, so that
 * one huge prompt does not set the price of every GET; 1 token before any was seen.
 *
 * <p>What it cannot see: a request's answer, when it streams, and so the time it holds its place.
 * A body of a few bytes is charged its few tokens (a tenant sending many such requests is served
 * as a light one): {@code maxInFlightPerTenant} bounds the places any tenant takes beside others.
 *
 * <p>Not thread-safe: the caller serializes calls (the Camel adapter under its queue's lock).
 */
public final class PromptCosts {

    /** Requests over which the mean is a plain one before it becomes exponential. */
    public static final int WINDOW = 100;

    /** The most a prompt after the first counts into the mean, in means before it. */
    public static final int OUTLIER_FACTOR = 4;

    private long seen;
    private double mean;

    /**
     * @param promptTokens the request's prompt estimate ({@link FairQueue#estimateTokens}), 0 when it
     *                     has no body
     * @return its cost in tokens, > 0; a request with a body is also counted into the mean
     */
    public double costOf(long promptTokens) {
        if (promptTokens > 0) {
            double counted = seen == 0 ? promptTokens : Math.min(promptTokens, OUTLIER_FACTOR * mean);
            seen = Math.min(seen + 1, WINDOW);
            mean += (counted - mean) / seen;
            return promptTokens;
        }
        return seen == 0 ? 1 : mean;
    }
}
