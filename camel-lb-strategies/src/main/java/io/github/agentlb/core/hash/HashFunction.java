package io.github.agentlb.core.hash;

import java.nio.charset.StandardCharsets;

/**
 * A stable hash function that places keys and virtual nodes on a ring of unsigned 64-bit positions.
 *
 * <p>Implementations must be pure functions of their input bytes: the same bytes give the same
 * position in every JVM, instance and run, so a ring built twice maps every key the same way.
 * They must be thread-safe. A 32-bit function returns its value zero-extended (0..2^32-1); keys
 * and virtual nodes of one ring always use one function, so the smaller range changes nothing.
 */
@FunctionalInterface
public interface HashFunction {

    /**
     * Hashes the bytes.
     *
     * @param input the bytes, not modified
     * @return the position, read as an unsigned 64-bit value (compare with {@link Long#compareUnsigned})
     */
    long hash(byte[] input);

    /** Hashes the UTF-8 bytes of {@code text}. */
    default long hash(String text) {
        return hash(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Returns this function followed by MurmurHash3's 64-bit finalizer ({@link HashAlgorithm#fmix64}).
     * FNV over labels that differ only in their last characters ({@code uri:1}, {@code uri:2}, ...)
     * clusters ring points; the finalizer spreads them while keeping the function stable.
     */
    default HashFunction mixed() {
        return input -> HashAlgorithm.fmix64(hash(input));
    }
}
