package io.github.agentlb.core.shared;

import io.github.agentlb.core.avn.AdaptiveVirtualNodes;
import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.ring.HashRing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The load generator's {@code hotkey} scenario replayed in simulated time, deterministically, over
 * one {@code avn} balancer or N replicas sharing one allocation through an in-memory store: the
 * scenario's seeded request order (100 warm-up requests over users 1..80, seed 43, then 2,000 over
 * users 1..200, seed 42; user 0 sends 20% of both), sent by 10 closed-loop workers, request i of a
 * phase to replica {@code i mod N}; three stub agents A1..A3 with seeded service delays of
 * 50-150 ms, each answer carrying the stub's load report (CPU {@code 0.1 + 0.9 min(1, avg/10)},
 * avg the agent's requests in its system averaged with a 250 ms time constant; memory 0.2).
 * Each replica runs the library's own {@link AvnLearning} and {@link SharedAllocationSync}; the
 * store delivers a write to its writer after {@code writeDelay} and to every replica's cache
 * after {@code writeDelay + readDelay}, and a follower's share to the leader after
 * {@code shareDelay}. Replica 0 leads from the start. Measured as the scenario measures: max/mean
 * of the requests per agent and the share of users 1..200 whose answers all came from one agent
 * (the warm-up not counted).
 */
final class HotKeyReplay {

    static final List<String> AGENTS = List.of("A1", "A2", "A3");
    private static final int WORKERS = 10;
    private static final double HOT_SHARE = 0.2;
    private static final long MS = 1_000_000L;
    private static final double TIME_CONSTANT_NANOS = 250 * MS;

    /** Store latencies, ms. */
    record Store(long writeDelayMs, long readDelayMs, long shareDelayMs) {
        static final Store LOOPBACK = new Store(2, 2, 2);
    }

