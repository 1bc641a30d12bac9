package io.github.agentlb.core.bounded;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.ring.HashRing;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hot-key workload replayed against a ring with or without bounded loads, in
 * simulated time: user 0 sends {@code hotShare} of all requests, users 1..200 share the rest
 * equally, in the order of {@code Collections.shuffle(list, new Random(seed))}; one request
 * every {@code 10 ms} (100 req/s), each counted on the agent chosen at once (the agent's
 * {@code attemptStarted}). {@code replicas} balancers take the requests in turn, each seeing
 * only its own.
 */
final class HotKeySimulation {

    static final List<String> AGENTS = List.of("A1", "A2", "A3");
    static final long STEP_NANOS = 10_000_000L;

    private HotKeySimulation() {
    }

    /** What one run measured. */
    record Result(double maxOverMean, double worstWindowMaxOverMean, double movesPer1000, double stickinessOthers,
            int hotAgents, double crossReplicaDisagreement, Map<String, Integer> requests) {

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "max/mean=%.3f worstWindow=%.3f moves/1000=%.1f sticky=%.3f hotAgents=%d"
                    + " disagree=%.3f %s", maxOverMean, worstWindowMaxOverMean, movesPer1000, stickinessOthers, hotAgents,
                    crossReplicaDisagreement, requests);
        }
    }

    /** The ring of {@code ch} at its defaults: 150 MD5 virtual nodes per agent. */
    static HashRing chRing() {
        return chRing(AGENTS);
    }

    /** {@link #chRing()} over other agent ids. */
    static HashRing chRing(List<String> agents) {
        return HashRing.uniform(agents, 150, HashAlgorithm.MD5);
    }

    /**
     * Runs {@code keys} over {@code ring}.
     *
     * @param config   bounded loads, or {@link BoundedLoad#disabled()} for the ring alone
     * @param window   requests per window for the worst window's max/mean
     * @param replicas balancers taking requests in turn (1 for one balancer)
     */
    static Result run(HashRing ring, BoundedLoad config, List<String> keys, int window, int replicas) {
        AtomicLong clock = new AtomicLong();
        List<BoundedLoads> balancers = new ArrayList<>();
        for (int r = 0; r < replicas && config.isEnabled(); r++) {
            balancers.add(new BoundedLoads(config, clock::get));
        }
        Map<String, Integer> total = new TreeMap<>();
        Map<String, Integer> inWindow = new HashMap<>();
        Map<String, Set<String>> agentsOfKey = new HashMap<>();
        List<Map<String, String>> lastOfReplica = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            lastOfReplica.add(new HashMap<>());
        }
        Map<String, String> last = new HashMap<>();
        double worst = 0;
        long moves = 0;
        for (int i = 0; i < keys.size(); i++) {
            clock.set(i * STEP_NANOS);
            String key = keys.get(i);
            long hash = ring.hash(key);
            String agent;
            if (balancers.isEmpty()) {
                agent = ring.agentAt(hash);
            } else {
                BoundedLoads balancer = balancers.get(i % replicas);
                agent = balancer.place(key, hash, ring.agentsClockwise(hash)).agent();
                balancer.recordSent(agent);
            }
            total.merge(agent, 1, Integer::sum);
            inWindow.merge(agent, 1, Integer::sum);
            agentsOfKey.computeIfAbsent(key, k -> new HashSet<>()).add(agent);
            lastOfReplica.get(i % replicas).put(key, agent);
            String previous = last.put(key, agent);
            if (previous != null && !previous.equals(agent)) {
                moves++;
            }
            if ((i + 1) % window == 0) {
                worst = Math.max(worst, maxOverMean(ring.agents(), inWindow, window));
                inWindow.clear();
            }
        }
        long sticky = agentsOfKey.entrySet().stream().filter(e -> !e.getKey().equals("0") && e.getValue().size() == 1)
                .count();
        long others = agentsOfKey.keySet().stream().filter(k -> !k.equals("0")).count();
        return new Result(maxOverMean(ring.agents(), total, keys.size()), worst, moves * 1000.0 / keys.size(), (double) sticky / others,
                agentsOfKey.getOrDefault("0", Set.of()).size(), disagreement(lastOfReplica), total);
    }

    private static double maxOverMean(Set<String> agents, Map<String, Integer> counts, int requests) {
        int max = agents.stream().mapToInt(a -> counts.getOrDefault(a, 0)).max().orElse(0);
        return max / ((double) requests / agents.size());
    }

    /** The share of keys whose last agent differs between two replicas (0 for one replica). */
    private static double disagreement(List<Map<String, String>> lastOfReplica) {
        if (lastOfReplica.size() < 2) {
            return 0;
        }
        Map<String, String> first = lastOfReplica.get(0);
        long both = 0;
        long differ = 0;
        for (Map.Entry<String, String> e : first.entrySet()) {
            String other = lastOfReplica.get(1).get(e.getKey());
            if (other != null) {
                both++;
                differ += other.equals(e.getValue()) ? 0 : 1;
            }
        }
        return both == 0 ? 0 : (double) differ / both;
    }
}
