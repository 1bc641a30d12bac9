package io.github.agentlb.core.bounded;

import io.github.agentlb.core.bounded.BoundedLoad.OverflowOrder;
import io.github.agentlb.core.bounded.Placement.Kind;
import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.SortedMap;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * Consistent hashing with bounded loads (Mirrokni, Thorup and Zadimoghaddam, SODA 2018) as a
 * wrapper of any ring walk: the ring stays as it is; this class only decides which agent of the
 * walk takes a request. An agent's load is the decayed count of requests sent to it
 * ({@link DecayedCount}, time constant tau = {@link BoundedLoad#decayTime()}), fed by
 * {@link #recordSent}; the mean is over the agents ({@link #setAgents}), and an agent's capacity
 * is the paper's {@code ceil(c x (total + 1) / n)} requests, the 1 being the request placed.
 *
 * <h2>Plain rule ({@code rankRule = false})</h2>
 * The first agent of the walk (home first, then {@link BoundedLoad#overflowOrder()}) whose load
 * plus this request fits the capacity. Decided per request: a key near a full agent moves back
 * and forth, and a hot key is split over every agent.
 *
 * <h2>Rank rule (default, {@code rankRule = true})</h2>
 * Which keys leave an agent is a function of shares, never of arrival order, so that balancer
 * replicas that each see part of the same traffic (and count only their own) move the same keys.
 * Nothing moves until the mean load reaches {@value #WARMUP_MEAN} requests per agent. Then:
 * <ol>
 *   <li><b>Heavy keys stay home.</b> A key whose recent requests (decayed, tau) reach the slack
 *       {@code (c - 1) x mean} goes to its home agent whatever its load ({@link Kind#HELD} when
 *       full): it is never split, the other keys leave instead.</li>
 *   <li><b>Each agent sheds a share.</b> Per agent, D is the decayed count of the keyed requests
 *       offered to it (the keys it is home of, and those passed on to it), H the part from heavy
 *       keys, both with time constant {@value #DEMAND_DECAY_FACTOR} x tau (80 s by default:
 *       shares vary less than loads); m is the mean requests per agent over the same time.
 *       {@code s(level) = (D - level x m) / (D - H)} in 0..1 is the share of its cold demand
 *       the agent must pass on to keep {@code level x m}.</li>
 *   <li><b>Lowest ranks go, with hysteresis.</b> Each key has a rank in [0, 1) at each agent (its
 *       hash mixed with the agent id's). The agent passes on the cold keys of rank below its
 *       threshold theta, a multiple of {@value #GRID}: theta rises to the step above s(c) when
 *       s(c) exceeds it, and falls only to the step below s(c_low) (c_low =
 *       {@link BoundedLoad#returnFactor()}) when that is under it. A key therefore returns home
 *       only when home, keys back, would stay at c_low x m, and no key flaps on noise.</li>
 *   <li><b>Passed-on keys walk on.</b> A key passed on is offered to the next agent of the
 *       overflow order (clockwise, or seeded by the key), which applies the same rule; the last
 *       agent of the order takes it.</li>
 * </ol>
 * Replicas disagree only on keys whose rank lies between their thresholds: their estimates of the
 * same shares differ by sampling noise (docs/bounded-load.md measures it). The bound holds on
 * average, not per request: no agent keeps more than c x m by its estimate, and a burst
 * within tau is not turned away.
 *
 * <h2>In-flight bound ({@link BoundedLoad#inFlightFactor()} f &gt; 0)</h2>
 * After either rule chose an agent, KubeAI's check on requests in flight now (its
 * {@code chwblLoadOK}): with T the requests in flight over the n agents, an agent fits when
 * {@code T == 0} or {@code inFlight + 1 <= f x (T + 1) / n}, the 1s being this request. An agent
 * that does not fit passes the request to the next agent of the overflow order (wrapping round)
 * that fits ({@link Kind#DIVERTED}); when none fits, the chosen agent keeps it. The diversion is
 * per request: the key's remembered agent does not change, so the key returns as soon as its
 * agent has room. With {@link BoundedLoad#keepInFlightPlacement()} the bound places a key's
 * session, not each request: the key is placed so once, and its later requests go to that agent
 * unchecked for as long as they keep coming at most tau ({@link BoundedLoad#decayTime()}) apart;
 * after a longer pause, or when that agent leaves, it is placed afresh, each agent then counting
 * the larger of its requests in flight and its active sessions ({@link KeptSessions}); when no
 * agent fits, the session goes to the agent of the overflow order with the least such load, then
 * the fewest requests in flight, not to the chosen agent: a session stays where it is placed, and
 * an agent whose session just ended still counts it for up to tau, while its requests in flight
 * show the room it has. A
 * conversation thus keeps its cached prompt instead of losing it to a moment's imbalance, and new
 * keys fill the agents with room, so the agents stay near the bound while keys start and end. A
 * placed key is never moved by load: an ejected agent, or one whose load report says it is
 * saturated, is passed over by the balancer as for any pick. It applies to heavy keys too. The
 * counts come from the caller ({@link #place(String, long, RingWalk, ToIntFunction)}), which
 * already tracks them; nothing is counted twice.
 *
 * <h2>Stateful keys</h2>
 * {@link #placeStateful} places a key whose agent holds its state (an MCP handle) on its home
 * agent always, counted as a heavy key: the ring alone decides, so every replica agrees at every
 * time, and the other keys make room.
 *
 * <p>Thread-safe, no lock on the request path. A key placed at home reads one agent of the walk,
 * the n agents' decayed loads, its home's demand and one key entry; the rest of the walk is read
 * only to pass the key on. Membership is set by {@link #setAgents}, not per request.
 */
public final class BoundedLoads {

    /** Nothing moves below this mean load (requests per agent): one request would be over 10% of it. */
    static final double WARMUP_MEAN = 10;
    /** Demand decays this many times slower than load: shares estimated over 80 s by default vary less. */
    static final double DEMAND_DECAY_FACTOR = 8;
    /** The shed threshold is a multiple of this rank step. */
    static final double GRID = 1.0 / 16;

    private final BoundedLoad config;
    private final LongSupplier nanoClock;
    private final AgentLoads agents;
    private final KeyTable keys;
    private final DecayedCount requests;
    private final KeptSessions sessions;

    /**
     * @param config    the bound; must be enabled
     * @param nanoClock monotonic time, ns (e.g. {@code System::nanoTime})
     * @throws IllegalArgumentException if {@code config} is disabled
     */
    public BoundedLoads(BoundedLoad config, LongSupplier nanoClock) {
        this.config = Objects.requireNonNull(config, "config");
        if (!config.isEnabled()) {
            throw new IllegalArgumentException("config must be enabled, was " + config);
        }
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        double tauNanos = config.decayTime().toNanos();
        this.agents = new AgentLoads(tauNanos, tauNanos * DEMAND_DECAY_FACTOR);
        this.keys = new KeyTable(config.maxKeys(), tauNanos);
        this.requests = new DecayedCount(tauNanos * DEMAND_DECAY_FACTOR);
        this.sessions = new KeptSessions(config.decayTime().toNanos(), nanoClock.getAsLong());
    }

    /** The configuration. */
    public BoundedLoad config() {
        return config;
    }

    /**
     * Sets the agents (on a membership change): surviving agents keep their loads, departed ones
     * are forgotten. Agents of a walk not set here are learned on first sight.
     */
    public void setAgents(Collection<String> agentIds) {
        agents.setAgents(agentIds);
    }

    /** Nothing in flight anywhere: the in-flight bound then passes nothing on. */
    public static final ToIntFunction<String> NOTHING_IN_FLIGHT = agent -> 0;

    /** {@link #place(String, long, RingWalk)} on a walk not needed afterwards. */
    public Placement place(String key, long keyHash, Iterator<String> clockwise) {
        return place(key, keyHash, new RingWalk(clockwise));
    }

    /**
     * Places one request of {@code key}.
     *
     * @param key     the request's key
     * @param keyHash the key's ring position (gives its rank and seeds {@link OverflowOrder#KEY_SEEDED})
     * @param walk    the ring walk from the key's position; read only as far as needed
     * @return the agent chosen and why
     */
    public Placement place(String key, long keyHash, RingWalk walk) {
        return place(key, keyHash, walk, NOTHING_IN_FLIGHT);
    }

    /**
     * Places one request of {@code key} under both bounds.
     *
     * @param key      the request's key
     * @param keyHash  the key's ring position
     * @param walk     the ring walk from the key's position; read only as far as needed
     * @param inFlight an agent's requests in flight now (>= 0); read only while the in-flight
     *                 bound is on: once per agent, or (placing a kept key afresh) up to four times
     * @return the agent chosen and why
     */
    public Placement place(String key, long keyHash, RingWalk walk, ToIntFunction<String> inFlight) {
        return place(key, keyHash, walk, inFlight, false);
    }

    /**
     * Places one request of {@code key} under both bounds, as {@link #place(String, long, RingWalk, ToIntFunction)};
     * with {@code othersInFlight} (other requests of the key are in flight: {@link #requestStarted})
     * a kept key's request is placed as the in-flight bound places any request, from its kept
     * agent, and the key stays kept: a conversation's turns do not overlap, so requests of one key in
     * flight together are conversations that open alike, or parallel calls.
     */
    public Placement place(String key, long keyHash, RingWalk walk, ToIntFunction<String> inFlight, boolean othersInFlight) {
        Loads loads = loads(walk);
        if (loads == null) {
            return new Placement(walk.home(), Kind.HOME);
        }
        Map<String, AgentLoads.Agent> members = loads.members;
        long now = loads.now;
        Placement placed = config.rankRule() ? ranked(key, keyHash, walk, loads) : plain(keyHash, walk, loads);
        if (!config.boundsInFlight()) {
            return placed;
        }
        return config.keepInFlightPlacement() ? keptWithinInFlight(key, placed, keyHash, walk, members, inFlight, now, othersInFlight)
                : withinInFlight(placed, keyHash, walk, members, inFlight, null);
    }

    /**
     * Counts a request of {@code key} about to be placed, for {@link #place(String, long, RingWalk, ToIntFunction, boolean)};
     * each must be followed by one {@link #requestEnded} when the request ends. Lock-free.
     *
     * @return the key's other requests in flight
     */
    public int requestStarted(String key) {
        return keys.touch(key).requestsInFlight.getAndIncrement();
    }

    /** A request {@link #requestStarted} counted ended (never below 0, should its key have been forgotten meanwhile). */
    public void requestEnded(String key) {
        KeyTable.Entry entry = keys.get(key);
        if (entry != null) {
            entry.requestsInFlight.updateAndGet(n -> Math.max(0, n - 1));
        }
    }

    /**
     * Places one request of a key whose agent holds its state (an MCP handle: a call that reaches
     * another agent finds no state there): always its home agent, the ring owner, whatever either
     * bound says ({@link Kind#HELD} when the share bound counts home as full). The request counts as
     * load like any other, and under the rank rule as a heavy key's does, so that the cold keys of
     * other kinds with the same home leave in its place.
     *
     * <p>Why not bounded as other keys: the bound follows shares that a balancer learns only from
     * the traffic. Handles whose first calls come before the shares are known (a fleet of clients
     * starting at once) would be placed by early estimates and moved once the estimates settle,
     * after their state was made; and replicas estimate each from their own part of the traffic.
     * Placed by the ring alone, a handle reaches the same agent on every replica and at every time,
     * as long as the agents stay the same; the spread of handles is the ring's shares (virtual
     * nodes) plus the binomial noise of their count, which no placement that every replica computes
     * from the key alone can reduce.
     *
     * @param walk the ring walk from the key's position; only its home is read unless the agents
     *             are not known yet
     * @return the home agent, {@link Kind#HOME} or {@link Kind#HELD}
     */
    public Placement placeStateful(RingWalk walk) {
        String home = walk.home();
        Loads loads = loads(walk);
        if (loads == null) {
            return new Placement(home, Kind.HOME);
        }
        if (config.rankRule()) {
            requests.add(1, loads.now);
            AgentLoads.Agent homeAgent = loads.members.get(home);
            homeAgent.offered.add(1, loads.now);
            homeAgent.heavy.add(1, loads.now);
        }
        return new Placement(home, loads.mean < WARMUP_MEAN || loads.fits(home, 1) ? Kind.HOME : Kind.HELD);
    }

    /**
     * The loads of one decision on {@code walk}, the walk's agents learned when its home is not
     * known (or fewer than two agents are); null when fewer than two agents are known even so.
     */
    private Loads loads(RingWalk walk) {
        Map<String, AgentLoads.Agent> members = agents.snapshot();
        if (!members.containsKey(walk.home()) || members.size() < 2) {
            members = agents.learn(walk.agents());
        }
        return members.size() < 2 ? null : new Loads(members, nanoClock.getAsLong(), config.balanceFactor());
    }

    /**
     * KubeAI's in-flight check over the placed agent, then the overflow order from it. When no agent
     * fits: the placed agent keeps the request (KubeAI), or, given {@code orLeast}, the agent of the
     * order with the least {@code inFlight}, then the least {@code orLeast}, the first of the order on a tie.
     */
    private Placement withinInFlight(Placement placed, long keyHash, RingWalk walk, Map<String, AgentLoads.Agent> members,
            ToIntFunction<String> inFlight, ToIntFunction<String> orLeast) {
        long total = 0;
        for (String agent : members.keySet()) {
            total += inFlight.applyAsInt(agent);
        }
        if (total == 0) {
            return placed;
        }
        double capacity = config.inFlightFactor() * (total + 1) / members.size();
        if (inFlight.applyAsInt(placed.agent()) + 1 <= capacity) {
            return placed;
        }
        List<String> order = order(walk, keyHash);
        int start = Math.max(0, order.indexOf(placed.agent()));
        for (int i = 1; i < order.size(); i++) {
            String candidate = order.get((start + i) % order.size());
            if (members.containsKey(candidate) && inFlight.applyAsInt(candidate) + 1 <= capacity) {
                return new Placement(candidate, Kind.DIVERTED);
            }
        }
        if (orLeast == null) {
            return placed;
        }
        String least = placed.agent();
        long leastLoad = (long) inFlight.applyAsInt(least) << 32 | orLeast.applyAsInt(least);
        for (int i = 1; i < order.size(); i++) {
            String candidate = order.get((start + i) % order.size());
            long load = (long) inFlight.applyAsInt(candidate) << 32 | orLeast.applyAsInt(candidate);
            if (members.containsKey(candidate) && load < leastLoad) {
                least = candidate;
                leastLoad = load;
            }
        }
        return least.equals(placed.agent()) ? placed : new Placement(least, Kind.DIVERTED);
    }

    /**
     * The in-flight check for keys that keep their placement ({@link BoundedLoad#keepInFlightPlacement()}):
     * a key placed at most tau before stays; otherwise (new, paused longer than tau, or its agent
     * gone) it is placed as {@link #withinInFlight} places a request, each agent counting the larger
     * of its requests in flight and its active sessions ({@link KeptSessions}).
     */
    private Placement keptWithinInFlight(String key, Placement placed, long keyHash, RingWalk walk,
            Map<String, AgentLoads.Agent> members, ToIntFunction<String> inFlight, long now, boolean othersInFlight) {
        KeyTable.Entry entry = keys.touch(key);
        String kept = entry.inFlightAgent;
        if (kept != null && sessions.active(entry.inFlightSeenNanos, now) && members.containsKey(kept)) {
            entry.inFlightSeenNanos = now;
            Placement at = kept.equals(placed.agent()) ? placed : new Placement(kept, Kind.DIVERTED);
            return othersInFlight ? withinInFlight(at, keyHash, walk, members, inFlight, null) : at;
        }
        sessions.recountIfDue(keys, now);
        Placement fresh = withinInFlight(placed, keyHash, walk, members, sessions.load(inFlight), inFlight);
        sessions.placed(entry, fresh.agent(), now);
        return fresh;
    }

    private Placement plain(long keyHash, RingWalk walk, Loads loads) {
        String home = walk.home();
        if (loads.fits(home, 1)) {
            return new Placement(home, Kind.HOME);
        }
        for (String agent : order(walk, keyHash)) {
            if (loads.fits(agent, 1)) {
                return new Placement(agent, Kind.OVERFLOW);
            }
        }
        return new Placement(home, Kind.HELD);
    }

    private Placement ranked(String key, long keyHash, RingWalk walk, Loads loads) {
        long now = loads.now;
        String home = walk.home();
        AgentLoads.Agent homeAgent = loads.members.get(home);
        KeyTable.Entry entry = keys.touch(key);
        double rate = entry.rate.valueAt(now);
        entry.rate.add(1, now);
        requests.add(1, now);
        double c = config.balanceFactor();
        // Judged against at least the warm-up mean: early on, every key's first request is a large share.
        boolean heavy = rate >= (c - 1) * Math.max(loads.mean, WARMUP_MEAN);
        homeAgent.offered.add(1, now);
        if (heavy) {
            homeAgent.heavy.add(1, now);
            entry.overflowAgent = null;
            return new Placement(home, loads.mean < WARMUP_MEAN || loads.fits(home, 1) ? Kind.HOME : Kind.HELD);
        }
        String before = entry.overflowAgent;
        if (loads.mean < WARMUP_MEAN) {
            entry.overflowAgent = null;
            return new Placement(home, before == null ? Kind.HOME : Kind.RETURNED);
        }
        double meanRequests = requests.valueAt(now) / loads.members.size();
        String chosen = home;
        AgentLoads.Agent agent = homeAgent;
        Iterator<String> next = null;
        while (agent.rank(keyHash) < agent.shedThreshold(now, meanRequests, c, config.returnFactor(), GRID)) {
            if (next == null) {
                next = order(walk, keyHash).iterator();
                next.next();
            }
            AgentLoads.Agent offered = null;
            String candidate = null;
            while (offered == null && next.hasNext()) {
                // An agent of the walk missing from the members is one leaving right now: skipped.
                candidate = next.next();
                offered = loads.members.get(candidate);
            }
            if (offered == null) {
                break;
            }
            chosen = candidate;
            agent = offered;
            agent.offered.add(1, now);
        }
        entry.overflowAgent = chosen.equals(home) ? null : chosen;
        if (chosen.equals(home)) {
            return new Placement(home, before == null ? Kind.HOME : Kind.RETURNED);
        }
        return new Placement(chosen, chosen.equals(before) ? Kind.STICKY : Kind.OVERFLOW);
    }

    private List<String> order(RingWalk walk, long keyHash) {
        List<String> ring = walk.agents();
        return config.overflowOrder() == OverflowOrder.CLOCKWISE ? ring : keySeeded(ring, keyHash);
    }

    /**
     * Home first, then the other agents sorted by id and shuffled by {@link Random} seeded with
     * the key's hash after MurmurHash3's finalizer: the same order in every JVM and instance.
     */
    static List<String> keySeeded(List<String> ring, long keyHash) {
        List<String> others = new ArrayList<>(ring.subList(1, ring.size()));
        Collections.sort(others);
        // Mixed first: java.util.Random's first outputs for nearby seeds are alike.
        Collections.shuffle(others, new Random(HashAlgorithm.fmix64(keyHash)));
        List<String> order = new ArrayList<>(ring.size());
        order.add(ring.get(0));
        order.addAll(others);
        return order;
    }

    /** Counts one request sent to {@code agent} now (each attempt, failover ones included). */
    public void recordSent(String agent) {
        agents.recordSent(agent, nanoClock.getAsLong());
    }

    /** Each agent's load now: its decayed count of requests sent, sorted by agent id. */
    public SortedMap<String, Double> loads() {
        return agents.loads(nanoClock.getAsLong());
    }

    /** Keys remembered now (at most about {@code maxKeys + maxKeys/16}). */
    public int rememberedKeys() {
        return keys.size();
    }

    /** Active kept sessions per agent as last counted ({@link BoundedLoad#keepInFlightPlacement()}). */
    Map<String, Integer> keptSessions() {
        return sessions.counts();
    }

    /** Keys now kept away from their home agent. O(keys). */
    public long overflowedKeys() {
        return keys.overflowed();
    }

    /** The loads of one decision, read once. */
    private static final class Loads {
        final Map<String, AgentLoads.Agent> members;
        final long now;
        final double mean;
        final double capacity;

        Loads(Map<String, AgentLoads.Agent> members, long now, double balanceFactor) {
            this.members = members;
            this.now = now;
            this.mean = (AgentLoads.totalSent(members, now) + 1) / members.size();
            this.capacity = Math.ceil(balanceFactor * mean);
        }

        double of(String agent) {
            AgentLoads.Agent a = members.get(agent);
            return a == null ? 0 : a.sent.valueAt(now);
        }

        boolean fits(String agent, double requests) {
            return of(agent) + requests <= capacity;
        }
    }
}
