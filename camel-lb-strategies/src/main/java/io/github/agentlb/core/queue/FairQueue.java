package io.github.agentlb.core.queue;

import io.github.agentlb.core.Check;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * A bounded queue of requests waiting for capacity, released by priority band and, within a band,
 * fairly among tenants by virtual token counters: the flow control of the Gateway API inference
 * extension (priority bands, fairness within a band, a bounded queue with per-request deadlines)
 * with the Virtual Token Counter of Sheng et al., "Fairness in Serving Large Language Models"
 * (OSDI 2024, Algorithm 2 "VTC").
 *
 * <h2>The order of release</h2>
 * <ol>
 *   <li><b>Bands, strictly.</b> Each entry has an integer band; {@link #poll()} releases from the
 *       highest band that has an entry waiting, so a request of a higher band never waits behind
 *       one of a lower band. A lower band can starve while a higher one is busy: that is what a
 *       band is for.</li>
 *   <li><b>Tenants, by virtual token counter.</b> Within a band each tenant has a counter
 *       {@code c} of the service it was given, in tokens. The next entry is the oldest of the
 *       waiting tenant with the smallest counter (ties: the tenant whose oldest entry came first),
 *       and its cost is added to that tenant's counter when it is released; {@link #charge} adds
 *       more later (the output tokens, once the answer tells them).</li>
 *   <li><b>The lift.</b> A tenant with nothing waiting that offers an entry has its counter raised
 *       to {@code max(c, min{c_i : i waiting in the band})}, or, when no tenant of the band
 *       waits, to the counter of the tenant released last in the band (the paper's arrival rule):
 *       a tenant that stayed away does not bank credit and then take the band over on return.</li>
 *   <li><b>Tenants, FIFO.</b> One tenant's entries leave in the order they came.</li>
 *   <li><b>Eligible tenants only</b>, with {@link #poll(Predicate)}: the order above among the
 *       tenants the caller accepts now (the Camel adapter: those under {@code maxInFlightPerTenant});
 *       a band none of whose waiting tenants is accepted is passed over.</li>
 * </ol>
 * Between two tenants that both stay backlogged the counters differ by at most the largest cost of
 * one request (plus what {@link #charge} adds per request), the paper's Theorem 4.4 bound, whatever
 * their rates: a light tenant's wait depends on its own demand, not on how much a heavy one sends.
 *
 * <h2>Bound and deadlines</h2>
 * At most {@link #capacity()} entries wait: {@link #offer} refuses beyond that (returns null).
 * Each entry carries a deadline (ns on the caller's clock); {@link #expire} removes those whose
 * deadline has come, in deadline order; {@link #remove} takes one out at once (its client left).
 * Neither removal charges the tenant: only release is service. Bands come from requests: once
 * {@link #MAX_BANDS} are kept, a new band first forgets the empty ones (with their floors and idle
 * counters), so the bands kept are at most that many plus those with an entry waiting.
 *
 * <h2>Costs</h2>
 * A cost is in tokens, finite and >= 0. The Camel adapter estimates a request's prompt tokens as its
 * body's bytes / 4 ({@link #estimateTokens}), a request without a body the mean estimate of those
 * with one, and charges its output tokens when the answer's {@code usage} says them; the paper
 * weighs input and output tokens (w_p = 1, w_q = 2 in its experiments): here both weigh 1.
 *
 * <h2>Cost</h2>
 * {@code offer}, {@code remove} and {@code expire} per entry: O(log n) (n entries waiting) plus, for a
 * tenant's first entry, O(t) (t tenants waiting in its band); {@code poll}: O(b + t + log n)
 * (b bands). Counters of tenants with nothing waiting are kept while they are above the band's
 * floor (the lift would give the same value otherwise), so idle tenants are forgotten as the floor
 * passes them, and at most {@link #MAX_IDLE_TENANTS} in all: beyond that the lowest counters are
 * forgotten first (under overload from ever new tenants the floor stays below those released).
 * Memory: the entries waiting, their tenants and at most that many idle ones.
 *
 * <p>Not thread-safe: the caller serializes every call (the Camel adapter under one lock).
 *
 * @param <T> what an entry carries (the adapter's waiting exchange)
 */
public final class FairQueue<T> {

    /**
     * Bands kept before a new band forgets the empty ones (their floors and idle counters): bands
     * come from requests, so their number is bounded by this and the entries waiting.
     */
    public static final int MAX_BANDS = 64;

    /**
     * Idle tenants' counters kept, all bands: beyond this the lowest are forgotten (a tenant
     * forgotten that comes back is lifted to the floor, as one never seen).
     */
    public static final int MAX_IDLE_TENANTS = 1024;

    /** The bytes of a request body counted as one token by {@link #estimateTokens}. */
    public static final int BYTES_PER_TOKEN = 4;

    private final int capacity;
    /** Band to its state; iterated from the highest band. */
    private final NavigableMap<Integer, Band<T>> bands = new TreeMap<>(Comparator.reverseOrder());
    /** Every waiting entry by (deadline, sequence): the next to expire first. */
    private final TreeSet<Entry<T>> byDeadline = new TreeSet<>(
            Comparator.<Entry<T>>comparingLong(e -> e.deadlineNanos).thenComparingLong(e -> e.sequence));
    private long sequence;
    /** Idle tenants kept, all bands: at most {@link #MAX_IDLE_TENANTS}. */
    private int idleKept;
    /** The sequence of the last entry offered first, counting down from -1. */
    private long returned;

    /**
     * @param capacity the most entries waiting at once, >= 1
     * @throws IllegalArgumentException naming {@code queueSize} when {@code capacity < 1}
     */
    public FairQueue(int capacity) {
        this.capacity = Check.atLeast("queueSize", capacity, 1);
    }

    /**
     * The prompt tokens of a request body of {@code bytes} bytes, estimated as bytes / 4 rounded up
     * (OpenAI's rule of thumb for English text); 0 for no body.
     */
    public static long estimateTokens(long bytes) {
        return bytes <= 0 ? 0 : (bytes + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN;
    }

    /**
     * Adds an entry, lifting its tenant's counter when it has nothing waiting (see the class comment).
     *
     * @param value         what the entry carries, not null
     * @param band          its priority band: higher bands are released first
     * @param tenant        its tenant, not null (one shared tenant: any fixed string)
     * @param cost          its cost in tokens, finite and >= 0, added to the tenant's counter on release
     * @param deadlineNanos when it expires, on the caller's clock (ns)
     * @return the entry, or null when {@link #capacity()} entries wait already (nothing changes then)
     * @throws IllegalArgumentException if {@code cost} is negative or not finite
     */
    public Entry<T> offer(T value, int band, String tenant, double cost, long deadlineNanos) {
        return add(value, band, tenant, cost, deadlineNanos, false);
    }

    /**
     * As {@link #offer}, but ahead of the entries its tenant has waiting in its band, and of other
     * tenants' oldest entries when their counters are equal: for one that was released and comes
     * back (its agent answered busy), which came before them.
     *
     * @return the entry, or null when {@link #capacity()} entries wait already (nothing changes then)
     * @throws IllegalArgumentException if {@code cost} is negative or not finite
     */
    public Entry<T> offerFirst(T value, int band, String tenant, double cost, long deadlineNanos) {
        return add(value, band, tenant, cost, deadlineNanos, true);
    }

    private Entry<T> add(T value, int band, String tenant, double cost, long deadlineNanos, boolean first) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(tenant, "tenant");
        Check.finiteNonNegative("cost", cost);
        if (size() >= capacity) {
            return null;
        }
        if (bands.size() >= MAX_BANDS && !bands.containsKey(band)) {
            bands.values().removeIf(empty -> {
                if (empty.size == 0) {
                    idleKept -= empty.idle.size();
                    return true;
                }
                return false;
            });
        }
        Band<T> b = bands.computeIfAbsent(band, k -> new Band<>());
        Tenant<T> t = b.tenants.computeIfAbsent(tenant, Tenant::new);
        if (t.waiting.isEmpty()) {
            if (b.idle.remove(t)) {
                idleKept--;
            }
            t.counter = Math.max(t.counter, b.floor());
            b.backlogged.add(t);
        }
        // One that comes back takes a sequence below every other's (unique: they count down from -1), so
        // that between tenants of equal counters it goes first, as it came before them.
        Entry<T> entry = new Entry<>(value, band, tenant, cost, deadlineNanos, first ? --returned : sequence++);
        if (first) {
            t.waiting.addFirst(entry);
        } else {
            t.waiting.addLast(entry);
        }
        b.size++;
        byDeadline.add(entry);
        return entry;
    }

    /**
     * Makes room in a full queue for an entry of {@code tenant} in {@code band}, when that is fair:
     * takes out, uncharged, the newest entry of the tenant with the most entries waiting in the
     * lowest band below {@code band}, or else in {@code band} itself when that tenant has at least
     * two more waiting than {@code tenant} (ties: the most served, then the newest entry). A tenant
     * never displaces its own, nor one about as backlogged as itself (a difference of one): the
     * newcomer is then refused. So a full queue is not the heavy tenant's to keep (the fair-buffer
     * rule "drop from the longest queue"), and a higher band never waits for room behind a lower one.
     *
     * @return the entry taken out (its caller answers it as refused), or null when none is to go
     */
    public Entry<T> displaceFor(int band, String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        Band<T> victims = null;
        for (Map.Entry<Integer, Band<T>> e : bands.descendingMap().entrySet()) {
            if (e.getValue().size > 0 && e.getKey() <= band) {
                victims = e.getValue();
                break;
            }
        }
        if (victims == null) {
            return null;
        }
        Tenant<T> victim = null;
        for (Tenant<T> t : victims.backlogged) {
            if (victim == null || t.waiting.size() > victim.waiting.size()
                    || t.waiting.size() == victim.waiting.size() && (t.counter > victim.counter
                    || t.counter == victim.counter && t.waiting.peekLast().sequence > victim.waiting.peekLast().sequence)) {
                victim = t;
            }
        }
        boolean lowerBand = victim.waiting.peekLast().band < band;
        if (!lowerBand) {
            Tenant<T> own = victims.tenants.get(tenant);
            int ownWaiting = own == null ? 0 : own.waiting.size();
            if (victim.name.equals(tenant) || victim.waiting.size() < ownWaiting + 2) {
                return null;
            }
        }
        Entry<T> out = victim.waiting.pollLast();
        leave(victims, victim, out);
        return out;
    }

    /**
     * Releases the next entry: from the highest band with one waiting, the oldest of the tenant with
     * the smallest counter, whose counter then grows by the entry's cost.
     *
     * @return the entry, or null when none waits
     */
    public Entry<T> poll() {
        return poll(tenant -> true);
    }

    /**
     * Releases the next entry of a tenant {@code eligible} accepts, as {@link #poll()} does among
     * those tenants only: a tenant it refuses (one at its limit of requests in flight) keeps its
     * entries and its counter, and a band with no eligible tenant waiting is passed over for the
     * next.
     *
     * @param eligible whether a tenant may have an entry released now; called under the caller's
     *                 serialization, at most once per backlogged tenant
     * @return the entry, or null when no eligible tenant has one waiting
     */
    public Entry<T> poll(Predicate<String> eligible) {
        for (Band<T> b : bands.values()) {
            if (b.size == 0) {
                continue;
            }
            Tenant<T> next = null;
            for (Tenant<T> t : b.backlogged) {
                if ((next == null || t.counter < next.counter
                        || t.counter == next.counter && t.waiting.peekFirst().sequence < next.waiting.peekFirst().sequence)
                        && eligible.test(t.name)) {
                    next = t;
                }
            }
            if (next == null) {
                continue;
            }
            Entry<T> entry = next.waiting.pollFirst();
            next.counter += entry.cost;
            b.lastReleased = next.counter;
            leave(b, next, entry);
            return entry;
        }
        return null;
    }

    /**
     * Takes {@code entry} out of the queue at once (its client left); its tenant is not charged.
     *
     * @return whether it was waiting (false when it was released, expired or removed before)
     */
    public boolean remove(Entry<T> entry) {
        Band<T> b = bands.get(entry.band);
        Tenant<T> t = b == null ? null : b.tenants.get(entry.tenant);
        if (t == null || !t.waiting.remove(entry)) {
            return false;
        }
        leave(b, t, entry);
        return true;
    }

    /**
     * Removes every entry whose deadline is at or before {@code nowNanos}; their tenants are not charged.
     *
     * @return the entries removed, earliest deadline first; empty when none expired
     */
    public List<Entry<T>> expire(long nowNanos) {
        List<Entry<T>> expired = null;
        while (!byDeadline.isEmpty() && byDeadline.first().deadlineNanos - nowNanos <= 0) {
            Entry<T> entry = byDeadline.first();
            remove(entry);
            if (expired == null) {
                expired = new ArrayList<>();
            }
            expired.add(entry);
        }
        return expired == null ? List.of() : expired;
    }

    /**
     * Adds {@code tokens} to a tenant's counter in {@code band}: service learned after release, such
     * as the output tokens of its answer. A tenant forgotten since (idle at or below the band's
     * floor) is charged from the floor, the counter its return would be lifted to; a band that never
     * had an entry is ignored.
     *
     * @throws IllegalArgumentException if {@code tokens} is negative or not finite
     */
    public void charge(int band, String tenant, double tokens) {
        Check.finiteNonNegative("tokens", tokens);
        Band<T> b = bands.get(band);
        if (b == null || tokens == 0) {
            return;
        }
        Tenant<T> t = b.tenants.get(tenant);
        if (t == null) {
            t = new Tenant<>(tenant);
            t.counter = b.floor();
            b.tenants.put(tenant, t);
            t.counter += tokens;
            idle(b, t);
        } else if (b.idle.remove(t)) {
            // Its place in the idle order is by counter: out while the counter changes.
            t.counter += tokens;
            b.idle.add(t);
        } else {
            t.counter += tokens;
        }
    }

    /** @return the earliest deadline of an entry waiting (ns), or {@link Long#MAX_VALUE} when none waits */
    public long nextDeadline() {
        return byDeadline.isEmpty() ? Long.MAX_VALUE : byDeadline.first().deadlineNanos;
    }

    /** @return the entries waiting, all bands */
    public int size() {
        return byDeadline.size();
    }

    /** @return band to its entries waiting, highest band first, for the bands kept (each that had one, up to {@link #MAX_BANDS} empty ones) */
    public Map<Integer, Integer> sizes() {
        Map<Integer, Integer> sizes = new TreeMap<>(Comparator.reverseOrder());
        bands.forEach((band, b) -> sizes.put(band, b.size));
        return Collections.unmodifiableMap(sizes);
    }

    /** @return the most entries waiting at once */
    public int capacity() {
        return capacity;
    }

    /**
     * @return the virtual token counter of {@code tenant} in {@code band}; for a tenant not kept (never
     *     seen, or idle and forgotten) the band's floor, the counter it would be lifted to; 0 in a band
     *     that never had an entry
     */
    public double counter(int band, String tenant) {
        Band<T> b = bands.get(band);
        if (b == null) {
            return 0;
        }
        Tenant<T> t = b.tenants.get(tenant);
        return t == null ? b.floor() : t.counter;
    }

    /** @return how many tenants of {@code band} have a counter kept (waiting or idle above the floor) */
    int tenantsKept(int band) {
        Band<T> b = bands.get(band);
        return b == null ? 0 : b.tenants.size();
    }

    private void leave(Band<T> b, Tenant<T> t, Entry<T> entry) {
        b.size--;
        byDeadline.remove(entry);
        if (t.waiting.isEmpty()) {
            b.backlogged.remove(t);
            idle(b, t);
        }
    }

    /**
     * {@code t} has nothing waiting in {@code b}: kept by its counter while above the band's floor;
     * idle tenants at or below it are forgotten (the lift would give them the same value), and
     * beyond {@link #MAX_IDLE_TENANTS} in all the lowest of this band too. O(log t) per tenant.
     */
    private void idle(Band<T> b, Tenant<T> t) {
        b.idle.add(t);
        idleKept++;
        double floor = b.floor();
        while (!b.idle.isEmpty() && (b.idle.first().counter <= floor || idleKept > MAX_IDLE_TENANTS)) {
            b.tenants.remove(b.idle.pollFirst().name);
            idleKept--;
        }
    }

    /** One band: its tenants' counters, and which of them have entries waiting. */
    private static final class Band<T> {
        final Map<String, Tenant<T>> tenants = new HashMap<>();
        /** Tenants with an entry waiting, in the order they became backlogged. */
        final List<Tenant<T>> backlogged = new ArrayList<>();
        /** Tenants kept with nothing waiting, lowest counter first (ties by name). */
        final TreeSet<Tenant<T>> idle = new TreeSet<>(
                Comparator.<Tenant<T>>comparingDouble(t -> t.counter).thenComparing(t -> t.name));
        int size;
        /** The counter of the tenant released last: the lift's floor while nobody waits. */
        double lastReleased;

        /** The lift's floor: the smallest counter of a waiting tenant, else the last released one's. */
        double floor() {
            if (backlogged.isEmpty()) {
                return lastReleased;
            }
            double min = Double.POSITIVE_INFINITY;
            for (Tenant<T> t : backlogged) {
                min = Math.min(min, t.counter);
            }
            return min;
        }
    }

    /** One tenant of one band: its counter and its entries waiting, oldest first. */
    private static final class Tenant<T> {
        final String name;
        final ArrayDeque<Entry<T>> waiting = new ArrayDeque<>(4);
        double counter;

        Tenant(String name) {
            this.name = name;
        }
    }

    /**
     * One request waiting: what it carries, its band, tenant, cost (tokens) and deadline (ns).
     * Immutable; compared by identity.
     *
     * @param <T> what it carries
     */
    public static final class Entry<T> {
        private final T value;
        private final int band;
        private final String tenant;
        private final double cost;
        private final long deadlineNanos;
        private final long sequence;

        Entry(T value, int band, String tenant, double cost, long deadlineNanos, long sequence) {
            this.value = value;
            this.band = band;
            this.tenant = tenant;
            this.cost = cost;
            this.deadlineNanos = deadlineNanos;
            this.sequence = sequence;
        }

        public T value() {
            return value;
        }

        public int band() {
            return band;
        }

        public String tenant() {
            return tenant;
        }

        /** @return tokens, charged to the tenant on release */
        public double cost() {
            return cost;
        }

        /** @return when it expires, ns on the queue's caller's clock */
        public long deadlineNanos() {
            return deadlineNanos;
        }

        @Override
        public String toString() {
            return "Entry{" + value + ", band=" + band + ", tenant=" + tenant + ", cost=" + cost + "}";
        }
    }
}
