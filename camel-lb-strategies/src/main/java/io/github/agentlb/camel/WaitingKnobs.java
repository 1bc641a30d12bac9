package io.github.agentlb.camel;

import io.github.agentlb.core.RelationException;
import io.github.agentlb.core.bounded.BoundedLoad;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The knobs set before the balancer started that break a relation with another knob, waiting for
 * the knobs that make the configuration whole again ({@link Configurable}): applied, in the order
 * set, with each later knob; and the names of the knobs set ({@link Configurable#wasSet}). Guarded
 * by the writer's lock; not thread-safe.
 */
final class WaitingKnobs {

    private static final String KEPT_WITHOUT_BOUND = "keepInFlightPlacement=true needs the in-flight bound: inFlightFactor"
            + " must be >= 1 (" + BoundedLoad.KUBEAI_IN_FLIGHT_FACTOR + " as KubeAI), was 0";

    private record Knob(Object value, Consumer<ConfigDraft> change) {
    }

    private final Map<String, Knob> waiting = new LinkedHashMap<>();
    private final Set<String> setByName = new HashSet<>();

    /**
     * Runs {@code apply} with {@code knob} counted as set by name, so that its own change sees it
     * (a flag set by name wins over its value knobs); not counted if {@code apply} refuses it.
     */
    void setting(String knob, Runnable apply) {
        boolean first = setByName.add(knob);
        try {
            apply.run();
        } catch (RuntimeException refused) {
            if (first) {
                setByName.remove(knob);
            }
            throw refused;
        }
    }

    /** @return whether {@code knob} was set by name and not refused */
    boolean wasSet(String knob) {
        return setByName.contains(knob);
    }

    /**
     * The configuration {@code config} becomes with the waiting knobs and then {@code change}.
     *
     * @param mayWait whether a knob that breaks a relation may wait (before the balancer starts)
     * @return the new configuration, the waiting knobs then forgotten; or null when the knob waits
     * @throws IllegalArgumentException when the value is out of its range, or breaks a relation and may not wait
     */
    BalancerConfig apply(BalancerConfig config, String knob, Object value, Consumer<ConfigDraft> change, boolean mayWait) {
        ConfigDraft draft = draft(config);
        change.accept(draft);
        BalancerConfig next;
        try {
            next = draft.build();
        } catch (IllegalArgumentException relation) {
            if (!mayWait) {
                throw relation instanceof RelationException broken ? broken.naming(knob) : relation;
            }
            waiting.remove(knob);
            waiting.put(knob, new Knob(value, change));
            return null;
        }
        if (!mayWait && keptWithoutBound(next)) {
            // Refused at once after the start, as any broken relation, so that what runs would start again.
            throw new IllegalArgumentException("keepInFlightPlacement".equals(knob) ? KEPT_WITHOUT_BOUND
                    : knob + "=" + value + " would turn off the in-flight bound that keepInFlightPlacement=true keeps:"
                    + " set keepInFlightPlacement to false first");
        }
        waiting.clear();
        return next;
    }

    /** {@code keepInFlightPlacement} keeps the in-flight bound's placement: alone it does nothing, so it needs that bound. */
    private static boolean keptWithoutBound(BalancerConfig config) {
        return config.boundedLoad().keepInFlightPlacement() && !config.boundedLoad().boundsInFlight();
    }

    /**
     * The configuration with every waiting knob applied, for the start.
     *
     * Also checks the relation {@code keepInFlightPlacement} has with the in-flight bound, which
     * {@link #apply} checks only once the balancer has started (before, either may be set first and
     * the bound's other knobs may turn it off and on again).
     *
     * @return the new configuration, or {@code config} when nothing waits
     * @throws IllegalArgumentException naming a knob whose relation still does not hold, from the side of
     *     a knob that waits for it (the one set), not of its partner left at its default (the knobs keep waiting)
     */
    BalancerConfig applyAll(BalancerConfig config) {
        BalancerConfig next;
        try {
            next = waiting.isEmpty() ? config : draft(config).build();
        } catch (RelationException broken) {
            boolean otherWaits = !waiting.containsKey(broken.field()) && waiting.containsKey(broken.other());
            throw otherWaits ? broken.naming(broken.other()) : broken;
        }
        if (keptWithoutBound(next)) {
            throw new IllegalArgumentException(KEPT_WITHOUT_BOUND);
        }
        waiting.clear();
        return next;
    }

    /** @return the value of {@code knob} if it waits, else {@code current} */
    @SuppressWarnings("unchecked")
    <T> T value(String knob, T current) {
        Knob k = waiting.get(knob);
        return k == null ? current : (T) k.value();
    }

    private ConfigDraft draft(BalancerConfig config) {
        ConfigDraft draft = new ConfigDraft(config);
        waiting.values().forEach(k -> k.change().accept(draft));
        return draft;
    }
}
