package io.github.agentlb.core.hash;

import java.security.DigestException;
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
 * <p>All constants are stateless and thread-safe. Cost: O(n) in the input length; {@link #hash(String)}
 * allocates nothing (a per-thread buffer holds the UTF-8 bytes).
 */
public enum HashAlgorithm implements HashFunction {
    MD5((input, length, scratch) -> firstEightBytes(scratch.md5(input, length))),
    /** FNV-1, 32-bit: {@code h = (h * 16777619) ^ b}, offset basis 2166136261. */
    FNV1_32((input, length, scratch) -> Fnv.FNV1_32.hash(input, length)),
    /** FNV-1a, 32-bit: {@code h = (h ^ b) * 16777619}. */
    FNV1A_32((input, length, scratch) -> Fnv.FNV1A_32.hash(input, length)),
    /** FNV-1, 64-bit: {@code h = (h * 1099511628211) ^ b}, offset basis 14695981039346656037. */
    FNV1_64((input, length, scratch) -> Fnv.FNV1_64.hash(input, length)),
    /** FNV-1a, 64-bit: {@code h = (h ^ b) * 1099511628211}. */
    FNV1A_64((input, length, scratch) -> Fnv.FNV1A_64.hash(input, length)),
    /** FNV-1 64-bit followed by {@link #fmix64}: FNV-1 that spreads similar labels evenly. */
    FNV1_64_MIXED((input, length, scratch) -> fmix64(Fnv.FNV1_64.hash(input, length))),
    /** FNV-1a 64-bit followed by {@link #fmix64}. */
    FNV1A_64_MIXED((input, length, scratch) -> fmix64(Fnv.FNV1A_64.hash(input, length)));

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final Hasher hasher;

    HashAlgorithm(Hasher hasher) {
        this.hasher = hasher;
    }

    /** A constant's function of the first {@code length} bytes of {@code input}. */
    @FunctionalInterface
    private interface Hasher {
        long hash(byte[] input, int length, Scratch scratch);
    }

    /**
     * One FNV variant by its parameters (the reference's offset basis and prime). The 32-bit
     * variants run in 64-bit arithmetic and keep the low 32 bits at the end: a product's and an
     * XOR's low 32 bits depend only on their operands' low 32 bits, so the result is exactly the
     * 32-bit reference value, zero-extended.
     *
     * @param offsetBasis the starting value
     * @param prime       the FNV prime of this width
     * @param mask        {@code 2^32 - 1} for 32 bits, all ones for 64
     * @param xorFirst    FNV-1a (XOR the byte, then multiply) rather than FNV-1 (multiply, then XOR)
     */
    private record Fnv(long offsetBasis, long prime, long mask, boolean xorFirst) {
        static final Fnv FNV1_32 = new Fnv(0x811c9dc5L, 0x01000193L, 0xffffffffL, false);
        static final Fnv FNV1A_32 = new Fnv(0x811c9dc5L, 0x01000193L, 0xffffffffL, true);
        static final Fnv FNV1_64 = new Fnv(0xcbf29ce484222325L, 0x100000001b3L, -1L, false);
        static final Fnv FNV1A_64 = new Fnv(0xcbf29ce484222325L, 0x100000001b3L, -1L, true);

        long hash(byte[] input, int length) {
            long h = offsetBasis;
            for (int i = 0; i < length; i++) {
                int b = input[i] & 0xff;
                h = xorFirst ? (h ^ b) * prime : (h * prime) ^ b;
            }
            return h & mask;
        }
    }

    /** The first 8 bytes of {@code digest}, big-endian. */
    private static long firstEightBytes(byte[] digest) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (digest[i] & 0xff);
        }
        return value;
    }

    /** Hashes the first {@code length} bytes of {@code input}; {@code scratch} is the calling thread's. */
    long hash(byte[] input, int length, Scratch scratch) {
        return hasher.hash(input, length, scratch);
    }

    @Override
    public long hash(byte[] input) {
        return hash(input, input.length, SCRATCH.get());
    }

    /**
     * Hashes the UTF-8 bytes of {@code text}, exactly as {@code hash(text.getBytes(UTF_8))}, but
     * without allocating: the text is encoded into a per-thread buffer. This is the per-request
     * path of a ring lookup.
     */
    @Override
    public long hash(String text) {
        Scratch scratch = SCRATCH.get();
        int length = scratch.encode(text);
        return hash(scratch.bytes, length, scratch);
    }

    /**
     * One thread's buffers: the UTF-8 bytes of the text being hashed, its MD5 digest object and
     * digest output. Not thread-safe: reached only through {@link #SCRATCH}.
     */
    static final class Scratch {
        private final MessageDigest md5;
        private final byte[] digest = new byte[16];
        byte[] bytes = new byte[64];

        Scratch() {
            try {
                md5 = MessageDigest.getInstance("MD5");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("MD5 is required of every Java platform", e);
            }
        }

        byte[] md5(byte[] input, int length) {
            md5.update(input, 0, length);
            try {
                md5.digest(digest, 0, digest.length);
            } catch (DigestException e) {
                throw new IllegalStateException("a 16-byte buffer holds an MD5 digest", e);
            }
            return digest;
        }

        /**
         * Writes the UTF-8 encoding of {@code text} into {@link #bytes} (grown as needed) and
         * returns its length. Like {@link String#getBytes(java.nio.charset.Charset)}, an unpaired
         * surrogate becomes {@code '?'}.
         */
        int encode(String text) {
            int n = text.length();
            if (bytes.length < 3 * n) {
                bytes = new byte[Math.max(3 * n, 2 * bytes.length)];
            }
            byte[] out = bytes;
            int k = 0;
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (c < 0x80) {
                    out[k++] = (byte) c;
                } else if (c < 0x800) {
                    out[k++] = (byte) (0xc0 | (c >> 6));
                    out[k++] = (byte) (0x80 | (c & 0x3f));
                } else if (Character.isSurrogate(c)) {
                    char low = i + 1 < n ? text.charAt(i + 1) : 0;
                    if (Character.isHighSurrogate(c) && Character.isLowSurrogate(low)) {
                        int cp = Character.toCodePoint(c, low);
                        i++;
                        out[k++] = (byte) (0xf0 | (cp >> 18));
                        out[k++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
                        out[k++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
                        out[k++] = (byte) (0x80 | (cp & 0x3f));
                    } else {
                        out[k++] = '?';
                    }
                } else {
                    out[k++] = (byte) (0xe0 | (c >> 12));
                    out[k++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                    out[k++] = (byte) (0x80 | (c & 0x3f));
                }
            }
            return k;
        }
    }

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

    /**
     * Whether this is a bare FNV function, which places similar labels and keys close together on
     * a ring ({@code user-0} to {@code user-299} on agents A1, A2, A3 of 150 virtual nodes:
     * {@code fnv1-32} puts all 300 on A1); MD5 and the {@code *_MIXED} variants spread them.
     */
    public boolean clustersSimilarLabels() {
        return this == FNV1_32 || this == FNV1A_32 || this == FNV1_64 || this == FNV1A_64;
    }

    /** The configuration name: lower case with dashes, e.g. {@code fnv1a-64-mixed}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Parses a configuration name such as {@code md5}, {@code fnv1-32} or {@code FNV1A_64_MIXED}.
     *
     * @throws IllegalArgumentException if no algorithm has that name, naming {@code hashFunction} (the
     *     JavaBean property and builder method that take the name) and the value
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
        throw new IllegalArgumentException("hashFunction must be one of md5, fnv1-32, fnv1a-32, fnv1-64, "
                + "fnv1a-64, fnv1-64-mixed, fnv1a-64-mixed; was " + name);
    }
}
