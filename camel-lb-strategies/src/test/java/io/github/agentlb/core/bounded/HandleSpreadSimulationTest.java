package io.github.agentlb.core.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.ring.HashRing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Designs for MCP handles through two balancer replicas, compared on the same calls: 300 seeded
 * sets ({@code Random(set)}) of 150 handles of 16 hex digits on agents A1, A2, A3, all started at
 * once, four rounds of one call per handle, a handle's calls taking turns between the replicas
 * (round r sends handle k to replica (k + r) mod 2), one call every 5 ms of an injected clock,
 * each replica counting only its own calls. Per set: stickiness (the share of calls that reached
 * their handle's first agent) and max/mean of the handles per agent of their first call; the
 * figures are those of docs/bounded-load.md ("Stateful keys").
 */
class HandleSpreadSimulationTest {

    private static final List<String> AGENTS = List.of("A1", "A2", "A3");
    private static final int SETS = 300;
    private static final BoundedLoad MCP_BOUND = BoundedLoad.custom().balanceFactor(1.25)
            .decayTime(Duration.ofSeconds(60)).build();

    private final AtomicLong clock = new AtomicLong();

    /** One replica's choice of agent for a key. */
    private interface Replica {
        String route(String key);
    }

    private interface Design {
        Replica replica(HashRing ring);
    }

    private static HashRing ring(int virtualNodes) {
        return HashRing.uniform(AGENTS, virtualNodes, HashAlgorithm.MD5);
    }

    /** Each design's counts over the sets: sets within each criterion, mean stickiness, worst max/mean. */
    private String sweep(HashRing ring, Design design) {
        int sticky = 0;
        int spread = 0;
        int both = 0;
        double stickinessSum = 0;
        double worst = 0;
        for (int set = 0; set < SETS; set++) {
            double[] figures = run(set, List.of(design.replica(ring), design.replica(ring)));
            sticky += figures[0] >= 0.99 ? 1 : 0;
            spread += figures[1] <= 1.25 ? 1 : 0;
            both += figures[0] >= 0.99 && figures[1] <= 1.25 ? 1 : 0;
            stickinessSum += figures[0];
            worst = Math.max(worst, figures[1]);
        }
        return String.format(Locale.ROOT, "sticky %d, spread %d, both %d, mean stickiness %.4f, worst max/mean %.2f",
                sticky, spread, both, stickinessSum / SETS, worst);
    }

    /** Stickiness and max/mean of one set. */
    private double[] run(int set, List<Replica> replicas) {
        Random random = new Random(set);
        List<String> handles = new ArrayList<>();
        for (int k = 0; k < 150; k++) {
            handles.add("mcp-param:handle:" + Long.toHexString(random.nextLong()));
        }
        Map<String, List<String>> agents = new LinkedHashMap<>();
        long now = 1_000_000_000_000L;
        for (int round = 0; round < 4; round++) {
            for (int k = 0; k < handles.size(); k++) {
                clock.set(now);
                now += 5_000_000L;
                String agent = replicas.get((k + round) % 2).route(handles.get(k));
                agents.computeIfAbsent(handles.get(k), h -> new ArrayList<>()).add(agent);
            }
        }
        long home = agents.values().stream().mapToLong(list -> list.stream().filter(list.get(0)::equals).count()).sum();
        Map<String, Integer> perAgent = new TreeMap<>();
        agents.values().forEach(list -> perAgent.merge(list.get(0), 1, Integer::sum));
        return new double[] {home / 600.0, Collections.max(perAgent.values()) / 50.0};
    }

    /** The load bound placing handles as other keys (the rank rule), each replica on its own counts. */
    private Replica ranked(HashRing ring) {
        BoundedLoads loads = new BoundedLoads(MCP_BOUND, clock::get);
        loads.setAgents(AGENTS);
        return key -> {
            long position = ring.hash(key);
            String agent = loads.place(key, position, ring.agentsClockwise(position)).agent();
            loads.recordSent(agent);
            return agent;
        };
    }

    /** Handles as stateful keys ({@link BoundedLoads#placeStateful}). */
    private Replica stateful(HashRing ring) {
        BoundedLoads loads = new BoundedLoads(MCP_BOUND, clock::get);
        loads.setAgents(AGENTS);
        return key -> {
            String agent = loads.placeStateful(new RingWalk(ring.agentsClockwise(ring.hash(key)))).agent();
            loads.recordSent(agent);
            return agent;
        };
    }

    /**
     * A design not taken, modelled here: a spill decided from the key. Each agent's demand is the
     * decayed count (tau 60 s) of the requests whose ring owner it is, which does not move when
     * keys spill; past a mean of 10 requests per agent, an agent whose demand D exceeds c x mean
     * passes on the keys whose rank there is below {@code 1 - c x mean / D}, to the next agent
     * clockwise, which applies the same rule with its own ranks.
     */
    private Replica spill(HashRing ring) {
        double tauNanos = Duration.ofSeconds(60).toNanos();
        Map<String, DecayedCount> demand = new TreeMap<>();
        AGENTS.forEach(agent -> demand.put(agent, new DecayedCount(tauNanos)));
        return key -> {
            long position = ring.hash(key);
            long now = clock.get();
            Iterator<String> walk = ring.agentsClockwise(position);
            String agent = walk.next();
            demand.get(agent).add(1, now);
            double mean = demand.values().stream().mapToDouble(d -> d.valueAt(now)).sum() / AGENTS.size();
            if (mean < BoundedLoads.WARMUP_MEAN) {
                return agent;
            }
            while (walk.hasNext()) {
                double own = demand.get(agent).valueAt(now);
                double threshold = own <= 1.25 * mean ? 0 : 1 - 1.25 * mean / own;
                if (AgentLoads.rank(AgentLoads.rankSalt(agent), position) >= threshold) {
                    return agent;
                }
                agent = walk.next();
            }
            return agent;
        };
    }

    @Test
    void handlesOnTheRingKeepEveryCallHomeAndSpreadAsTheirCountAllows() {
        assertThat(sweep(ring(150), r -> r::agentFor))
                .isEqualTo("sticky 300, spread 276, both 276, mean stickiness 1.0000, worst max/mean 1.46");
        assertThat(sweep(ring(1000), r -> r::agentFor))
                .isEqualTo("sticky 300, spread 277, both 277, mean stickiness 1.0000, worst max/mean 1.40");
        // Stateful keys under the bound are the ring's placement exactly.
        assertThat(sweep(ring(1000), this::stateful))
                .isEqualTo("sticky 300, spread 277, both 277, mean stickiness 1.0000, worst max/mean 1.40");
    }

    @Test
    void boundsThatMoveHandlesSpreadThemBetterButMoveSomeAfterTheirFirstCall() {
        assertThat(sweep(ring(150), this::ranked))
                .isEqualTo("sticky 96, spread 296, both 96, mean stickiness 0.9781, worst max/mean 1.28");
        assertThat(sweep(ring(1000), this::ranked))
                .isEqualTo("sticky 119, spread 293, both 119, mean stickiness 0.9826, worst max/mean 1.30");
        assertThat(sweep(ring(1000), this::spill))
                .isEqualTo("sticky 252, spread 289, both 247, mean stickiness 0.9946, worst max/mean 1.32");
    }
}
