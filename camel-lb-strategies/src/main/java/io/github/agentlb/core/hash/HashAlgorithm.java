package io.github.agentlb.core.hash;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The hash functions a ring can use, selectable by name ({@link #fromName}).
 *
 * <ul>
 *   <li>{@link #MD5}: the first 8 bytes of the MD5 digest, big-endian. This keeps the order of
 *       the full 128-bit value that ketama and the original assignment use
 *       ({@code int(md5(s).hexdigest(), 16)}), so rings built on the same labels agree.
 *   <li>{@code FNV1_*}, {@code FNV1A_*}: Fowler/Noll/Vo FNV-1 and FNV-1a, 32 and 64 bits, exactly as
 *       in the reference (checked against the official test vectors). Bare FNV clusters points of
 *       similar labels; prefer the {@code *_MIXED} variants (FNV followed by {@link #fmix64}) on a ring.
 * </ul>
 *
 * <p>All constants are stateless and thread-safe. Cost: O(n) in the input length.
 */
public enum HashAlgorithm implements HashFunction {
    MD5 {
        @Override
        public long hash(byte[] input) {
            byte[] digest = MD5_DIGEST.get().digest(input);
            long value = 0;
            for (int i = 0; i < 8; i++) {
                value = (value << 8) | (digest[i] & 0xff);
            }
            return value;
        }
    },
    /** FNV-1, 32-bit: {@code h = (h * 16777619) ^ b}, offset basis 2166136261. */
    FNV1_32 {
        @Override
        public long hash(byte[] input) {
            int h = FNV32_OFFSET;
            for (byte b : input) {
                h *= FNV32_PRIME;
                h ^= b & 0xff;
            }
            return h & 0xffffffffL;
        }
    },
    /** FNV-1a, 32-bit: {@code h = (h ^ b) * 16777619}. */
    FNV1A_32 {
        @Override
        public long hash(byte[] input) {
            int h = FNV32_OFFSET;
            for (byte b : input) {
                h ^= b & 0xff;
                h *= FNV32_PRIME;
            }
            return h & 0xffffffffL;
        }
    },
    /** FNV-1, 64-bit: {@code h = (h * 1099511628211) ^ b}, offset basis 14695981039346656037. */
    FNV1_64 {
        @Override
        public long hash(byte[] input) {
            long h = FNV64_OFFSET;
            for (byte b : input) {
                h *= FNV64_PRIME;
                h ^= b & 0xff;
            }
            return h;
        }
    },
    /** FNV-1a, 64-bit: {@code h = (h ^ b) * 1099511628211}. */
    FNV1A_64 {
        @Override
        public long hash(byte[] input) {
            long h = FNV64_OFFSET;
            for (byte b : input) {
                h ^= b & 0xff;
                h *= FNV64_PRIME;
            }
            return h;
        }
    },
    /** FNV-1 64-bit followed by {@link #fmix64}: FNV-1 that spreads similar labels evenly. */
    FNV1_64_MIXED {
        @Override
        public long hash(byte[] input) {
            return fmix64(FNV1_64.hash(input));
        }
    },
    /** FNV-1a 64-bit followed by {@link #fmix64}. */
    FNV1A_64_MIXED {
        @Override
        public long hash(byte[] input) {
            return fmix64(FNV1A_64.hash(input));
        }
    };

    private static final int FNV32_OFFSET = 0x811c9dc5;
    private static final int FNV32_PRIME = 0x01000193;
    private static final long FNV64_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV64_PRIME = 0x100000001b3L;

    private static final ThreadLocal<MessageDigest> MD5_DIGEST = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every Java platform", e);
        }
    });

    /**
     * MurmurHash3's 64-bit finalizer (Austin Appleby): a bijection that makes every input bit
     * affect every output bit.
     */
    public static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    /** The configuration name: lower case with dashes, e.g. {@code fnv1a-64-mixed}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Parses a configuration name such as {@code md5}, {@code fnv1-32} or {@code FNV1A_64_MIXED}.
     *
     * @throws IllegalArgumentException naming the value if no algorithm has that name
     */
    public static HashAlgorithm fromName(String name) {
        if (name != null) {
            String normalized = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
            for (HashAlgorithm algorithm : values()) {
                if (algorithm.name().equals(normalized)) {
                    return algorithm;
                }
            }
        }
        throw new IllegalArgumentException("hashAlgorithm must be one of md5, fnv1-32, fnv1a-32, fnv1-64, "
                + "fnv1a-64, fnv1-64-mixed, fnv1a-64-mixed; was " + name);
    }
}
