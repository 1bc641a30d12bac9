package io.github.agentlb.agent.llm;

/**
 * How the agent models an LLM server behind {@code POST /v1/chat/completions}: a prefix cache,
 * a prefill cost per uncached block, a limit on requests generating at once with a bounded FIFO
 * queue, and MCP-style sessions. Each part is off in {@link #DISABLED} (the default), so an agent
 * configured with it answers as before.
 *
 * <p>Time to first token, counted from admission (the moment a running slot is free):
 * {@code firstTokenMs + uncachedBlockMs * (prompt blocks - cached prefix blocks)}; then tokens
 * at {@code tokensPerSecond} (see {@code ChatShape}).
 *
 * <p>Immutable; the constructor validates and throws {@link IllegalArgumentException} naming the
 * field and value. Build one with {@link #custom()}.
 *
 * @param blockChars      characters per prompt block, 1..{@value #MAX_BLOCK_CHARS}
 * @param cacheBlocks     prefix cache capacity, blocks, 0..{@value #MAX_CACHE_BLOCKS}; 0 = no cache
 * @param uncachedBlockMs prefill time per uncached prompt block, ms, finite, 0..{@value #MAX_UNCACHED_BLOCK_MS}
 * @param maxRunning      requests generating at once, 0..{@value #MAX_LIMIT}; 0 = no limit
 * @param maxQueue        requests waiting for a slot at most, 0..{@value #MAX_LIMIT}; beyond it 429
 * @param mintSessions    whether the agent mints an {@code Mcp-Session-Id} on an answer to a
 *                        request without one and answers 404 to a request with an unknown one
 */
public record LlmShape(int blockChars, int cacheBlocks, double uncachedBlockMs, int maxRunning, int maxQueue,
                       boolean mintSessions) {

    /** Default block size: 64 characters (about 16 tokens, vLLM's default block size). */
    public static final int DEFAULT_BLOCK_CHARS = 64;
    /** Default cache capacity: 0, no prefix cache. */
    public static final int DEFAULT_CACHE_BLOCKS = 0;
    /** Default prefill cost: 0 ms per uncached block. */
    public static final double DEFAULT_UNCACHED_BLOCK_MS = 0;
    /** Default running limit: 0, none. */
    public static final int DEFAULT_MAX_RUNNING = 0;
    /** Default queue bound: 100 requests. */
    public static final int DEFAULT_MAX_QUEUE = 100;
    /** Largest block size accepted. */
    public static final int MAX_BLOCK_CHARS = 1_000_000;
    /** Largest cache capacity accepted, blocks. */
    public static final int MAX_CACHE_BLOCKS = 10_000_000;
    /** Largest prefill cost accepted, ms per block. */
    public static final double MAX_UNCACHED_BLOCK_MS = 60_000;
    /** Largest running limit or queue bound accepted. */
    public static final int MAX_LIMIT = 1_000_000;
    /** Every part off: no cache, no prefill cost, no limit, no sessions. */
    public static final LlmShape DISABLED = new LlmShape(DEFAULT_BLOCK_CHARS, DEFAULT_CACHE_BLOCKS,
            DEFAULT_UNCACHED_BLOCK_MS, DEFAULT_MAX_RUNNING, DEFAULT_MAX_QUEUE, false);

    /** @throws IllegalArgumentException naming the field and value when one is out of range */
    public LlmShape {
        range("blockChars", blockChars, 1, MAX_BLOCK_CHARS);
        range("cacheBlocks", cacheBlocks, 0, MAX_CACHE_BLOCKS);
        if (!(uncachedBlockMs >= 0 && uncachedBlockMs <= MAX_UNCACHED_BLOCK_MS)) {
            throw new IllegalArgumentException(
                    "uncachedBlockMs must be in [0, " + (long) MAX_UNCACHED_BLOCK_MS + "], was " + uncachedBlockMs);
        }
        range("maxRunning", maxRunning, 0, MAX_LIMIT);
        range("maxQueue", maxQueue, 0, MAX_LIMIT);
    }

    /** A builder starting from {@link #DISABLED}. */
    public static Builder custom() {
        return new Builder(DISABLED);
    }

    /** A builder holding these values, to derive a variant. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Whether the prefix cache is on. */
    public boolean cacheEnabled() {
        return cacheBlocks > 0;
    }

    /** Whether requests beyond {@link #maxRunning()} wait or are refused. */
    public boolean limited() {
        return maxRunning > 0;
    }

    /** The prefill time of {@code uncachedBlocks} blocks, ns, rounded. */
    public long prefillNanos(int uncachedBlocks) {
        return Math.round(uncachedBlocks * uncachedBlockMs * 1e6);
    }

    private static void range(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " must be in " + min + ".." + max + ", was " + value);
        }
    }

    /** Builder of {@link LlmShape}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private int blockChars;
        private int cacheBlocks;
        private double uncachedBlockMs;
        private int maxRunning;
        private int maxQueue;
        private boolean mintSessions;

        private Builder(LlmShape from) {
            blockChars = from.blockChars;
            cacheBlocks = from.cacheBlocks;
            uncachedBlockMs = from.uncachedBlockMs;
            maxRunning = from.maxRunning;
            maxQueue = from.maxQueue;
            mintSessions = from.mintSessions;
        }

        /** Characters per prompt block, 1..{@value LlmShape#MAX_BLOCK_CHARS}. */
        public Builder blockChars(int value) {
            range("blockChars", value, 1, MAX_BLOCK_CHARS);
            blockChars = value;
            return this;
        }

        /** Prefix cache capacity, blocks, 0 = no cache. */
        public Builder cacheBlocks(int value) {
            range("cacheBlocks", value, 0, MAX_CACHE_BLOCKS);
            cacheBlocks = value;
            return this;
        }

        /** Prefill time per uncached block, ms, in [0, {@value LlmShape#MAX_UNCACHED_BLOCK_MS}]. */
        public Builder uncachedBlockMs(double value) {
            uncachedBlockMs = new LlmShape(blockChars, cacheBlocks, value, maxRunning, maxQueue, mintSessions)
                    .uncachedBlockMs();
            return this;
        }

        /** Requests generating at once, 0 = no limit. */
        public Builder maxRunning(int value) {
            range("maxRunning", value, 0, MAX_LIMIT);
            maxRunning = value;
            return this;
        }

        /** Requests waiting for a slot at most; 0 = refuse at once when every slot is taken. */
        public Builder maxQueue(int value) {
            range("maxQueue", value, 0, MAX_LIMIT);
            maxQueue = value;
            return this;
        }

        /** Whether to mint {@code Mcp-Session-Id}s and refuse unknown ones with 404. */
        public Builder mintSessions(boolean value) {
            mintSessions = value;
            return this;
        }

        /** The shape. */
        public LlmShape build() {
            return new LlmShape(blockChars, cacheBlocks, uncachedBlockMs, maxRunning, maxQueue, mintSessions);
        }
    }
}
