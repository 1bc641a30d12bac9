package io.github.agentlb.core.shared;

import io.github.agentlb.core.Check;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One published virtual node allocation: the counts per agent the leader routes by, so that every
 * replica that installs it builds the same ring ({@code HashRing.of(counts, hash)} is a pure
 * function of them).
 *
 * @param generation       1, 2, ...: each publication is one more than the allocation it replaces,
 *                         whoever the leader; a replica installs only a higher one
 * @param leaderEpoch      1, 2, ...: one more each time another replica takes over the publishing
 * @param membershipDigest {@link #digestOf(Collection)} of the agents the counts were computed for;
 *                         a replica whose members differ does not install it
 * @param virtualNodes     agent id to its virtual nodes, each >= 1, sorted by id
 */
public record Allocation(long generation, long leaderEpoch, String membershipDigest, SortedMap<String, Integer> virtualNodes) {

    /**
     * The largest generation and leader epoch, 2^62: no balancer reaches it (a million publications a
     * second for 146,000 years), so a larger stored one is foreign, and a leader can always count on.
     */
    public static final long MAX_GENERATION = 1L << 62;

    /**
     * @throws IllegalArgumentException if the generation or epoch is {@code < 1} or above {@link #MAX_GENERATION}, the digest blank, the
     *                                  counts empty, an id blank or a count {@code < 1}
     */
    public Allocation {
        if (generation < 1) {
            throw new IllegalArgumentException("generation must be >= 1, was " + generation);
        }
        if (leaderEpoch < 1) {
            throw new IllegalArgumentException("leaderEpoch must be >= 1, was " + leaderEpoch);
        }
        if (generation > MAX_GENERATION || leaderEpoch > MAX_GENERATION) {
            String field = generation > MAX_GENERATION ? "generation" : "leaderEpoch";
            throw new IllegalArgumentException(field + " must be <= " + MAX_GENERATION + ", was "
                    + (generation > MAX_GENERATION ? generation : leaderEpoch));
        }
        Check.notBlank("membershipDigest", membershipDigest);
        Check.notEmpty("virtualNodes", virtualNodes == null ? null : virtualNodes.keySet());
        SortedMap<String, Integer> copy = new TreeMap<>();
        for (Map.Entry<String, Integer> e : virtualNodes.entrySet()) {
            Check.notBlank("agent id", e.getKey());
            if (e.getValue() == null || e.getValue() < 1) {
                throw new IllegalArgumentException("virtual nodes of " + e.getKey() + " must be >= 1, was " + e.getValue());
            }
            copy.put(e.getKey(), e.getValue());
        }
        virtualNodes = Collections.unmodifiableSortedMap(copy);
    }

    /** The allocation of {@code virtualNodes} for their agents, digest computed. */
    public static Allocation of(long generation, long leaderEpoch, Map<String, Integer> virtualNodes) {
        return new Allocation(generation, leaderEpoch, digestOf(virtualNodes.keySet()), new TreeMap<>(virtualNodes));
    }

    /**
     * SHA-256 (hex, first 16 bytes) of the sorted agent ids joined by newlines: equal on every
     * replica with the same members, whatever their order. O(n log n).
     */
    public static String digestOf(Collection<String> agentIds) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String id : new TreeSet<>(agentIds)) {
                sha.update(id.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) '\n');
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    /**
     * Why a replica with {@code members} that installed {@code installedGeneration} must not
     * install this allocation, or empty when it may: not newer, a digest that does not match its
     * members, or counts for other agents than its members.
     */
    public Optional<String> rejection(long installedGeneration, Collection<String> members) {
        if (generation <= installedGeneration) {
            return Optional.of("generation " + generation + " is not newer than the installed " + installedGeneration);
        }
        if (!membershipDigest.equals(digestOf(members))) {
            return Optional.of("membership digest " + membershipDigest + " differs from this replica's " + digestOf(members));
        }
        if (!virtualNodes.keySet().equals(new TreeSet<>(members))) {
            return Optional.of("agents " + virtualNodes.keySet() + " differ from this replica's " + new TreeSet<>(members));
        }
        return Optional.empty();
    }

    /** The next generation with new counts, by the leader of {@code epoch}. */
    public Allocation next(long epoch, Map<String, Integer> counts) {
        return of(generation + 1, epoch, counts);
    }
}
