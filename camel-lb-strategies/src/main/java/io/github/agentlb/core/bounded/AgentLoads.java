package io.github.agentlb.core.bounded;

import io.github.agentlb.core.hash.HashAlgorithm;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Bounded loads' per-agent state: for each agent of the ring, the decayed counts of the requests
 * sent to it (its load), of the keyed requests whose home it is (its demand), and of those from
 * heavy keys (held home whatever the bound). Membership is one immutable map swapped on a change
 * ({@link #setAgents}); a surviving agent keeps its counts, a departed one is forgotten.
 *
 * <p>Thread-safe: reads take the current snapshot without a lock; changes are synchronized and
 * rare (membership changes, or the first walk that shows an agent not yet known).
 */
final class AgentLoads {

    /** One agent's counts. */
    static final class Agent {
        final DecayedCount sent;
        final DecayedCount offered;
        final DecayedCount heavy;
        final long rankSalt;
        volatile double shedRank;

        Agent(String id, double tauNanos, double demandTauNanos) {
            sent = new DecayedCount(tauNanos);
            offered = new DecayedCount(demandTauNanos);
            heavy = new DecayedCount(demandTauNanos);
            rankSalt = rankSalt(id);
        }

        /** The key's rank at this agent ({@link AgentLoads#rank}). */
        double rank(long keyHash) {
            return AgentLoads.rank(rankSalt, keyHash);
        }

        /**
         * The rank below which the cold keys offered to this agent pass on, a multiple of
         * {@code grid} in 0..1, with s(level) the share of the offered cold demand that must pass
         * for the agent to keep {@code level x meanRequests}: raised to the step above
         * {@code s(leaveLevel)} when that passes it; lowered only to the step below
         * {@code s(returnLevel)} (and not below the step above {@code s(leaveLevel)}) when that
         * falls under it. Racing threads compute from the same counts, so whichever writes last
         * writes about the same value.
         */
        double shedThreshold(long nowNanos, double meanRequests, double leaveLevel, double returnLevel, double grid) {
            double demand = offered.valueAt(nowNanos);
            double cold = demand - heavy.valueAt(nowNanos);
            double needed = Math.ceil(share(demand - leaveLevel * meanRequests, cold) / grid) * grid;
            double current = shedRank;
            if (current < needed) {
                current = needed;
            } else {
                double enough = Math.floor(share(demand - returnLevel * meanRequests, cold) / grid) * grid;
                current = Math.min(current, Math.max(needed, enough));
            }
            shedRank = current;
            return current;
        }

        private static double share(double excess, double cold) {
            return excess <= 0 || cold <= 0 ? 0 : Math.min(1, excess / cold);
        }
    }

    /** The salt of an agent's ranks: the FNV-1a hash of its id, mixed. */
    static long rankSalt(String agentId) {
        return HashAlgorithm.FNV1A_64_MIXED.hash(agentId);
    }

    /**
     * A key's rank at an agent, in [0, 1): the key's ring position xor the agent's salt, through
     * MurmurHash3's finalizer, top 53 bits. The same in every instance and JVM; independent
     * between agents, so the keys an agent passes on are not the first ones the next passes on.
     */
    static double rank(long salt, long keyHash) {
        return (HashAlgorithm.fmix64(keyHash ^ salt) >>> 11) * 0x1.0p-53;
    }

    private final double tauNanos;
    private final double demandTauNanos;
    // A TreeMap: sums run in id order, so the same counts give the same bits in every JVM.
    private volatile Map<String, Agent> agents = Collections.unmodifiableMap(new TreeMap<>());

    AgentLoads(double tauNanos, double demandTauNanos) {
        this.tauNanos = tauNanos;
        this.demandTauNanos = demandTauNanos;
    }

    /** The agents now, an immutable snapshot. */
    Map<String, Agent> snapshot() {
        return agents;
    }

    /** Makes {@code ids} the agents: new ones start at zero, departed ones are forgotten. */
    synchronized void setAgents(Collection<String> ids) {
        Map<String, Agent> next = new TreeMap<>();
        for (String id : ids) {
            Agent kept = agents.get(id);
            next.put(id, kept != null ? kept : new Agent(id, tauNanos, demandTauNanos));
        }
        agents = Collections.unmodifiableMap(next);
    }

    /** Adds those of {@code ids} not known yet (a walk seen before any membership was set); returns the snapshot. */
    Map<String, Agent> learn(Collection<String> ids) {
        Map<String, Agent> current = agents;
        if (current.keySet().containsAll(ids)) {
            return current;
        }
        synchronized (this) {
            Map<String, Agent> next = new TreeMap<>(agents);
            ids.forEach(id -> next.computeIfAbsent(id, a -> new Agent(id, tauNanos, demandTauNanos)));
            agents = Collections.unmodifiableMap(next);
            return agents;
        }
    }

    /** Counts one request sent to {@code id}; an agent not known yet is learned. */
    void recordSent(String id, long nowNanos) {
        Agent agent = agents.get(id);
        if (agent == null) {
            agent = learn(List.of(id)).get(id);
        }
        agent.sent.add(1, nowNanos);
    }

    /** The sum of the agents' loads, in requests. O(n) decayed reads. */
    static double totalSent(Map<String, Agent> agents, long nowNanos) {
        double total = 0;
        for (Agent agent : agents.values()) {
            total += agent.sent.valueAt(nowNanos);
        }
        return total;
    }

    /** Each agent's load, sorted by id. */
    SortedMap<String, Double> loads(long nowNanos) {
        SortedMap<String, Double> loads = new TreeMap<>();
        agents.forEach((id, agent) -> loads.put(id, agent.sent.valueAt(nowNanos)));
        return loads;
    }
}
