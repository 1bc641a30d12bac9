package io.github.agentlb.loadgen.stats;

import io.github.agentlb.loadgen.config.Workload;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * What a hot-key run did to the hot user and to the others, computed from the outcomes alone (no
 * I/O, no clock). The measures:
 * <ul>
 *   <li>stickiness of the other users: among users other than {@value Workload#HOT_USER} with at
 *       least one successful answer, the share whose answers all came from one agent, whichever
 *       replica each request passed (fraction 0..1, 0 when none was answered);
 *   <li>within replicas: the share of those users that each replica kept on one agent, though two
 *       replicas may have chosen different agents; equal to the above with one replica, and the
 *       difference between the two is the users the replicas disagree on;
 *   <li>the agents the hot user reached, with its successful requests on each.
 * </ul>
 * Failed requests neither break nor make a user's stickiness, as in {@link RunStatistics}.
 *
 * @param otherUsers              other users with a successful answer
 * @param stickyOthers            of those, users whose answers all came from one agent
 * @param stickyOthersPerReplica  of those, users each replica kept on one agent
 * @param hotUserAgents           the hot user's successful requests per agent, sorted by agent
 * @param replicas                balancer replicas the requests alternated across, >= 1
 */
public record HotKeyStatistics(int otherUsers, int stickyOthers, int stickyOthersPerReplica,
                               SortedMap<String, Long> hotUserAgents, int replicas) {

    /** @throws IllegalArgumentException if the counts are inconsistent */
    public HotKeyStatistics {
        if (stickyOthers < 0 || stickyOthers > stickyOthersPerReplica || stickyOthersPerReplica > otherUsers) {
            throw new IllegalArgumentException("need 0 <= stickyOthers <= stickyOthersPerReplica <= otherUsers, was "
                    + stickyOthers + ", " + stickyOthersPerReplica + ", " + otherUsers);
        }
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1, was " + replicas);
        }
        hotUserAgents = Collections.unmodifiableSortedMap(new TreeMap<>(hotUserAgents));
    }

    /**
     * The statistics of {@code outcomes}, whose requests alternated across {@code replicas}
     * replicas as {@code replicaOf} says (the replica of a request, 0-based).
     */
    public static HotKeyStatistics of(List<RequestOutcome> outcomes, int replicas,
                                      ToIntFunction<RequestOutcome> replicaOf) {
        Map<Integer, Set<String>> agentsOfUser = new HashMap<>();
        Map<Integer, Map<Integer, Set<String>>> agentsOfUserPerReplica = new HashMap<>();
        SortedMap<String, Long> hot = new TreeMap<>();
        for (RequestOutcome o : outcomes) {
            if (!o.isSuccess()) {
                continue;
            }
            if (o.userId() == Workload.HOT_USER) {
                hot.merge(o.agentId(), 1L, Long::sum);
                continue;
            }
            agentsOfUser.computeIfAbsent(o.userId(), u -> new HashSet<>()).add(o.agentId());
            agentsOfUserPerReplica.computeIfAbsent(o.userId(), u -> new HashMap<>())
                    .computeIfAbsent(replicaOf.applyAsInt(o), r -> new HashSet<>()).add(o.agentId());
        }
        int sticky = (int) agentsOfUser.values().stream().filter(agents -> agents.size() == 1).count();
        int stickyPerReplica = (int) agentsOfUserPerReplica.values().stream()
                .filter(byReplica -> byReplica.values().stream().allMatch(agents -> agents.size() == 1)).count();
        return new HotKeyStatistics(agentsOfUser.size(), sticky, stickyPerReplica, hot, replicas);
    }

    /**
     * The statistics of a run of {@code workload} over {@code replicas} replicas alternating as
     * the load route sends ({@link Workload#replicaOf}: request {@code i} to replica {@code i mod n}).
     */
    public static HotKeyStatistics of(List<RequestOutcome> outcomes, Workload workload, int replicas) {
        Map<String, Integer> position = new HashMap<>();
        List<Workload.PlannedRequest> planned = workload.requests();
        for (int i = 0; i < planned.size(); i++) {
            position.put(planned.get(i).requestId(), i);
        }
        return of(outcomes, replicas, o -> Workload.replicaOf(position.get(o.requestId()), replicas));
    }

    /** Share of the other users whose answers all came from one agent, 0..1. */
    public double othersStickiness() {
        return otherUsers == 0 ? 0 : (double) stickyOthers / otherUsers;
    }

    /** Share of the other users each replica kept on one agent, 0..1. */
    public double othersStickinessPerReplica() {
        return otherUsers == 0 ? 0 : (double) stickyOthersPerReplica / otherUsers;
    }

    /** The number of agents that answered the hot user. */
    public int hotUserAgentCount() {
        return hotUserAgents.size();
    }

    /** The hot user's successful requests. */
    public long hotUserRequests() {
        return hotUserAgents.values().stream().mapToLong(Long::longValue).sum();
    }
}
