package io.github.agentlb.camel;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * JavaBean settings of a balancer, kept until it starts and then applied to a builder, so that
 * they can be set in any order (YAML {@code beans:}, {@code camel.beans.*} properties) and a bad
 * value fails the route's start with the builder's {@link IllegalArgumentException}, which names
 * the field and the value, as Camel's own processors do. Thread-safe.
 *
 * @param <B> the builder the settings are applied to
 */
final class Settings<B> {

    private final BooleanSupplier running;
    private final Map<String, Object> values = new LinkedHashMap<>();
    private final Map<String, Consumer<B>> operations = new LinkedHashMap<>();

    /** @param running whether the balancer is starting or started, when settings are refused */
    Settings(BooleanSupplier running) {
        this.running = running;
    }

    /**
     * Keeps {@code value} for {@code field} until the next start, where {@code operation} applies it.
     *
     * @throws IllegalStateException if the balancer is starting or started
     */
    synchronized void put(String field, Object value, Consumer<B> operation) {
        if (running.getAsBoolean()) {
            throw new IllegalStateException(field + " can only be set before the balancer starts, was set to " + value);
        }
        values.put(field, value);
        operations.put(field, operation);
    }

    /** @return the value kept for {@code field}, else {@code current} (the value in use) */
    @SuppressWarnings("unchecked")
    synchronized <T> T get(String field, T current) {
        return values.containsKey(field) ? (T) values.get(field) : current;
    }

    synchronized boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * Applies the kept settings to {@code builder} in the order they were set, then forgets them;
     * when an operation throws, they are kept for the next start.
     *
     * @return {@code builder}
     */
    synchronized B applyTo(B builder) {
        operations.values().forEach(operation -> operation.accept(builder));
        values.clear();
        operations.clear();
        return builder;
    }
}
