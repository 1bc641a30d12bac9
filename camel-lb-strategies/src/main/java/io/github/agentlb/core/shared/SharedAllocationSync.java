package io.github.agentlb.core.shared;

import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code avn} replica's side of a {@link SharedAllocation}: the leader publishes its counts after
 * each evaluation that moved, and once on taking over (the next generation, same counts, so no key
 * moves; its generation passes every one read from the store, installed or not); a follower
 * evaluates nothing and installs each valid newer allocation (a higher generation, or any
 * generation of another leader epoch: a store that went back or was wiped) as one new state.
 * The leader too routes by what is written: an evaluation changes its ring when its write lands,
 * never before, so a write that fails leaves no replica on counts the others lack.
 * Routing never waits on the store: without an allocation, or with the store unreachable, the
 * replica routes on what it has; unreachable past {@link SharedAllocation#localAfter()} it learns
 * on its own again (source {@code local}).
 *
 * <p>Observations: a connected follower buffers the ring positions of the keyed requests it routes
 * and the load reports it receives, and {@link AllocationExchange#share shares} them every
 * {@link Observations#shareEvery shareEvery(evaluationWindow, replicas, SHARES_PER_WINDOW)} of its
 * own requests (earlier when a bound of {@link Observations} is reached); the leader adds what
 * arrives to its {@link AdaptiveVirtualNodes} ({@link AdaptiveVirtualNodes#observe positions},
 * {@link AdaptiveVirtualNodes#report reports}), so it evaluates every replica's traffic. A replica
 * that leads or has lost the store shares nothing. The buffer has its own monitor, held only to
 * append or swap: a request thread never waits on the store nor on an event.
 *
 * <p>Events come on the backend's threads, evaluations on request threads; state changes are
 * serialized on this object, and the new picker is published after its monitor is released (the
 * state writer calls in here under its own lock on membership changes).
 *
 * <p>Over 300 lines: one replica's side as leader and as follower, the store's events and the
 * health details share its state; what a follower buffers is {@link ObservationBuffer}'s.
 */
public final class SharedAllocationSync implements AllocationExchange.Listener {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.agentlb.shared");

    private final SharedAllocation shared;
    private final Supplier<AdaptiveVirtualNodes> avn;
    private final Runnable pickerChanged;
    private final LongSupplier nanoClock;

    private volatile Allocation installed;
    private volatile AllocationSource source = AllocationSource.LOCAL;
    private volatile boolean leader;
    private volatile boolean connected;
    private volatile long disconnectedSince;
    /** Learning alone since the store has been unreachable past {@code localAfter}. */
    private volatile boolean alone;
    private volatile String lastProblem = "";
    private long epoch;
    private long highestEpochSeen;
    /** The highest generation read from the store, installed or not: a leader's next write passes it. */
    private long highestGenerationSeen;
    private Allocation waitingForMembers;
    private boolean publishing;
    private boolean republish;
    private boolean takeoverUnwritten;
    /** The next write goes out even with counts this leader has written (the stored value is unreadable). */
    private boolean rewrite;
    /** A leader's proposal not yet in a write, and the counts it was made on: the next write carries it. */
    private SortedMap<String, Integer> pending;
    private SortedMap<String, Integer> pendingBasis;
    private final ObservationBuffer buffer = new ObservationBuffer();
    private final AtomicLong observationsShared = new AtomicLong();
    private final AtomicLong observationsTaken = new AtomicLong();

    public SharedAllocationSync(SharedAllocation shared, Supplier<AdaptiveVirtualNodes> avn, Runnable pickerChanged,
                         LongSupplier nanoClock) {
        this.shared = shared;
        this.avn = avn;
        this.pickerChanged = pickerChanged;
        this.nanoClock = nanoClock;
    }

    /** Connects to the store; {@code context} is what the store's backend needs (a CamelContext for ZooKeeper). */
    public void start(Object context) throws Exception {
        disconnectedSince = nanoClock.getAsLong();
        shared.exchange().start(context, this);
    }

    public void stop() {
        shared.exchange().close();
        synchronized (this) {
            // A write whose answer never came must not keep a restarted route from publishing.
            leader = false;
            connected = false;
            publishing = false;
            republish = false;
            pending = null;
            takeoverUnwritten = false;
            rewrite = false;
        }
    }

    /**
     * Whether this replica routes by written allocations only, its own evaluations being proposals
     * for the store ({@link #evaluated}): unless it learns alone. Lock-free.
     */
    public boolean routesByWritten() {
        return !alone;
    }

    /**
     * Whether this replica should evaluate its window: while it leads, or while it has learned on
     * its own since the store has been unreachable for longer than {@code localAfter}. Lock-free.
     */
    public boolean evaluates() {
        if (connected) {
            return leader;
        }
        if (!lostPastLocalAfter()) {
            return false;
        }
        if (!alone) {
            synchronized (this) {
                if (!connected && !alone) {
                    alone = true;
                    source = AllocationSource.LOCAL;
                    LOG.info("Shared allocation: {} unreachable for more than {} s: evaluating locally from generation {}",
                            shared.exchange().describe(), shared.localAfter().toSeconds(), generation());
                }
            }
        }
        return true;
    }

    /** Whether this replica buffers observations for the leader: a connected follower. Lock-free. */
    private boolean follows() {
        return connected && !leader;
    }

    /**
     * After a request of this replica: a follower buffers its key's ring position (null without a
     * key) and shares the buffer every {@link Observations#shareEvery} of its requests.
     */
    public void routed(Long position) {
        if (follows()) {
            share(buffer.routed(position, Observations.shareEvery(avn.get().config().evaluationWindow(),
                    shared.exchange().replicas(), Observations.SHARES_PER_WINDOW), shared.exchange().replicaId()));
        }
    }

    /** A load report this replica received: a follower buffers it for the leader. */
    public void reported(String agent, double cpu, double memory) {
        if (follows()) {
            share(buffer.reported(agent, cpu, memory, shared.exchange().replicaId()));
        }
    }

    private void share(Observations due) {
        if (due != null && !due.isEmpty()) {
            observationsShared.incrementAndGet();
            shared.exchange().share(due);
        }
    }

    /** Another replica's observations, while this one leads: its traffic joins this replica's learning. */
    @Override
    public void observed(Observations observations) {
        if (!leader) {
            return;
        }
        AdaptiveVirtualNodes state = avn.get();
        observations.positions().forEach(state::observe);
        observations.reports().forEach(r -> state.report(r.agent(), r.cpu(), r.memory()));
        observationsTaken.incrementAndGet();
        LOG.debug("Shared allocation: took {} positions and {} reports of {} (sequence {})",
                observations.positions().size(), observations.reports().size(), observations.replicaId(),
                observations.sequence());
    }

    /**
     * A proposal of this replica's evaluation, made on the ring with counts {@code before}: the
     * leader publishes {@code after}, and routes by it once the write lands ({@link #published}), as
     * every follower does once it reads it; its ring does not change before. A write that fails
     * (the store lost but not yet noticed, another leader elected) so leaves no replica on counts the
     * others lack. A proposal overtaken by an install (a write landing, a membership change) is
     * dropped: it was made on a ring no longer routed.
     */
    public synchronized void evaluated(Map<String, Integer> before, Map<String, Integer> after) {
        if (alone || !leader || !connected || !avn.get().virtualNodes().equals(before)) {
            return;
        }
        pending = new TreeMap<>(after);
        pendingBasis = new TreeMap<>(before);
        publishCurrent();
    }

    /** After a membership change (under the state writer's lock): publish, or install what waited for it. */
    public synchronized void agentsChanged() {
        if (leader && connected) {
            // A proposal for the members before is void: the membership's counts go out instead.
            pending = null;
            publishCurrent();
            return;
        }
        Allocation waiting = waitingForMembers;
        if (waiting != null && waiting.rejection(generation(), avn.get().virtualNodes().keySet()).isEmpty()) {
            waitingForMembers = null;
            // The writer builds the new picker after this hook: no picker change of our own.
            install(waiting);
        }
    }

    @Override
    public void allocationChanged(Allocation allocation) {
        boolean changed;
        synchronized (this) {
            highestEpochSeen = Math.max(highestEpochSeen, allocation.leaderEpoch());
            highestGenerationSeen = Math.max(highestGenerationSeen, allocation.generation());
            AdaptiveVirtualNodes state = avn.get();
            // Another leader's value is followed whatever its generation: a newer leader that
            // started lower (the znode deleted), or a follower's store wiped and led again from
            // epoch 1; a replica keeping the higher number would refuse it forever. The store's
            // events come in order, so the value of another epoch is what it holds. A leader
            // takes only a newer leader's.
            Allocation last = installed;
            boolean otherLeader = last != null && (allocation.leaderEpoch() > last.leaderEpoch()
                    || !leader && allocation.leaderEpoch() != last.leaderEpoch());
            long over = otherLeader ? 0 : generation();
            Optional<String> rejection = allocation.rejection(over, state.virtualNodes().keySet());
            if (rejection.isPresent()) {
                if (allocation.generation() > over) {
                    // INFO once while this replica waits for its members to match; each publish meanwhile at DEBUG.
                    boolean first = waitingForMembers == null;
                    waitingForMembers = allocation;
                    lastProblem = "generation " + allocation.generation() + " not installed: " + rejection.get();
                    if (first) {
                        LOG.info("Shared allocation: keeping generation {}: {}", generation(), rejection.get());
                    } else {
                        LOG.debug("Shared allocation: keeping generation {}: {}", generation(), rejection.get());
                    }
                } else {
                    LOG.debug("Shared allocation: {}", rejection.get());
                }
                takeOverIfUnwritten();
                return;
            }
            try {
                changed = install(allocation);
            } catch (IllegalArgumentException e) {
                // The agents changed since the check above: installed once this replica has them.
                waitingForMembers = allocation;
                return;
            }
            waitingForMembers = null;
            takeOverIfUnwritten();
        }
        if (changed) {
            pickerChanged.run();
        }
    }

    /**
     * Caller holds this monitor. After a write of this leader failed: publish again from what the
     * store holds now (the next generation, a newer leader epoch), once that has been read.
     */
    private void takeOverIfUnwritten() {
        if (takeoverUnwritten && leader && connected) {
            takeoverUnwritten = false;
            epoch = Math.max(epoch, highestEpochSeen + 1);
            publishCurrent();
        }
    }

    /** Caller holds this monitor. A proposal made on another ring than the one installed is dropped. */
    private boolean install(Allocation allocation) {
        boolean changed = avn.get().installVirtualNodes(allocation.virtualNodes());
        if (pending != null && !allocation.virtualNodes().equals(pendingBasis)) {
            pending = null;
        }
        installed = allocation;
        source = AllocationSource.LEADER;
        lastProblem = "";
        LOG.info("Shared allocation: installed generation {} (leader epoch {}): {}", allocation.generation(),
                allocation.leaderEpoch(), allocation.virtualNodes());
        return changed;
    }

    /** The leader writes its counts over an unreadable value at once (the next generation), rather than at its next move. */
    @Override
    public synchronized void allocationUnreadable(String detail) {
        lastProblem = detail;
        LOG.warn("Shared allocation: ignoring an unreadable stored allocation, keeping generation {}: {}", generation(),
                detail);
        if (leader && connected) {
            rewrite = true;
            publishCurrent();
        }
    }

    /**
     * The leader writes its counts again at once (the next generation) when the stored allocation is
     * deleted, rather than at its next move: a replica starting meanwhile would route on its start-up ring.
     */
    @Override
    public synchronized void allocationDeleted() {
        LOG.warn("Shared allocation: the stored allocation was deleted; routing on generation {}{}", generation(),
                leader && connected ? ", writing it again as the leader" : ", the leader writes it again");
        if (leader && connected) {
            rewrite = true;
            publishCurrent();
        }
    }

    @Override
    public synchronized void leadershipChanged(boolean leading) {
        if (leading == leader) {
            return;
        }
        leader = leading;
        // A proposal belongs to the leadership it was made in.
        pending = null;
        if (!leading) {
            republish = false;
            LOG.info("Shared allocation: no longer leading {}", shared.exchange().describe());
            return;
        }
        // A leader shares nothing: what it buffered as a follower is its own learning now.
        buffer.clear();
        Allocation last = installed;
        epoch = Math.max(highestEpochSeen, last == null ? 0 : last.leaderEpoch()) + 1;
        LOG.info("Shared allocation: leading {} from generation {} (leader epoch {})", shared.exchange().describe(),
                generation(), epoch);
        publishCurrent();
    }

    @Override
    public void connectionChanged(boolean reachable) {
        boolean changed = false;
        synchronized (this) {
            if (reachable == connected) {
                return;
            }
            connected = reachable;
            if (reachable) {
                boolean wasAlone = alone;
                alone = false;
                Allocation last = installed;
                if (wasAlone && !leader && last != null) {
                    // Back from learning alone: route by the shared allocation again, not by this
                    // replica's own counts until the leader's next move.
                    try {
                        changed = install(last);
                    } catch (IllegalArgumentException e) {
                        waitingForMembers = last;
                    }
                }
                LOG.info("Shared allocation: {} reachable, routing on generation {} ({})", shared.exchange().describe(),
                        generation(), source.name().toLowerCase(Locale.ROOT));
                if (leader) {
                    publishCurrent();
                }
            } else {
                disconnectedSince = nanoClock.getAsLong();
                LOG.info("Shared allocation: {} unreachable, routing on generation {}; evaluating locally after {} s",
                        shared.exchange().describe(), generation(), shared.localAfter().toSeconds());
            }
        }
        if (changed) {
            pickerChanged.run();
        }
    }

    /**
     * A write's outcome: a written allocation newer than the installed one becomes this replica's
     * ring, and a proposal made on another ring than that is dropped. A failed write is taken over
     * again from what the store holds: at once when that has been read already, else when it is.
     */
    @Override
    public void published(Allocation allocation, boolean written, String detail) {
        boolean changed = false;
        synchronized (this) {
            publishing = false;
            if (!written) {
                republish = false;
                pending = null;
                takeoverUnwritten = true;
                lastProblem = "generation " + allocation.generation() + " not written: " + detail;
                LOG.info("Shared allocation: generation {} not written: {}", allocation.generation(), detail);
                if (generation() >= allocation.generation()) {
                    // Another writer's value of that generation was read before this answer came.
                    takeOverIfUnwritten();
                }
                return;
            }
            takeoverUnwritten = false;
            if (allocation.generation() > generation()) {
                try {
                    changed = avn.get().installVirtualNodes(allocation.virtualNodes());
                } catch (IllegalArgumentException e) {
                    // Written for agents that have changed since: the membership change publishes anew.
                    LOG.debug("Shared allocation: generation {} written for other agents: {}", allocation.generation(),
                            e.getMessage());
                }
                installed = allocation;
                source = AllocationSource.LEADER;
                if (pending != null && !allocation.virtualNodes().equals(pendingBasis)) {
                    pending = null;
                }
            }
            lastProblem = "";
            LOG.info("Shared allocation: published generation {} (leader epoch {}): {}", allocation.generation(),
                    allocation.leaderEpoch(), allocation.virtualNodes());
            if (republish && leader && connected) {
                publishCurrent();
            }
            republish = false;
        }
        if (changed) {
            pickerChanged.run();
        }
    }

    /**
     * Caller holds this monitor. One write in flight at a time; the latest counts follow it. Counts
     * this leader has written already (same leader epoch) are not written again, unless
     * {@link #rewrite} (the stored value is unreadable): a connection event during the first write
     * would otherwise add a generation that changes nothing.
     */
    private void publishCurrent() {
        if (publishing) {
            republish = true;
            return;
        }
        SortedMap<String, Integer> counts = pending != null ? pending : avn.get().virtualNodes();
        pending = null;
        if (counts.isEmpty()) {
            return;
        }
        Allocation last = installed;
        if (!rewrite && last != null && last.leaderEpoch() == epoch && last.virtualNodes().equals(counts)) {
            return;
        }
        rewrite = false;
        // Past every generation read, also one written for other members and not installed here:
        // the replicas that installed it take only a newer one.
        Allocation next = Allocation.of(Math.max(generation(), highestGenerationSeen) + 1, epoch, counts);
        publishing = true;
        shared.exchange().publish(next);
    }

    /** Replicas the leader evaluates for ({@link AllocationExchange#replicas()}); 1 for a follower. Lock-free. */
    public int replicasPerWindow() {
        return leader ? Math.max(1, shared.exchange().replicas()) : 1;
    }

    public long generation() {
        Allocation a = installed;
        return a == null ? 0 : a.generation();
    }

    /**
     * Where the counts routed by come from: {@code local} also once the store has been unreachable
     * past {@code localAfter}, before a request has made this replica learn alone. Lock-free.
     */
    public AllocationSource source() {
        return lostPastLocalAfter() ? AllocationSource.LOCAL : source;
    }

    /** "the store is unreachable for N s: " what this replica routes on meanwhile. */
    private String storeLost() {
        long lostMs = TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - disconnectedSince);
        Duration localAfter = shared.localAfter();
        return "the store is unreachable for " + lostMs / 1000 + " s: " + (lostPastLocalAfter() ? "learning alone"
                : "routing on generation " + generation() + ", learning alone after "
                        + (localAfter.toMillis() % 1000 == 0 ? localAfter.toSeconds() + " s" : localAfter.toMillis() + " ms"));
    }

    private boolean lostPastLocalAfter() {
        return !connected && nanoClock.getAsLong() - disconnectedSince > shared.localAfter().toNanos();
    }

    /** For health checks: source, generation, leader epoch, leadership, store and its reachability, last problem. */
    public Map<String, Object> details() {
        Allocation a = installed;
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("allocation.source", source().name().toLowerCase(Locale.ROOT));
        details.put("allocation.generation", a == null ? 0L : a.generation());
        details.put("allocation.leader.epoch", a == null ? 0L : a.leaderEpoch());
        details.put("allocation.leader", leader);
        details.put("allocation.store", shared.exchange().describe());
        details.put("allocation.store.connected", connected);
        details.put("allocation.problem", connected ? lastProblem : storeLost() + (lastProblem.isEmpty() ? "" : "; " + lastProblem));
        details.put("allocation.observations.shared", observationsShared.get());
        details.put("allocation.observations.taken", observationsTaken.get());
        return details;
    }
}
