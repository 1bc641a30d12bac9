/**
 * Stable hash functions for rings ({@link io.github.agentlb.core.hash.HashFunction}): MD5 and FNV-1
 * and FNV-1a in 32 and 64 bits, with mixed variants ({@link io.github.agentlb.core.hash.HashAlgorithm},
 * selected by name as {@code hashFunction}). The same input gives the same position in every JVM.
 */
package io.github.agentlb.core.hash;
