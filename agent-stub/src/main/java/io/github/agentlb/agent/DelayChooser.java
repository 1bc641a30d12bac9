package io.github.agentlb.agent;

import java.util.Random;

/**
 * Chooses the service delay of each request: an integer number of milliseconds drawn
 * uniformly from [{@code minMs}, {@code maxMs}] (both inclusive) by a seeded {@link Random},
 * then divided by the speed factor.
 *
 * <p>Given the same seed and bounds the sequence of delays is the same on every run and JVM,
 * because {@link Random}'s algorithm is specified. Thread-safe ({@link Random} is); the
 * sequence is deterministic only if the calls are made in a deterministic order.
 */
public final class DelayChooser {

    private static final double NANOS_PER_MS = 1_000_000.0;

    /** The delay bounds and the speed; the seed only starts {@link #random}. */
    private final AgentConfig config;
    private final Random random;

    /**
     * @param minMs lower bound, ms, >= 0
     * @param maxMs upper bound, ms, >= minMs
     * @param speed divisor of the drawn delay, &gt; 0
     * @param seed seed of the generator
     * @throws IllegalArgumentException if a bound or the speed is out of range
     */
    public DelayChooser(int minMs, int maxMs, double speed, long seed) {
        // The config's checks, so the messages are the same everywhere.
        this(AgentConfig.custom().delayMinMs(minMs).delayMaxMs(maxMs).speed(speed).seed(seed).build());
    }

    private DelayChooser(AgentConfig config) {
        this.config = config;
        this.random = new Random(config.seed());
    }

    /** The chooser of an agent configuration: its delay bounds, speed and seed. */
    public static DelayChooser of(AgentConfig config) {
        return new DelayChooser(config);
    }

    /** The next delay before the speed factor, ms, in [minMs, maxMs]. */
    public int nextBaseDelayMs() {
        // Cannot overflow: the config caps delays at MAX_DELAY_MS.
        return config.delayMinMs() + random.nextInt(config.delayMaxMs() - config.delayMinMs() + 1);
    }

    /** The next service delay, ns: {@link #nextBaseDelayMs()} divided by the speed factor. */
    public long nextDelayNanos() {
        return Math.round(nextBaseDelayMs() * NANOS_PER_MS / config.speed());
    }
}
