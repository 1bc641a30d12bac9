package io.github.agentlb.agent;

/**
 * How the agent's {@code POST /v1/chat/completions} answers, shaped like an LLM's: the time to the
 * first token, then tokens at a steady rate. Immutable; the constructor validates and throws
 * {@link IllegalArgumentException} naming the field and value.
 *
 * @param firstTokenMs    time from the request to the first token, ms, 0..{@value AgentConfig#MAX_DELAY_MS}
 * @param tokensPerSecond tokens produced per second after the first, &gt; 0 and &lt;= 100000
 * @param answerTokens    tokens in an answer when the request names no {@code max_tokens}, 1..{@value #MAX_TOKENS}
 */
public record ChatShape(int firstTokenMs, double tokensPerSecond, int answerTokens) {

    /** Default time to first token: 200 ms. */
    public static final int DEFAULT_FIRST_TOKEN_MS = 200;
    /** Default rate: 50 tokens/s. */
    public static final double DEFAULT_TOKENS_PER_SECOND = 50;
    /** Default answer length: 32 tokens. */
    public static final int DEFAULT_ANSWER_TOKENS = 32;
    /** Most tokens one answer may have, whatever {@code max_tokens} asks. */
    public static final int MAX_TOKENS = 100_000;
    /** The defaults above. */
    public static final ChatShape DEFAULTS =
            new ChatShape(DEFAULT_FIRST_TOKEN_MS, DEFAULT_TOKENS_PER_SECOND, DEFAULT_ANSWER_TOKENS);

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public ChatShape {
        if (firstTokenMs < 0 || firstTokenMs > AgentConfig.MAX_DELAY_MS) {
            throw new IllegalArgumentException("firstTokenMs must be in 0.." + AgentConfig.MAX_DELAY_MS + ", was " + firstTokenMs);
        }
        if (!(tokensPerSecond > 0 && tokensPerSecond <= 100_000)) {
            throw new IllegalArgumentException("tokensPerSecond must be > 0 and <= 100000, was " + tokensPerSecond);
        }
        if (answerTokens < 1 || answerTokens > MAX_TOKENS) {
            throw new IllegalArgumentException("answerTokens must be in 1.." + MAX_TOKENS + ", was " + answerTokens);
        }
    }

    /** Time between two tokens, ns. */
    public long tokenGapNanos() {
        return Math.round(1e9 / tokensPerSecond);
    }
}
