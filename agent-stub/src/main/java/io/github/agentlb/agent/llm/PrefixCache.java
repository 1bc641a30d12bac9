package io.github.agentlb.agent.llm;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model of an LLM server's prefix cache (vLLM's automatic prefix caching): the prompt text is
 * cut into blocks of {@code blockChars} characters, each block named by a chained hash, and an
 * LRU holds at most {@code capacityBlocks} of them.
 *
 * <p>Design, after vLLM's design note "Automatic Prefix Caching"
 * (docs.vllm.ai/en/latest/design/prefix_caching/, {@code docs/design/prefix_caching.md}):
 * <ul>
 *   <li>A block's hash covers its own text and every block before it, so a block hits only when
 *       the whole prefix up to it matches: {@code h(0) = FNV-1a 64(block 0)},
 *       {@code h(i) = FNV-1a 64 continued from h(i-1) over block i} (UTF-8 bytes).</li>
 *   <li>Only full blocks are cached: the tail shorter than {@code blockChars} is never a block.</li>
 *   <li>The cached prefix of a request is the longest run of leading blocks present.</li>
 *   <li>{@link #admit} looks the prefix up and inserts the rest when the request is admitted (vLLM
 *       looks up and allocates when its scheduler admits the request, and caches a full block at
 *       once so that requests in the same batch share it), not when the answer ends.</li>
 *   <li>Eviction is least recently used. vLLM frees a request's blocks in reverse order so that
 *       the last block, which hashes the most tokens and is least likely to be shared, is evicted
 *       first; {@link #admit} touches blocks last to first for the same effect.</li>
 * </ul>
 * Simplification: vLLM never evicts a block a running request holds (reference count); here
 * every block is evictable, so a capacity below one prompt's blocks thrashes.
 *
 * <p>Cost: O(prompt characters) to hash, O(blocks) per admission. Not thread-safe: {@link LlmModel}
 * serializes access.
 */
public final class PrefixCache {

    /** FNV-1a 64 offset basis. */
    static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    /** FNV-1a 64 prime. */
    static final long FNV_PRIME = 0x100000001b3L;

    private final int blockChars;
    private final int capacityBlocks;
    /** Block hash to presence, in access order: the eldest entry is the least recently used. */
    private final LinkedHashMap<Long, Boolean> blocks;
    private long blocksQueried;
    private long blocksHit;

    /**
     * @param blockChars     characters per block, &gt;= 1
     * @param capacityBlocks blocks held at most, &gt;= 1
     * @throws IllegalArgumentException naming the field and value when one is out of range
     */
    public PrefixCache(int blockChars, int capacityBlocks) {
        if (blockChars < 1) {
            throw new IllegalArgumentException("blockChars must be >= 1, was " + blockChars);
        }
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("capacityBlocks must be >= 1, was " + capacityBlocks);
        }
        this.blockChars = blockChars;
        this.capacityBlocks = capacityBlocks;
        this.blocks = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > PrefixCache.this.capacityBlocks;
            }
        };
    }

    /**
     * The chained hashes of the full blocks of {@code text}: {@code text.length() / blockChars}
     * of them, block 0 first. Pure; O(text length).
     *
     * @param text       the prompt's canonical text, see {@link PromptText}
     * @param blockChars characters per block, &gt;= 1
     */
    public static long[] blockHashes(String text, int blockChars) {
        if (blockChars < 1) {
            throw new IllegalArgumentException("blockChars must be >= 1, was " + blockChars);
        }
        long[] hashes = new long[text.length() / blockChars];
        long h = FNV_OFFSET_BASIS;
        for (int i = 0; i < hashes.length; i++) {
            byte[] bytes = text.substring(i * blockChars, (i + 1) * blockChars).getBytes(StandardCharsets.UTF_8);
            for (byte b : bytes) {
                h ^= b & 0xff;
                h *= FNV_PRIME;
            }
            hashes[i] = h;
        }
        return hashes;
    }

    /**
     * Admits a request's blocks: counts the leading run already cached, then inserts the missing
     * blocks and touches all, last block first, evicting the least recently used beyond capacity.
     * O(blocks).
     *
     * @param hashes the request's {@link #blockHashes}, block 0 first
     * @return the cached prefix, in blocks: 0..{@code hashes.length}
     */
    public int admit(long[] hashes) {
        int hit = 0;
        while (hit < hashes.length && blocks.containsKey(hashes[hit])) {
            hit++;
        }
        // Hits first, so that inserting the missing blocks cannot evict them (vLLM touches the
        // computed blocks before it allocates); then the missing blocks, last first; then the hits
        // again, so that recency runs from the last block (evicted first) to block 0.
        touch(hashes, hit);
        for (int i = hashes.length - 1; i >= hit; i--) {
            blocks.put(hashes[i], Boolean.TRUE);
        }
        touch(hashes, hit);
        blocksQueried += hashes.length;
        blocksHit += hit;
        return hit;
    }

    private void touch(long[] hashes, int count) {
        for (int i = count - 1; i >= 0; i--) {
            blocks.put(hashes[i], Boolean.TRUE);
        }
    }

    /** Whether a block is cached, without touching it. */
    public boolean contains(long hash) {
        return blocks.containsKey(hash);
    }

    /** The cached block hashes, least recently used (next evicted) first. O(blocks cached). */
    List<Long> lruOrder() {
        return new ArrayList<>(blocks.keySet());
    }

    /** Blocks cached now, 0..{@link #capacityBlocks()}. */
    public int usedBlocks() {
        return blocks.size();
    }

    /** Blocks held at most. */
    public int capacityBlocks() {
        return capacityBlocks;
    }

    /** Characters per block. */
    public int blockChars() {
        return blockChars;
    }

    /** Fraction of the capacity in use, 0..1. */
    public double usage() {
        return (double) blocks.size() / capacityBlocks;
    }

    /** Prompt blocks admitted so far, hit or not. */
    public long blocksQueried() {
        return blocksQueried;
    }

    /** Prompt blocks admitted so far that were cached. */
    public long blocksHit() {
        return blocksHit;
    }
}
