package io.github.agentlb.agent;

import io.github.agentlb.agent.main.ServerPorts;
import io.github.agentlb.agent.llm.LlmShape;
import java.util.Locale;

/**
 * Immutable, validated configuration of one stub agent.
 *
 * <p>Build one with {@link #custom()} (every setter validates at once and throws
 * {@link IllegalArgumentException} naming the field and the value), take the defaults with
 * {@link #ofDefaults()}; {@link AgentSettings} reads them from the environment, system properties
 * and {@code application.properties}.
 *
 * <p>Service time of one request: a delay drawn uniformly from
 * [{@code delayMinMs}, {@code delayMaxMs}] milliseconds, divided by {@code speed}.
 *
 * <p>A record, so immutable and thread-safe.
 *
 * @param agentId    agent id reported in every response, never blank
 * @param host       bind host, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}; an IP address or a name that resolves
 * @param port       TCP port, 0..65535; 0 asks for an ephemeral port
 * @param delayMinMs lower bound of the service delay before the speed factor, ms, 0..{@value #MAX_DELAY_MS}
 * @param delayMaxMs upper bound of the service delay before the speed factor, ms,
 *                   {@code delayMinMs}..{@value #MAX_DELAY_MS}
 * @param speed      speed factor, finite and &gt; 0: the drawn delay is divided by it (0.5 = half speed = twice
 *                   the delay)
 * @param capacity   requests served concurrently before queueing, >= 0; {@link #UNLIMITED_CAPACITY} = no limit
 * @param cpuBase    simulated idle CPU utilization, fraction 0..1
 * @param memoryBase simulated idle memory utilization, fraction 0..1
 * @param seed       seed of the delay generator; the builder defaults it to {@link #defaultSeed(String)} of the
 *                   agent id
 * @param chat       how {@code POST /v1/chat/completions} answers: time to first token, token rate, answer
 *                   length; not null
 * @param llm        the LLM server model behind chat completions: prefix cache, prefill cost per uncached block,
 *                   running limit and queue, sessions; {@link LlmShape#DISABLED} by default; not null
 */
