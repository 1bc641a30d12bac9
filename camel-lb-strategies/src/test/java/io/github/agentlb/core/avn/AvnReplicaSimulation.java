package io.github.agentlb.core.avn;

import io.github.agentlb.core.ring.HashRing;
import io.github.agentlb.core.shared.Observations;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The hot-key workload against {@code replicas} {@link AdaptiveVirtualNodes} taking the
 * requests in turn, in simulated time: one request every 10 ms (100 req/s, the live job's rate
 * with 10 workers and 50-150 ms agents), user 0 sends {@code hotShare} of them, users 1..200 the
 * rest, in the order of {@code Collections.shuffle(list, new Random(seed))}. The agents report
 * what the stub agents report, the load of all replicas together: CPU
 * {@code 0.1 + 0.9 min(1, inSystem / 10)} with {@code inSystem} the agent's requests among the
 * last 10 sent (100 ms of service), memory 0.2; each report goes to the replica that sent the
 * request, as an answer's headers do.
 */
final class AvnReplicaSimulation {

    static final List<String> AGENTS = List.of("A1", "A2", "A3");
    static final long STEP_NANOS = 10_000_000L;
    private static final int IN_FLIGHT = 10;

    private AvnReplicaSimulation() {
    }

    /**
     * What one run measured: {@code finalVirtualNodes} per replica; {@code firstDivergence} the
     * request after which the replicas' virtual node counts first differed at an evaluation
     * point, -1 if never; {@code disagreement} the share of keys whose last agent differs
     * between the first two replicas.
     */
    record Result(double maxOverMean, double stickinessOthers, int hotAgents, double disagreement,
            long reallocations, List<SortedMap<String, Integer>> finalVirtualNodes, int firstDivergence) {

        boolean replicasAgree() {
            return finalVirtualNodes.stream().distinct().count() == 1;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "max/mean=%.3f sticky=%.3f hotAgents=%d disagree=%.3f moves=%d diverged@%d vnodes=%s",
                    maxOverMean, stickinessOthers, hotAgents, disagreement, reallocations, firstDivergence, finalVirtualNodes);
        }
    }

    /**
     * Runs {@code keys} over {@code replicas} instances made by {@code factory} (given the shared
     * simulated clock); each evaluates when its {@code record} says so.
     */
    static Result run(Function<AtomicLong, AdaptiveVirtualNodes> factory, List<String> keys,
            int replicas) {
        return run(factory, keys, replicas, 0);
    }

    /**
     * As {@link #run(Function, List, int)}, but with {@code gridRequests > 0}
     * every replica evaluates at the same instants, every {@code gridRequests} requests of all
     * replicas together (a shared time grid), whatever its own {@code record} says.
     */
    static Result run(Function<AtomicLong, AdaptiveVirtualNodes> factory, List<String> keys,
            int replicas, int gridRequests) {
        return run(factory, keys, replicas, gridRequests, Oracle.NONE);
    }

    /**
     * What replicas share besides the agents: {@link #NONE} (the real case), or, as an oracle
     * for finding what makes them diverge, every request's key position or every report given
     * to all replicas; or {@link #LEADER}: the first replica alone records its own requests and
     * reports and evaluates, and every replica routes by its ring (as if the others installed
     * its virtual node counts at once); or {@link #LEADER_OBSERVING}: as {@code LEADER}, but the
     * others buffer their requests' key positions and reports and hand them to the leader as
     * {@code Observations} every {@code evaluationWindow / (replicas x sharesPerWindow)} of their
     * own requests, which
     * arrive at the leader's next request (before an evaluation it makes); the leader evaluates
     * every {@code evaluationWindow / replicas} of its own requests, as the real one does (the
     * grid is not used).
     */
    enum Oracle { NONE, SHARED_HISTORY, SHARED_REPORTS, BOTH, LEADER, LEADER_OBSERVING }

    static Result run(Function<AtomicLong, AdaptiveVirtualNodes> factory, List<String> keys,
            int replicas, int gridRequests, Oracle oracle) {
        return run(factory, keys, replicas, gridRequests, oracle, Observations.SHARES_PER_WINDOW);
    }

    /**
     * As {@link #run(Function, List, int, int, Oracle)}; with {@link Oracle#LEADER_OBSERVING} a
     * follower shares every {@link Observations#shareEvery shareEvery(evaluationWindow, replicas,
     * sharesPerWindow)} of its own requests.
     */
    static Result run(Function<AtomicLong, AdaptiveVirtualNodes> factory, List<String> keys,
            int replicas, int gridRequests, Oracle oracle, int sharesPerWindow) {
        AtomicLong clock = new AtomicLong();
        List<AdaptiveVirtualNodes> balancers = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            AdaptiveVirtualNodes avn = factory.apply(clock);
            avn.setAgents(AGENTS);
            balancers.add(avn);
        }
        Map<String, Integer> total = new TreeMap<>();
        Map<String, Set<String>> agentsOfKey = new HashMap<>();
        List<Map<String, String>> lastOfReplica = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            lastOfReplica.add(new HashMap<>());
        }
        Deque<String> inFlight = new ArrayDeque<>();
        int firstDivergence = -1;
        boolean observing = oracle == Oracle.LEADER_OBSERVING;
        List<List<Long>> bufferedPositions = new ArrayList<>();
        List<List<Observations.Report>> bufferedReports = new ArrayList<>();
        long[] shares = new long[replicas];
        for (int r = 0; r < replicas; r++) {
            bufferedPositions.add(new ArrayList<>());
            bufferedReports.add(new ArrayList<>());
        }
        List<Observations> inTransit = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            clock.set(i * STEP_NANOS);
            String key = keys.get(i);
            AdaptiveVirtualNodes avn = balancers.get(i % replicas);
            boolean leader = oracle == Oracle.LEADER || observing;
            HashRing ring = leader ? balancers.get(0).ring() : avn.ring();
            long position = ring.hash(key);
            String agent = ring.agentAt(position);
            total.merge(agent, 1, Integer::sum);
            agentsOfKey.computeIfAbsent(key, k -> new HashSet<>()).add(agent);
            lastOfReplica.get(i % replicas).put(key, agent);
            inFlight.addLast(agent);
            if (inFlight.size() > IN_FLIGHT) {
                inFlight.removeFirst();
            }
            long inSystem = inFlight.stream().filter(agent::equals).count();
            double cpu = 0.1 + 0.9 * Math.min(1, inSystem / (double) IN_FLIGHT);
            boolean sharedReports = oracle == Oracle.SHARED_REPORTS || oracle == Oracle.BOTH;
            boolean sharedHistory = oracle == Oracle.SHARED_HISTORY || oracle == Oracle.BOTH;
            if (observing) {
                AdaptiveVirtualNodes lead = balancers.get(0);
                int r = i % replicas;
                if (r == 0) {
                    for (Observations o : inTransit) {
                        o.positions().forEach(lead::observe);
                        o.reports().forEach(report -> lead.report(report.agent(), report.cpu(), report.memory()));
                    }
                    inTransit.clear();
                    lead.report(agent, cpu, 0.2);
                    if (lead.record(position, replicas)) {
                        lead.evaluate();
                    }
                } else {
                    bufferedPositions.get(r).add(position);
                    bufferedReports.get(r).add(new Observations.Report(agent, cpu, 0.2));
                    if (bufferedPositions.get(r).size() == Observations.shareEvery(lead.config().evaluationWindow(), replicas, sharesPerWindow)) {
                        inTransit.add(new Observations("r" + r, ++shares[r], bufferedPositions.get(r), bufferedReports.get(r)));
                        bufferedPositions.get(r).clear();
                        bufferedReports.get(r).clear();
                    }
                }
                continue;
            }
            if (leader) {
                if (avn == balancers.get(0)) {
                    avn.report(agent, cpu, 0.2);
                    avn.record(position);
                }
                if ((i + 1) % gridRequests == 0) {
                    balancers.get(0).evaluate();
                }
                continue;
            }
            for (AdaptiveVirtualNodes b : balancers) {
                if (b == avn || sharedReports) {
                    b.report(agent, cpu, 0.2);
                }
                if (b != avn && sharedHistory) {
                    b.record(position);
                }
            }
            boolean due = avn.record(position);
            if (gridRequests > 0) {
                if ((i + 1) % gridRequests == 0) {
                    balancers.forEach(AdaptiveVirtualNodes::evaluate);
                    if (firstDivergence < 0 && balancers.stream().map(AdaptiveVirtualNodes::virtualNodes).distinct().count() > 1) {
                        firstDivergence = i + 1;
                    }
                }
            } else if (due) {
                avn.evaluate();
                if (firstDivergence < 0 && balancers.stream().map(AdaptiveVirtualNodes::virtualNodes).distinct().count() > 1
                        && (i + 1) % (replicas * avn.config().evaluationWindow()) == 0) {
                    firstDivergence = i + 1;
                }
            }
        }
        long sticky = agentsOfKey.entrySet().stream().filter(e -> !e.getKey().equals("0") && e.getValue().size() == 1)
                .count();
        long others = agentsOfKey.keySet().stream().filter(k -> !k.equals("0")).count();
        int max = AGENTS.stream().mapToInt(a -> total.getOrDefault(a, 0)).max().orElse(0);
        List<SortedMap<String, Integer>> vnodes = balancers.stream()
                .map(b -> leader(oracle) ? balancers.get(0).virtualNodes() : b.virtualNodes()).toList();
        long moves = balancers.stream().mapToLong(AdaptiveVirtualNodes::reallocations).sum();
        return new Result(max / ((double) keys.size() / AGENTS.size()), (double) sticky / others,
                agentsOfKey.getOrDefault("0", Set.of()).size(), disagreement(lastOfReplica), moves, vnodes, firstDivergence);
    }

    private static boolean leader(Oracle oracle) {
        return oracle == Oracle.LEADER || oracle == Oracle.LEADER_OBSERVING;
    }

    /** The share of keys whose last agent differs between the first two replicas (0 for one). */
    private static double disagreement(List<Map<String, String>> lastOfReplica) {
        if (lastOfReplica.size() < 2) {
            return 0;
        }
        long both = 0;
        long differ = 0;
        for (Map.Entry<String, String> e : lastOfReplica.get(0).entrySet()) {
            String other = lastOfReplica.get(1).get(e.getKey());
            if (other != null) {
                both++;
                differ += other.equals(e.getValue()) ? 0 : 1;
            }
        }
        return both == 0 ? 0 : (double) differ / both;
    }
}
