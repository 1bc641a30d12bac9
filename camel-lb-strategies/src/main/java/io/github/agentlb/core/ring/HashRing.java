package io.github.agentlb.core.ring;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.hash.HashFunction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An immutable consistent-hash ring of virtual nodes.
 *
 * <p>Virtual node {@code i} of agent {@code a} sits at {@code hash(a + ":" + i)} (the label scheme
 * of the original assignment and of ketama), for {@code i = 0 .. n(a) - 1}. A key belongs to the
 * first point at or after its hash, wrapping past the largest point to the first. Points that
 * collide are ordered by agent id, then virtual node number, so the ring depends only on the set
 * of (agent, virtual node count) pairs and the hash function: never on insertion order, list
 * position or identity hash codes. Hence:
 * <ul>
 *   <li>a key maps to the same agent in every JVM and every instance built from the same agents;
 *   <li>removing an agent moves only the keys it owned, each to the next agent clockwise;
 *   <li>adding it back restores the earlier mapping exactly;
 *   <li>changing one agent's virtual node count from n to n+1 moves only the keys on the new
 *       point's arc (and n to n-1 only those on the removed point's arc).
 * </ul>
 *
 * <p>Thread-safe (immutable). Building costs O(v log v), a lookup O(log v) plus one hash of the
 * key, v = total virtual nodes. Positions are unsigned 64-bit values.
 */
public final class HashRing {

    private final HashFunction hashFunction;
    private final SortedMap<String, Integer> virtualNodes;
    private final long[] points;
    private final String[] owners;
    /** The virtual node number of each point, for {@link #withVirtualNodes} to drop the right ones. */
    private final int[] indices;

    private HashRing(HashFunction hashFunction, SortedMap<String, Integer> virtualNodes) {
        this.hashFunction = hashFunction;
        this.virtualNodes = Collections.unmodifiableSortedMap(virtualNodes);
        List<Point> all = new ArrayList<>();
        virtualNodes.forEach((agent, count) -> {
            for (int i = 0; i < count; i++) {
                all.add(new Point(hashFunction.hash(label(agent, i)), agent, i));
            }
        });
        all.sort(Point.ORDER);
        this.points = new long[all.size()];
        this.owners = new String[all.size()];
        this.indices = new int[all.size()];
        for (int i = 0; i < all.size(); i++) {
            points[i] = all.get(i).position;
            owners[i] = all.get(i).agent;
            indices[i] = all.get(i).index;
        }
    }

    private HashRing(HashFunction hashFunction, SortedMap<String, Integer> virtualNodes, long[] points,
            String[] owners, int[] indices) {
        this.hashFunction = hashFunction;
        this.virtualNodes = Collections.unmodifiableSortedMap(virtualNodes);
        this.points = points;
        this.owners = owners;
        this.indices = indices;
    }

    /**
     * Builds a ring with the given number of virtual nodes per agent.
     *
     * @param virtualNodes agent id to its number of virtual nodes (each >= 1); copied
     * @param hashFunction places labels and keys on the ring
     * @throws IllegalArgumentException if the map is empty, an agent id is null or blank, or a count is {@code < 1}
     */
    public static HashRing of(Map<String, Integer> virtualNodes, HashFunction hashFunction) {
        Objects.requireNonNull(hashFunction, "hashFunction");
        Check.notEmpty("agents", virtualNodes == null ? null : virtualNodes.keySet());
        SortedMap<String, Integer> copy = new TreeMap<>();
        virtualNodes.forEach((agent, count) -> {
            String field = "virtualNodes of " + Check.notBlank("agent id", agent);
            if (count == null) {
                throw new IllegalArgumentException(field + " must be >= 1, was null");
            }
            copy.put(agent, Check.atLeast(field, count, 1));
        });
        return new HashRing(hashFunction, copy);
    }

    /**
     * Builds a ring giving every agent the same number of virtual nodes.
     *
     * @throws IllegalArgumentException if {@code agents} is empty or has duplicates, or {@code virtualNodesPerAgent < 1}
     */
    public static HashRing uniform(Collection<String> agents, int virtualNodesPerAgent, HashFunction hashFunction) {
        Check.atLeast("virtualNodes", virtualNodesPerAgent, 1);
        Check.notEmpty("agents", agents);
        Map<String, Integer> counts = new TreeMap<>();
        for (String agent : agents) {
            if (counts.put(agent, virtualNodesPerAgent) != null) {
                throw new IllegalArgumentException("agents must be distinct, " + agent + " appears twice");
            }
        }
        return of(counts, hashFunction);
    }

    /** The label hashed for virtual node {@code index} of {@code agent}: {@code agent + ":" + index}. */
    public static String label(String agent, int index) {
        return agent + ":" + index;
    }

    /** The ring position of a key. */
    public long hash(String key) {
        return hashFunction.hash(key);
    }

    /** The agent owning {@code key}: the owner of the first point at or after its hash. O(log v). */
    public String agentFor(String key) {
        return owners[pointIndex(hash(key))];
    }

    /** The agent owning ring position {@code position} (unsigned). O(log v). */
    public String agentAt(long position) {
        return owners[pointIndex(position)];
    }

