package io.github.agentlb.agent.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The prefix cache model: chained block hashes (FNV-1a 64 vectors), hits, misses, LRU order, capacity. */
class PrefixCacheTest {

    @Test
    void blockHashesAreFnv1a64ChainedOverTheWholePrefix() {
        // Official FNV-1a 64 vectors: "a", "foo", "foobar".
        assertThat(PrefixCache.blockHashes("a", 1)).containsExactly(0xaf63dc4c8601ec8cL);
        assertThat(PrefixCache.blockHashes("foobar", 3)).containsExactly(0xdcb27518fed9d577L, 0x85944171f73967e8L);
    }

    @Test
    void onlyFullBlocksCountAndABlockDependsOnEveryBlockBeforeIt() {
        assertThat(PrefixCache.blockHashes("abcde", 2)).hasSize(2);
        assertThat(PrefixCache.blockHashes("a", 2)).isEmpty();
        long[] one = PrefixCache.blockHashes("abcd", 2);
        long[] other = PrefixCache.blockHashes("xxcd", 2);
        assertThat(one[1]).isNotEqualTo(other[1]);
        assertThat(PrefixCache.blockHashes("abcdef", 2)).startsWith(one);
    }

    @Test
    void theCachedPrefixIsTheLongestRunOfLeadingBlocksPresent() {
        PrefixCache cache = new PrefixCache(2, 100);

        assertThat(cache.admit(PrefixCache.blockHashes("aabbcc", 2))).isZero();
        assertThat(cache.admit(PrefixCache.blockHashes("aabbcc", 2))).isEqualTo(3);
        assertThat(cache.admit(PrefixCache.blockHashes("aabbccdd", 2))).isEqualTo(3);
        assertThat(cache.admit(PrefixCache.blockHashes("aabbxx", 2))).isEqualTo(2);
        // Same second and third block text after another first block: nothing matches.
        assertThat(cache.admit(PrefixCache.blockHashes("zzbbcc", 2))).isZero();

        assertThat(cache.blocksQueried()).isEqualTo(3 + 3 + 4 + 3 + 3);
        assertThat(cache.blocksHit()).isEqualTo(0 + 3 + 3 + 2 + 0);
        assertThat(cache.usedBlocks()).isEqualTo(3 + 1 + 1 + 3);
    }

    @Test
    void aRequestsLastBlockIsEvictedFirstAndItsFirstBlockLast() {
        PrefixCache cache = new PrefixCache(2, 4);
        long[] a = PrefixCache.blockHashes("a1a2a3", 2);
        long[] b = PrefixCache.blockHashes("b1b2", 2);

        cache.admit(a);
        assertThat(cache.lruOrder()).containsExactly(a[2], a[1], a[0]);
        cache.admit(b);
        // Capacity 4: b's two blocks evict a's last block.
        assertThat(cache.lruOrder()).containsExactly(a[1], a[0], b[1], b[0]);
        assertThat(cache.usedBlocks()).isEqualTo(4);
        assertThat(cache.usage()).isEqualTo(1.0);

        // A hit is touched before the missing blocks go in, so a[0] survives its own insertions.
        assertThat(cache.admit(PrefixCache.blockHashes("a1c2c3", 2))).isEqualTo(1);
        long[] c = PrefixCache.blockHashes("a1c2c3", 2);
        assertThat(c[0]).isEqualTo(a[0]);
        assertThat(cache.lruOrder()).containsExactly(b[0], c[2], c[1], c[0]);
        assertThat(cache.contains(a[1])).isFalse();
    }

    @Test
    void aPromptLongerThanTheCapacityKeepsItsFirstBlocks() {
        PrefixCache cache = new PrefixCache(1, 2);
        long[] h = PrefixCache.blockHashes("abcd", 1);

        assertThat(cache.admit(h)).isZero();

        assertThat(cache.lruOrder()).containsExactly(h[1], h[0]);
        assertThat(cache.usage()).isEqualTo(1.0);
        assertThat(cache.admit(h)).isEqualTo(2);
    }

    @Test
    void badSizesNameTheFieldAndTheValue() {
        assertThatThrownBy(() -> new PrefixCache(0, 1)).hasMessage("blockChars must be >= 1, was 0");
        assertThatThrownBy(() -> new PrefixCache(1, 0)).hasMessage("capacityBlocks must be >= 1, was 0");
        assertThatThrownBy(() -> PrefixCache.blockHashes("x", -1)).hasMessage("blockChars must be >= 1, was -1");
    }
}