public record AgentConfig(String agentId, String host, int port, int delayMinMs, int delayMaxMs, double speed,
                          int capacity, double cpuBase, double memoryBase, long seed, ChatShape chat, LlmShape llm) {

    /** Default agent id. */
    public static final String DEFAULT_AGENT_ID = "A1";
    /** Default bind host: loopback only. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Default TCP port. */
    public static final int DEFAULT_PORT = 8081;
    /** Default lower bound of the service delay, ms. */
    public static final int DEFAULT_DELAY_MIN_MS = 50;
    /** Default upper bound of the service delay, ms. */
    public static final int DEFAULT_DELAY_MAX_MS = 150;
    /** Largest accepted delay bound, ms (one hour): keeps every delay computation in int range. */
    public static final int MAX_DELAY_MS = 3_600_000;
    /** Default speed factor: 1.0 serves at the configured delays. */
    public static final double DEFAULT_SPEED = 1.0;
    /** Default capacity: {@link #UNLIMITED_CAPACITY}. */
    public static final int DEFAULT_CAPACITY = 0;
    /** Capacity value meaning "serve every request at once, never queue". */
    public static final int UNLIMITED_CAPACITY = 0;
    /**
     * Requests in flight that count as utilization 1.0 when the capacity is unlimited, so an
     * unlimited agent still reports a load that grows with its concurrency.
     */
    public static final int NOMINAL_CAPACITY = 10;
    /** Default simulated idle CPU utilization, fraction 0..1. */
    public static final double DEFAULT_CPU_BASE = 0.1;
    /** Default simulated idle memory utilization, fraction 0..1. */
    public static final double DEFAULT_MEMORY_BASE = 0.2;

    /**
     * Checks every value by the {@link Builder}'s setter of the same name, then that
     * {@code delayMinMs <= delayMaxMs}.
     *
     * @throws IllegalArgumentException naming the field and the bad value
     */
    public AgentConfig {
        custom().agentId(agentId).host(host).port(port).delayMinMs(delayMinMs).delayMaxMs(delayMaxMs)
                .speed(speed).capacity(capacity).cpuBase(cpuBase).memoryBase(memoryBase).seed(seed).chat(chat).llm(llm);
        if (delayMinMs > delayMaxMs) {
            throw new IllegalArgumentException(
                    "delayMinMs must be <= delayMaxMs (" + delayMaxMs + "), was " + delayMinMs);
        }
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** The default configuration: agent A1 on 127.0.0.1:8081, 50..150 ms, unlimited capacity. */
    public static AgentConfig ofDefaults() {
        return custom().build();
    }

    /**
     * The default seed of an agent: {@code agentId.hashCode()}, stable across JVMs because
     * {@link String#hashCode()} is specified by the JLS.
     */
    public static long defaultSeed(String agentId) {
        return agentId.hashCode();
    }

    /** A builder holding this configuration's values (the seed included), to derive a variant. */
    public Builder toBuilder() {
        return custom().agentId(agentId).host(host).port(port).delayMinMs(delayMinMs).delayMaxMs(delayMaxMs)
                .speed(speed).capacity(capacity).cpuBase(cpuBase).memoryBase(memoryBase).seed(seed).chat(chat).llm(llm);
    }

    /** This configuration with another port (0..65535, 0 = ephemeral). */
    public AgentConfig withPort(int newPort) {
        return toBuilder().port(newPort).build();
    }

    /** Whether this agent never queues. */
    public boolean unlimitedCapacity() {
        return capacity == UNLIMITED_CAPACITY;
    }

    /** One line with every knob, for the startup log. */
    public String describe() {
        return String.format(Locale.ROOT,
                "agentId=%s host=%s port=%d delayMs=%d..%d speed=%s capacity=%s cpuBase=%s memoryBase=%s seed=%d"
                        + " firstTokenMs=%d tokensPerSecond=%s answerTokens=%d prefixBlockChars=%d prefixCacheBlocks=%d"
                        + " uncachedBlockMs=%s maxRunning=%s maxQueue=%d mintSessions=%s",
                agentId, host, port, delayMinMs, delayMaxMs, speed,
                unlimitedCapacity() ? "unlimited" : Integer.toString(capacity), cpuBase, memoryBase, seed,
                chat.firstTokenMs(), chat.tokensPerSecond(), chat.answerTokens(), llm.blockChars(), llm.cacheBlocks(),
                llm.uncachedBlockMs(), llm.limited() ? Integer.toString(llm.maxRunning()) : "unlimited", llm.maxQueue(),
                llm.mintSessions());
    }

    /**
     * Builder of {@link AgentConfig}. Each setter validates its argument and throws
     * {@link IllegalArgumentException} naming field and value; {@link #build()} checks the
     * fields against each other. Not thread-safe.
     */
    public static final class Builder {
        private String agentId = DEFAULT_AGENT_ID;
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private int delayMinMs = DEFAULT_DELAY_MIN_MS;
        private int delayMaxMs = DEFAULT_DELAY_MAX_MS;
        private double speed = DEFAULT_SPEED;
        private int capacity = DEFAULT_CAPACITY;
        private double cpuBase = DEFAULT_CPU_BASE;
        private double memoryBase = DEFAULT_MEMORY_BASE;
        private Long seed;
        private ChatShape chat = ChatShape.DEFAULTS;
        private LlmShape llm = LlmShape.DISABLED;

        private Builder() {
        }

        /** Agent id, not blank. */
        public Builder agentId(String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("agentId must not be blank, was '" + value + "'");
            }
            this.agentId = value;
            return this;
        }

        /** Bind host, not blank, an IP address or a name that resolves. */
        public Builder host(String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("host must not be blank, was '" + value + "'");
            }
            this.host = ServerPorts.requireResolvableHost(value);
            return this;
        }

        /** TCP port in 0..65535, 0 = ephemeral. */
        public Builder port(int value) {
            if (value < 0 || value > 65535) {
                throw new IllegalArgumentException("port must be in 0..65535, was " + value);
            }
            this.port = value;
            return this;
        }

        /** Lower delay bound, ms, in 0..{@link #MAX_DELAY_MS}. */
        public Builder delayMinMs(int value) {
            if (value < 0 || value > MAX_DELAY_MS) {
                throw new IllegalArgumentException("delayMinMs must be in 0..%d, was %d".formatted(MAX_DELAY_MS, value));
            }
            this.delayMinMs = value;
            return this;
        }

        /** Upper delay bound, ms, in 0..{@link #MAX_DELAY_MS} (and >= delayMinMs, checked by {@link #build()}). */
        public Builder delayMaxMs(int value) {
            if (value < 0 || value > MAX_DELAY_MS) {
                throw new IllegalArgumentException("delayMaxMs must be in 0..%d, was %d".formatted(MAX_DELAY_MS, value));
            }
            this.delayMaxMs = value;
            return this;
        }

        /** Both delay bounds at once, ms. */
        public Builder delayMs(int min, int max) {
            return delayMinMs(min).delayMaxMs(max);
        }

        /** Speed factor, finite and &gt; 0. */
        public Builder speed(double value) {
            if (!(value > 0) || Double.isInfinite(value)) {
                throw new IllegalArgumentException("speed must be > 0 and finite, was " + value);
            }
            this.speed = value;
            return this;
        }

        /** Concurrent requests before queueing, >= 0, 0 = unlimited. */
        public Builder capacity(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("capacity must be >= 0 (0 = unlimited), was " + value);
            }
            this.capacity = value;
            return this;
        }

        /** Idle CPU utilization, fraction in [0, 1]. */
        public Builder cpuBase(double value) {
            this.cpuBase = fraction("cpuBase", value);
            return this;
        }

        /** Idle memory utilization, fraction in [0, 1]. */
        public Builder memoryBase(double value) {
            this.memoryBase = fraction("memoryBase", value);
            return this;
        }

        /** Seed of the delay generator. */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /** How chat completions answer, not null. */
        public Builder chat(ChatShape value) {
            if (value == null) {
                throw new IllegalArgumentException("chat must not be null, was null");
            }
            this.chat = value;
            return this;
        }

        /** The LLM server model behind chat completions, not null; {@link LlmShape#DISABLED} turns it off. */
        public Builder llm(LlmShape value) {
            if (value == null) {
                throw new IllegalArgumentException("llm must not be null, was null");
            }
            this.llm = value;
            return this;
        }

        /**
         * Builds the configuration; the seed, unless set, is {@link #defaultSeed(String)} of the agent id.
         *
         * @throws IllegalArgumentException if delayMinMs &gt; delayMaxMs
         */
        public AgentConfig build() {
            return new AgentConfig(agentId, host, port, delayMinMs, delayMaxMs, speed, capacity, cpuBase, memoryBase,
                    seed != null ? seed : defaultSeed(agentId), chat, llm);
        }

        private static double fraction(String field, double value) {
            if (!(value >= 0.0 && value <= 1.0)) {
                throw new IllegalArgumentException(field + " must be in [0, 1], was " + value);
            }
            return value;
        }
    }
}