    /** One replay's figures; {@code moves} the virtual nodes moved (by the leader, or the one balancer). */
    record Figures(double maxOverMean, double stickiness, long moves, SortedMap<String, Integer> virtualNodes) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "max/mean %.3f stickiness %.3f moves %d %s", maxOverMean, stickiness,
                    moves, virtualNodes);
        }
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long sequence;

    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
        }
    }

    private void at(long time, Runnable action) {
        events.add(new Event(time, sequence++, action));
    }

    /** The scenario's request order: user ids, {@code round(0.2 x requests)} of them user 0. */
    static List<Integer> users(int requests, int users, long seed) {
        int hot = (int) Math.round(HOT_SHARE * requests);
        List<Integer> ids = new ArrayList<>(requests);
        for (int i = 0; i < requests - hot; i++) {
            ids.add(i % users + 1);
        }
        for (int i = 0; i < hot; i++) {
            ids.add(0);
        }
        Collections.shuffle(ids, new Random(seed));
        return ids;
    }

    /** A stub agent: seeded delays, the time-averaged requests in its system. */
    private final class Agent {
        final Random delays;
        int inSystem;
        double average;
        long averagedUntil;

        Agent(long seed) {
            delays = new Random(seed);
        }

        void advance() {
            long elapsed = now - averagedUntil;
            if (elapsed > 0) {
                average = inSystem + (average - inSystem) * Math.exp(-elapsed / TIME_CONSTANT_NANOS);
                averagedUntil = now;
            }
        }

        double cpu() {
            return Math.min(1, Math.max(0, 0.1 + 0.9 * Math.min(1.0, average / 10)));
        }
    }

    /** One balancer: the algorithm, its learning and, when shared, its side of the store. */
    private final class Replica implements AllocationExchange {
        final int index;
        final int replicas;
        final AdaptiveVirtualNodes avn;
        final SharedAllocationSync sync;
        final AvnLearning learning;
        final ReplayStore store;
        Listener listener;

        Replica(int index, int replicas, AdaptiveVirtualNodesConfig config, ReplayStore store) {
            this.index = index;
            this.replicas = replicas;
            this.store = store;
            this.avn = new AdaptiveVirtualNodes(config, () -> now);
            avn.setAgents(AGENTS);
            this.sync = store == null ? null
                    : new SharedAllocationSync(new SharedAllocation(this, Duration.ofSeconds(30)), () -> avn, () -> { },
                    () -> now);
            this.learning = new AvnLearning(() -> avn, sync, e -> { });
        }

        @Override
        public void start(Object context, Listener l) {
            listener = l;
        }

        @Override
        public void publish(Allocation allocation) {
            at(now + store.delays.writeDelayMs() * MS, () -> store.write(this, allocation));
        }

        @Override
        public void share(Observations observations) {
            at(now + store.delays.shareDelayMs() * MS, () -> store.leader.listener.observed(observations));
        }

        @Override
        public String replicaId() {
            return "r" + index;
        }

        @Override
        public int replicas() {
            return replicas;
        }

        @Override
        public String describe() {
            return "replay";
        }

        @Override
        public void close() {
        }
    }

    /** The store: one value written by compare-and-set on its generation, read by every replica. */
    private final class ReplayStore {
        final Store delays;
        final List<Replica> replicas = new ArrayList<>();
        Replica leader;
        Allocation stored;

        ReplayStore(Store delays) {
            this.delays = delays;
        }

        void write(Replica writer, Allocation allocation) {
            if (stored != null && allocation.generation() != stored.generation() + 1) {
                writer.listener.published(allocation, false, "BADVERSION");
                return;
            }
            stored = allocation;
            writer.listener.published(allocation, true, "written");
            for (Replica r : replicas) {
                at(now + delays.readDelayMs() * MS, () -> r.listener.allocationChanged(allocation));
            }
        }
    }

    /**
     * Replays the scenario over {@code replicas} balancers: one balancer learning alone when
     * {@code store} is null (then {@code replicas} must be 1), else replicas sharing through it.
     *
     * @param agentSeed seed of the agents' delays (a run's timing)
     */
    static Figures run(int replicas, Store store, long agentSeed) throws Exception {
        return run(replicas, store, agentSeed, AdaptiveVirtualNodesConfig.ofDefaults());
    }

    /** As {@link #run(int, Store, long)} with every balancer on {@code config}. */
    static Figures run(int replicas, Store store, long agentSeed, AdaptiveVirtualNodesConfig config) throws Exception {
        return new HotKeyReplay().replay(replicas, store, agentSeed, config);
    }

    private Figures replay(int n, Store delays, long agentSeed, AdaptiveVirtualNodesConfig config) throws Exception {
        ReplayStore store = delays == null ? null : new ReplayStore(delays);
        List<Replica> replicas = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            replicas.add(new Replica(i, n, config, store));
        }
        Map<String, Agent> agents = new TreeMap<>();
        for (int i = 0; i < AGENTS.size(); i++) {
            agents.put(AGENTS.get(i), new Agent(agentSeed * 31 + i));
        }
        if (store != null) {
            store.replicas.addAll(replicas);
            store.leader = replicas.get(0);
            for (Replica r : replicas) {
                r.sync.start(null);
                r.listener.connectionChanged(true);
            }
            replicas.get(0).listener.leadershipChanged(true);
        }
        Map<String, Integer> perAgent = new TreeMap<>();
        Map<Integer, Set<String>> agentsOfUser = new HashMap<>();
        phase(users(100, 80, 43), replicas, agents, null, null);
        phase(users(2000, 200, 42), replicas, agents, perAgent, agentsOfUser);
        int max = perAgent.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        long others = agentsOfUser.keySet().stream().filter(u -> u != 0).count();
        long sticky = agentsOfUser.entrySet().stream().filter(e -> e.getKey() != 0 && e.getValue().size() == 1).count();
        Replica first = replicas.get(0);
        return new Figures(max / (2000.0 / AGENTS.size()), (double) sticky / others, first.avn.reallocations(),
                first.avn.virtualNodes());
    }

    /** Sends {@code users} by the closed loop and runs every event until the last answer. */
    private void phase(List<Integer> users, List<Replica> replicas, Map<String, Agent> agents,
            Map<String, Integer> perAgent, Map<Integer, Set<String>> agentsOfUser) {
        int[] next = {0};
        int[] open = {0};
        Runnable[] send = new Runnable[1];
        send[0] = () -> {
            if (next[0] >= users.size()) {
                return;
            }
            int i = next[0]++;
            int user = users.get(i);
            Replica replica = replicas.get(i % replicas.size());
            HashRing ring = replica.avn.ring();
            long position = ring.hash(Integer.toString(user));
            String id = ring.agentAt(position);
            Agent agent = agents.get(id);
            agent.advance();
            agent.inSystem++;
            open[0]++;
            long delay = (50 + agent.delays.nextInt(101)) * MS;
            at(now + delay, () -> {
                agent.advance();
                double cpu = agent.cpu();
                agent.inSystem--;
                open[0]--;
                replica.learning.report(id, cpu, 0.2);
                replica.learning.answered(position);
                if (perAgent != null) {
                    perAgent.merge(id, 1, Integer::sum);
                    agentsOfUser.computeIfAbsent(user, u -> new HashSet<>()).add(id);
                }
                send[0].run();
            });
        };
        for (int w = 0; w < WORKERS; w++) {
            send[0].run();
        }
        while (open[0] > 0 && !events.isEmpty()) {
            Event e = events.poll();
            now = Math.max(now, e.at());
            e.action().run();
        }
    }
}
