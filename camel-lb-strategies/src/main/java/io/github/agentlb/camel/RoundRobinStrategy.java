package io.github.agentlb.camel;

import io.github.agentlb.core.select.RoundRobin;
import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code rr}: strict rotation over the serving agents, or nginx's smooth weighted round-robin when
 * their weights differ. When the chosen agent fails (or is ejected), the exchange takes the
 * rotation's next turn, so a failed agent's share is spread over the others, then any agent not
 * yet tried. Thread-safe; O(1) per exchange.
 */
final class RoundRobinStrategy implements Strategy {

    private final RoundRobin rotation = new RoundRobin();
    /** The turn of the weighted schedule, shared by the states' pickers. */
    private final AtomicLong weightedTurn = new AtomicLong();

    @Override
    public String name() {
        return "rr";
    }

    @Override
    public Picker newPicker(BalancerState state) {
        List<String> agentIds = state.agentIds();
        if (agentIds.isEmpty()) {
            return exchange -> Selection.of(Collections.emptyIterator());
        }
        Map<String, Double> weights = servingWeights(state);
        if (weights.values().stream().distinct().count() <= 1) {
            return exchange -> Selection.of(new Turns(rotation, agentIds));
        }
        SmoothWeightedRoundRobin.Schedule schedule = SmoothWeightedRoundRobin.Schedule.of(weights,
                SmoothWeightedRoundRobin.DEFAULT_RESOLUTION);
        return Candidates.weighted(schedule, agentIds.size(), weightedTurn);
    }

    /** The serving agents' static weights, in child order. */
    static Map<String, Double> servingWeights(BalancerState state) {
        Map<String, Double> weights = new LinkedHashMap<>();
        for (String agent : state.agentIds()) {
            weights.put(agent, state.weights().getOrDefault(agent, 1.0));
        }
        return weights;
    }

    /**
     * The candidates of one exchange: the first turn taken now, then up to n - 1 further turns of
     * the rotation, then every agent from the first turn on; one object per decision.
     */
    private static final class Turns implements Iterator<String> {
        private final RoundRobin rotation;
        private final List<String> agentIds;
        private final int first;
        /** Turns returned: the first, then up to n - 1 drawn from the rotation. */
        private int turns;
        private int swept;

        Turns(RoundRobin rotation, List<String> agentIds) {
            this.rotation = rotation;
            this.agentIds = agentIds;
            this.first = rotation.next(agentIds.size());
        }

        @Override
        public boolean hasNext() {
            return turns < agentIds.size() || swept < agentIds.size();
        }

        @Override
        public String next() {
            int n = agentIds.size();
            if (turns == 0) {
                turns++;
                return agentIds.get(first);
            }
            if (turns < n) {
                turns++;
                return agentIds.get(rotation.next(n));
            }
            if (swept >= n) {
                throw new NoSuchElementException();
            }
            return agentIds.get((first + swept++) % n);
        }
    }

    /** The agents in rotation order starting at {@code start}: the failover order of round-robin. */
    static Iterator<String> rotationFrom(int start, List<String> agentIds) {
        return new Iterator<>() {
            private int step;

            @Override
            public boolean hasNext() {
                return step < agentIds.size();
            }

            @Override
            public String next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return agentIds.get((start + step++) % agentIds.size());
            }
        };
    }
}