    /**
     * The distinct agents met walking clockwise from {@code position}: the owner first, then each
     * next agent in ring order, each once. This is the failover order: a dead owner's keys go to
     * the second agent. Lazy: taking the first agent costs O(log v) and allocates only the
     * iterator; the first k agents cost O(log v + points walked).
     */
    public Iterator<String> agentsClockwise(long position) {
        return new ClockwiseAgents(owners, virtualNodes.size(), pointIndex(position));
    }

    private int pointIndex(long position) {
        int first = firstAtOrAfter(position);
        return first == points.length ? 0 : first;
    }

    /** The index of the first point at or after {@code position} (unsigned), {@link #size()} if none: no wrap. */
    int firstAtOrAfter(long position) {
        int lo = 0;
        int hi = points.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(points[mid], position) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    long pointAt(int i) {
        return points[i];
    }

    String ownerAt(int i) {
        return owners[i];
    }

    int indexAt(int i) {
        return indices[i];
    }

    /**
     * A ring with these virtual node counts and the same hash function: the same ring as
     * {@link #of(Map, HashFunction)} builds. For the same agents it is derived from this one, hashing
     * only the added labels and merging them in: O(v + a log a), a = virtual nodes added, where a
     * build is O(v log v) and hashes every label (adaptive virtual nodes try many one-node moves).
     *
     * @throws IllegalArgumentException as {@link #of(Map, HashFunction)}
     */
    public HashRing withVirtualNodes(Map<String, Integer> counts) {
        if (counts == null || !counts.keySet().equals(virtualNodes.keySet())
                || counts.values().stream().anyMatch(c -> c == null || c < 1)) {
            return of(counts, hashFunction);
        }
        Map<String, Integer> limits = new HashMap<>();
        List<Point> added = new ArrayList<>();
        int removed = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            String agent = e.getKey();
            int count = e.getValue();
            int old = virtualNodes.get(agent);
            if (count < old) {
                limits.put(agent, count);
                removed += old - count;
            }
            for (int i = old; i < count; i++) {
                added.add(new Point(hashFunction.hash(label(agent, i)), agent, i));
            }
        }
        added.sort(Point.ORDER);
        int size = points.length - removed + added.size();
        long[] newPoints = new long[size];
        String[] newOwners = new String[size];
        int[] newIndices = new int[size];
        int k = 0;
        int j = 0;
        for (int i = 0; i < points.length; i++) {
            Integer limit = limits.isEmpty() ? null : limits.get(owners[i]);
            if (limit != null && indices[i] >= limit) {
                continue;
            }
            while (j < added.size() && added.get(j).compareTo(points[i], owners[i], indices[i]) < 0) {
                Point p = added.get(j++);
                newPoints[k] = p.position;
                newOwners[k] = p.agent;
                newIndices[k++] = p.index;
            }
            newPoints[k] = points[i];
            newOwners[k] = owners[i];
            newIndices[k++] = indices[i];
        }
        while (j < added.size()) {
            Point p = added.get(j++);
            newPoints[k] = p.position;
            newOwners[k] = p.agent;
            newIndices[k++] = p.index;
        }
        return new HashRing(hashFunction, new TreeMap<>(counts), newPoints, newOwners, newIndices);
    }

    /** Agent id to its number of virtual nodes, sorted by agent id; unmodifiable. */
    public SortedMap<String, Integer> virtualNodes() {
        return virtualNodes;
    }

    /** The agents on the ring, sorted by id; unmodifiable. */
    public Set<String> agents() {
        return virtualNodes.keySet();
    }

    /** The total number of virtual nodes (points) on the ring. */
    public int size() {
        return points.length;
    }

    /** The hash function that places labels and keys. */
    public HashFunction hashFunction() {
        return hashFunction;
    }

    /**
     * Each agent's share of the ring: the fraction 0..1 of the 2^64 positions it owns (the arcs
     * ending at its points). Over uniformly hashed keys, this is each agent's expected share of keys.
     */
    public SortedMap<String, Double> ownership() {
        SortedMap<String, Double> shares = new TreeMap<>();
        for (String agent : virtualNodes.keySet()) {
            shares.put(agent, 0.0);
        }
        double full = Math.pow(2, 64);
        for (int i = 0; i < points.length; i++) {
            long previous = points[(i - 1 + points.length) % points.length];
            long arc = points[i] - previous; // unsigned difference modulo 2^64
            double length = points.length == 1 ? full : unsignedToDouble(arc);
            shares.merge(owners[i], length / full, Double::sum);
        }
        return shares;
    }

    private static double unsignedToDouble(long value) {
        double d = (double) (value >>> 1) * 2.0;
        return d + (value & 1);
    }

    @Override
    public String toString() {
        return "HashRing" + virtualNodes + " (" + points.length + " points)";
    }

    private record Point(long position, String agent, int index) {
        static final Comparator<Point> ORDER = Comparator
                .comparing(Point::position, Long::compareUnsigned)
                .thenComparing(Point::agent)
                .thenComparingInt(Point::index);

        /** As {@link #ORDER} against the point ({@code otherPosition}, {@code otherAgent}, {@code otherIndex}). */
        int compareTo(long otherPosition, String otherAgent, int otherIndex) {
            int c = Long.compareUnsigned(position, otherPosition);
            if (c == 0) {
                c = agent.compareTo(otherAgent);
            }
            return c != 0 ? c : Integer.compare(index, otherIndex);
        }
    }

    long[] pointsForTest() {
        return Arrays.copyOf(points, points.length);
    }
}
