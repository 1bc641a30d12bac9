package io.github.agentlb.core.bounded;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

/**
 * The sessions that the in-flight bound placed with {@link BoundedLoad#keepInFlightPlacement()},
 * counted per agent: a key counts on the agent it was placed on while its requests come at most
 * tau apart. The bound places a new session by {@link #load}, the larger of an agent's requests in
 * flight and its active sessions: requests in flight alone undercount an agent whose conversations
 * are between two turns at the moment a new one is placed (the next turn follows within
 * milliseconds, but the count has dropped), and such gaps would pile new sessions on agents that
 * only look idle.
 *
 * <p>Each placement moves its key's count at once; sessions that end are found by a recount over
 * the key table at most every tau / 4, so an ended session still counts on its agent for at most
 * that long, and a count may be off by one between recounts where a placement raced a recount.
 * Thread-safe, no lock: counts are atomic, the recount is claimed by one thread. O(1) per
 * placement; O(keys) per recount.
 */
final class KeptSessions {

    private final long tauNanos;
    private final long recountNanos;
    private final AtomicLong nextRecount;
    private volatile Map<String, AtomicInteger> active = new ConcurrentHashMap<>();

    /**
     * @param tauNanos how long a session stays active after its last request, ns (the bound's decay time)
     * @param now      the clock now, ns: the first recount is due tau / 4 later
     */
    KeptSessions(long tauNanos, long now) {
        this.tauNanos = tauNanos;
        this.recountNanos = Math.max(1, tauNanos / 4);
        this.nextRecount = new AtomicLong(now + recountNanos);
    }

    /** Whether a session last placed or kept at {@code seenNanos} is still active {@code now}. */
    boolean active(long seenNanos, long now) {
        return now - seenNanos <= tauNanos;
    }

    /** An agent's load for placing a session: the larger of its requests in flight and its active sessions. */
    ToIntFunction<String> load(ToIntFunction<String> inFlight) {
        Map<String, AtomicInteger> counts = active;
        return agent -> {
            AtomicInteger sessions = counts.get(agent);
            return Math.max(inFlight.applyAsInt(agent), sessions == null ? 0 : sessions.get());
        };
    }

    /** Counts {@code entry}'s session on {@code agent} from now on, and no longer where it counted before. */
    void placed(KeyTable.Entry entry, String agent, long now) {
        Map<String, AtomicInteger> counts = active;
        String before = entry.countedOn;
        if (before != null) {
            AtomicInteger was = counts.get(before);
            if (was != null && was.get() > 0) {
                was.decrementAndGet();
            }
        }
        counts.computeIfAbsent(agent, a -> new AtomicInteger()).incrementAndGet();
        entry.countedOn = agent;
        entry.inFlightAgent = agent;
        entry.inFlightSeenNanos = now;
    }

    /** Recounts the active sessions from {@code keys} if one is due {@code now} and no other thread does it. */
    void recountIfDue(KeyTable keys, long now) {
        long due = nextRecount.get();
        if (now - due < 0 || !nextRecount.compareAndSet(due, now + recountNanos)) {
            return;
        }
        Map<String, Integer> tally = new HashMap<>();
        keys.forEachEntry(entry -> {
            String agent = entry.inFlightAgent;
            boolean counts = agent != null && active(entry.inFlightSeenNanos, now);
            entry.countedOn = counts ? agent : null;
            if (counts) {
                tally.merge(agent, 1, Integer::sum);
            }
        });
        Map<String, AtomicInteger> next = new ConcurrentHashMap<>();
        tally.forEach((agent, n) -> next.put(agent, new AtomicInteger(n)));
        active = next;
    }

    /** Active sessions per agent now, as last counted (agents with none absent). */
    Map<String, Integer> counts() {
        Map<String, Integer> out = new HashMap<>();
        active.forEach((agent, n) -> out.put(agent, n.get()));
        return out;
    }
}
