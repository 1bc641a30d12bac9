package io.github.agentlb.core.bounded;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * What bounded loads remember per key: its recent request rate and the agent it overflowed to,
 * for at most {@code maxKeys} keys. When the table grows past {@code maxKeys + maxKeys/16}, the
 * thread that notices evicts the least recently seen keys down to {@code maxKeys} (ties by key),
 * O(k log k) once per {@code maxKeys/16} new keys, i.e. O(16 log k) amortized per new key; other
 * threads never wait for it. An evicted key is a new key again: rate zero, at home.
 *
 * <p>Thread-safe: a {@link ConcurrentHashMap}; an entry's fields are volatile or atomic.
 * Memory: about 200 bytes per key (entry, state, key string of a few characters).
 */
final class KeyTable {

    /** One key's memory; the key was last seen when its rate last counted a request. */
    static final class Entry {
        final DecayedCount rate;
        volatile String overflowAgent;
        /** The agent the in-flight bound placed this key on, kept while its requests keep coming; else null. */
        volatile String inFlightAgent;
        /** When the in-flight bound last placed or kept this key, ns of the balancer's clock. */
        volatile long inFlightSeenNanos;
        /** The agent whose count of kept sessions includes this key ({@link KeptSessions}), or null. */
        volatile String countedOn;
        /** The key's requests in flight, as the caller counts them ({@link BoundedLoads#requestStarted}). */
        final AtomicInteger requestsInFlight = new AtomicInteger();

        Entry(double tauNanos) {
            this.rate = new DecayedCount(tauNanos);
        }
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final ReentrantLock eviction = new ReentrantLock();
    private final int maxKeys;
    private final int slack;
    private final double tauNanos;

    KeyTable(int maxKeys, double tauNanos) {
        this.maxKeys = maxKeys;
        this.slack = Math.max(1, maxKeys / 16);
        this.tauNanos = tauNanos;
    }

    /** The entry of {@code key}, created when new. */
    Entry touch(String key) {
        Entry entry = entries.get(key);
        if (entry == null) {
            entry = entries.computeIfAbsent(key, k -> new Entry(tauNanos));
            if (entries.size() > maxKeys + slack) {
                evict();
            }
        }
        return entry;
    }

    /** The entry of {@code key}, or null when it is not remembered. */
    Entry get(String key) {
        return entries.get(key);
    }

    /** Calls {@code action} with every entry remembered now. O(k). */
    void forEachEntry(Consumer<Entry> action) {
        entries.values().forEach(action);
    }

    /** Keys remembered now. */
    int size() {
        return entries.size();
    }

    /** Keys now remembered as overflowed. O(k). */
    long overflowed() {
        return entries.values().stream().filter(e -> e.overflowAgent != null).count();
    }

    private void evict() {
        if (!eviction.tryLock()) {
            return;
        }
        try {
            // Stamps are read once: sorting on fields other threads keep writing would break the sort.
            List<Seen> all = new ArrayList<>(entries.size());
            entries.forEach((key, entry) -> all.add(new Seen(key, entry, entry.rate.lastNanos())));
            int excess = all.size() - maxKeys;
            if (excess <= 0) {
                return;
            }
            all.sort(Seen.OLDEST_FIRST);
            for (int i = 0; i < excess; i++) {
                entries.remove(all.get(i).key, all.get(i).entry);
            }
        } finally {
            eviction.unlock();
        }
    }

    private record Seen(String key, Entry entry, long nanos) {
        static final Comparator<Seen> OLDEST_FIRST = Comparator.comparingLong(Seen::nanos).thenComparing(Seen::key);
    }
}
