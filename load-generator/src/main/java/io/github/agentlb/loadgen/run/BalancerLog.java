package io.github.agentlb.loadgen.run;

import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.AttemptListener;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.camel.HealthListener;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

/**
 * Records what a balancer did and when: its ejections and re-admissions, and every attempt on an
 * agent with its outcome (busy and error answers the client never sees when the balancer retried
 * elsewhere). On the request path: one clock read and one lock-free append. Thread-safe.
 */
public final class BalancerLog implements HealthListener, AttemptListener {

    public enum Kind { EJECTED, READMITTED }

    /** An ejection for {@code ejectionTime}, or a re-admission (ZERO), of {@code agentId} at {@code atNanos}, log's clock. */
    public record Event(String agentId, Kind kind, long atNanos, Duration ejectionTime) {
    }

    /** An attempt on the balancer's {@code agentId}: sent (end less the balancer's duration) and ended, ns of the log's clock. */
    public record Attempt(String agentId, AttemptOutcome outcome, long startedNanos, long endedNanos) {
    }

    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
    private final LongSupplier nanoClock;

    /** @param nanoClock the clock of the recorded instants, ns ({@link System#nanoTime} in a run) */
    public BalancerLog(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** Listens to {@code balancer}'s health and attempts; returns {@code balancer}. */
    public <B extends AgentLoadBalancerSupport> B attachTo(B balancer) {
        balancer.addHealthListener(this);
        balancer.addAttemptListener(this);
        return balancer;
    }

    @Override
    public void agentEjected(String agentId, Duration ejectionTime) {
        events.add(new Event(agentId, Kind.EJECTED, nanoClock.getAsLong(), ejectionTime));
    }

    @Override
    public void agentReadmitted(String agentId) {
        events.add(new Event(agentId, Kind.READMITTED, nanoClock.getAsLong(), Duration.ZERO));
    }

    @Override
    public void attemptCompleted(String strategy, String agentId, AttemptOutcome outcome, long elapsedNanos) {
        long now = nanoClock.getAsLong();
        attempts.add(new Attempt(agentId, outcome, now - Math.max(0, elapsedNanos), now));
    }

    /** Every ejection and re-admission so far, in the order recorded. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** Every attempt so far, in the order recorded. */
    public List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    /** How many such events of {@code agentId} happened from {@code fromNanos} on. */
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
