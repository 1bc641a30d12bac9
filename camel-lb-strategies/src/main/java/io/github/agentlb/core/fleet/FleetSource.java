package io.github.agentlb.core.fleet;

/**
 * Where a balancer learns its agents at runtime: a watched file, a DNS name, Kubernetes
 * EndpointSlices. A source reads the fleet, hands it to its listener whole, and keeps watching
 * until closed. Started once; {@link #close()} stops the watching and may be called more than once.
 */
public interface FleetSource extends AutoCloseable {

    /**
     * Reads the fleet once, hands it to {@code listener} (on the caller's thread, so a start with
     * a bad fleet fails at once), then watches for changes on the source's own thread.
     *
     * @throws IllegalArgumentException if the first read finds no valid, non-empty fleet
     * @throws IllegalStateException    if already started
     */
    void start(FleetListener listener);

    /** A short description for logs and health details, e.g. {@code file:/etc/agents.txt}. */
    String describe();

    /**
     * Why the source's last read was refused, the last good fleet kept (an empty fleet, a bad
     * line, an unreachable server), or null when it was not; for health details. Thread-safe.
     * This default: null (a source that reports nothing).
     */
    default String problem() {
        return null;
    }

    /** Stops watching; idempotent. */
    @Override
    void close();
}
