package io.github.agentlb.loadgen.run;

import io.github.agentlb.camel.HealthListener;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

/**
 * Records a balancer's outlier ejections and re-admissions with the time each happened, to
 * measure how fast a fault was noticed and its end. Told on the request path, so recording is one
 * clock read and one lock-free append. Thread-safe.
 */
public final class HealthEventLog implements HealthListener {

    /** What happened to an agent. */
    public enum Kind { EJECTED, READMITTED }

    /**
     * One event.
     *
     * @param agentId       the balancer's agent id
     * @param kind          ejection or re-admission
     * @param atNanos       when, ns on the log's clock
     * @param ejectionTime  how long the agent is ejected for; {@link Duration#ZERO} for a re-admission
     */
    public record Event(String agentId, Kind kind, long atNanos, Duration ejectionTime) {
    }

    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final LongSupplier nanoClock;

    /** @param nanoClock the clock of the recorded instants, ns ({@link System#nanoTime} in a run) */
    public HealthEventLog(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** {@code agentId} was ejected for {@code ejectionTime}. */
    @Override
    public void agentEjected(String agentId, Duration ejectionTime) {
        events.add(new Event(agentId, Kind.EJECTED, nanoClock.getAsLong(), ejectionTime));
    }

    /** {@code agentId} was re-admitted. */
    @Override
    public void agentReadmitted(String agentId) {
        events.add(new Event(agentId, Kind.READMITTED, nanoClock.getAsLong(), Duration.ZERO));
    }

    /** Every event so far, in the order recorded. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** How many times {@code agentId} was ejected from {@code fromNanos} on. */
    public int count(String agentId, Kind kind, long fromNanos) {
        return (int) events.stream().filter(e -> matches(e, agentId, kind, fromNanos)).count();
    }

    /** The time from {@code fromNanos} to the first such event of {@code agentId} at or after it, ns; empty if none. */
    public OptionalLong nanosUntil(String agentId, Kind kind, long fromNanos) {
        return events.stream().filter(e -> matches(e, agentId, kind, fromNanos))
                .mapToLong(e -> e.atNanos() - fromNanos).min();
    }

    private static boolean matches(Event e, String agentId, Kind kind, long fromNanos) {
        return e.agentId().equals(agentId) && e.kind() == kind && e.atNanos() - fromNanos >= 0;
    }
}
