package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import java.io.IOException;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Kills one running {@link StubAgent} and later restarts it on the same port, recording when.
 *
 * <p>The kill is abrupt, as a crash ({@link StubAgent#kill()}): the listening socket and every open
 * connection close at once, requests in service are never answered. With {@link Fault#HANG} a
 * {@link HangingPort} then holds the port until the restart.
 *
 * <p>Not thread-safe: call {@link #kill}, {@link #restart} and {@link #close} from one thread.
 */
public final class AgentFault implements AutoCloseable {

    private final StubAgent original;
    private final Fault fault;
    private final LongSupplier nanoClock;
    private HangingPort hanging;
    private StubAgent restarted;
    private long killedAtNanos = -1;
    private long restartedAtNanos = -1;

    /**
     * @param agent     the agent to fail; it keeps running until {@link #kill()}
     * @param fault     what the agent does while down
     * @param nanoClock the clock of the recorded instants, ns ({@link System#nanoTime} in a run)
     */
    public AgentFault(StubAgent agent, Fault fault, LongSupplier nanoClock) {
        this.original = Objects.requireNonNull(agent, "agent");
        this.fault = Objects.requireNonNull(fault, "fault");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /**
     * Kills the agent; the kill instant is read just before it.
     *
     * @throws IOException           if the hanging listener cannot bind the freed port
     * @throws IllegalStateException if already killed
     */
    public void kill() throws IOException {
        if (killedAtNanos >= 0) {
            throw new IllegalStateException("agent " + agentId() + " was already killed");
        }
        killedAtNanos = nanoClock.getAsLong();
        original.kill();
        if (fault == Fault.HANG) {
            hanging = HangingPort.open(original.config().host(), original.port());
        }
    }

    /**
     * Starts a new agent with the killed one's configuration on the same port; the restart
     * instant is read once it listens.
     *
     * @throws IllegalStateException if not killed, or already restarted
     * @throws Exception             if the agent cannot start (e.g. the port was taken meanwhile)
     */
    public void restart() throws Exception {
        if (killedAtNanos < 0 || restarted != null) {
            throw new IllegalStateException("agent " + agentId() + " must be killed once before a restart");
        }
        if (hanging != null) {
            hanging.close();
            hanging = null;
        }
        AgentConfig config = original.config();
        restarted = StubAgent.start(config);
        restartedAtNanos = nanoClock.getAsLong();
    }

    /** The failed agent's id, e.g. {@code A1}. */
    public String agentId() {
        return original.config().agentId();
    }

    /** When the kill began, ns on the clock; -1 before {@link #kill()}. */
    public long killedAtNanos() {
        return killedAtNanos;
    }

    /** When the restarted agent listened, ns on the clock; -1 before {@link #restart()}. */
    public long restartedAtNanos() {
        return restartedAtNanos;
    }

    /** Closes the hanging listener or the restarted agent, whichever runs. Idempotent. */
    @Override
    public void close() throws IOException {
        try {
            if (hanging != null) {
                hanging.close();
                hanging = null;
            }
        } finally {
            if (restarted != null) {
                restarted.close();
            }
        }
    }
}
