package io.github.agentlb.agent;

import io.github.agentlb.agent.main.MainSettings;
import io.github.agentlb.agent.llm.LlmShape;
import java.util.List;

/**
 * The agent's knobs as a JavaBean that Camel Main binds ({@link #BINDING}): each property is read
 * from its environment variable, else its system property, else {@code application.properties}
 * (property {@code delayMinMs}: {@code DELAY_MIN_MS}, {@code -Ddelay.min.ms=10}, {@code
 * delay.min.ms = 10}). Camel converts the text; {@link #toConfig()} validates it.
 *
 * <p>Defaults are {@link AgentConfig}'s. Not thread-safe: bound once, then read.
 */
public class AgentSettings {

    /** The bean properties Camel Main binds, with their variables AGENT_ID, HOST, PORT, ... */
    public static final MainSettings<AgentSettings> BINDING = new MainSettings<>("agentSettings", AgentSettings.class,
            List.of("agentId", "host", "port", "delayMinMs", "delayMaxMs", "speed", "capacity", "cpuBase",
                    "memoryBase", "seed", "firstTokenMs", "tokensPerSecond", "answerTokens", "prefixBlockChars",
                    "prefixCacheBlocks", "uncachedBlockMs", "maxRunning", "maxQueue", "mintSessions"));

    private String agentId = AgentConfig.DEFAULT_AGENT_ID;
    private String host = AgentConfig.DEFAULT_HOST;
    private int port = AgentConfig.DEFAULT_PORT;
    private int delayMinMs = AgentConfig.DEFAULT_DELAY_MIN_MS;
    private int delayMaxMs = AgentConfig.DEFAULT_DELAY_MAX_MS;
    private double speed = AgentConfig.DEFAULT_SPEED;
    private int capacity = AgentConfig.DEFAULT_CAPACITY;
    private double cpuBase = AgentConfig.DEFAULT_CPU_BASE;
    private double memoryBase = AgentConfig.DEFAULT_MEMORY_BASE;
    private Long seed;
    private int firstTokenMs = ChatShape.DEFAULT_FIRST_TOKEN_MS;
    private double tokensPerSecond = ChatShape.DEFAULT_TOKENS_PER_SECOND;
    private int answerTokens = ChatShape.DEFAULT_ANSWER_TOKENS;
    private int prefixBlockChars = LlmShape.DEFAULT_BLOCK_CHARS;
    private int prefixCacheBlocks = LlmShape.DEFAULT_CACHE_BLOCKS;
    private double uncachedBlockMs = LlmShape.DEFAULT_UNCACHED_BLOCK_MS;
    private int maxRunning = LlmShape.DEFAULT_MAX_RUNNING;
    private int maxQueue = LlmShape.DEFAULT_MAX_QUEUE;
    private boolean mintSessions;

    /**
     * The validated configuration.
     *
     * @throws IllegalArgumentException naming the variable and the value of a setting out of range
     */
    public AgentConfig toConfig() {
        AgentConfig.Builder b = AgentConfig.custom();
        MainSettings.apply("agentId", () -> b.agentId(agentId));
        MainSettings.apply("host", () -> b.host(host));
        MainSettings.apply("port", () -> b.port(port));
        MainSettings.apply("delayMinMs", () -> b.delayMinMs(delayMinMs));
        MainSettings.apply("delayMaxMs", () -> b.delayMaxMs(delayMaxMs));
        MainSettings.apply("speed", () -> b.speed(speed));
        MainSettings.apply("capacity", () -> b.capacity(capacity));
        MainSettings.apply("cpuBase", () -> b.cpuBase(cpuBase));
        MainSettings.apply("memoryBase", () -> b.memoryBase(memoryBase));
        MainSettings.apply("firstTokenMs", () -> b.chat(new ChatShape(firstTokenMs, ChatShape.DEFAULT_TOKENS_PER_SECOND,
                ChatShape.DEFAULT_ANSWER_TOKENS)));
        MainSettings.apply("tokensPerSecond", () -> b.chat(new ChatShape(ChatShape.DEFAULT_FIRST_TOKEN_MS, tokensPerSecond,
                ChatShape.DEFAULT_ANSWER_TOKENS)));
        MainSettings.apply("answerTokens", () -> b.chat(new ChatShape(ChatShape.DEFAULT_FIRST_TOKEN_MS,
                ChatShape.DEFAULT_TOKENS_PER_SECOND, answerTokens)));
        b.chat(new ChatShape(firstTokenMs, tokensPerSecond, answerTokens));
        LlmShape.Builder llm = LlmShape.custom().mintSessions(mintSessions);
        MainSettings.apply("prefixBlockChars", () -> llm.blockChars(prefixBlockChars));
        MainSettings.apply("prefixCacheBlocks", () -> llm.cacheBlocks(prefixCacheBlocks));
        MainSettings.apply("uncachedBlockMs", () -> llm.uncachedBlockMs(uncachedBlockMs));
        MainSettings.apply("maxRunning", () -> llm.maxRunning(maxRunning));
        MainSettings.apply("maxQueue", () -> llm.maxQueue(maxQueue));
        b.llm(llm.build());
        if (seed != null) {
            b.seed(seed);
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("DELAY_MIN_MS, DELAY_MAX_MS: " + e.getMessage(), e);
        }
    }

    public String getAgentId() {
        return agentId;
    }

    /** {@code AGENT_ID}: the id in every answer, not blank; default A1. */
    public void setAgentId(String agentId) {
        this.agentId = agentId;
    }

    public String getHost() {
        return host;
    }

    /** {@code HOST}: the bind host; default 127.0.0.1. */
    public void setHost(String host) {
        this.host = host;
    }

    public int getPort() {
        return port;
    }

    /** {@code PORT}: the TCP port, 0..65535, 0 = a free port (below the ephemeral range); default 8081. */
    public void setPort(int port) {
        this.port = port;
    }

    public int getDelayMinMs() {
        return delayMinMs;
    }

    /** {@code DELAY_MIN_MS}: lower bound of the service delay, ms; default 50. */
    public void setDelayMinMs(int delayMinMs) {
        this.delayMinMs = delayMinMs;
    }

    public int getDelayMaxMs() {
        return delayMaxMs;
    }

    /** {@code DELAY_MAX_MS}: upper bound of the service delay, ms; default 150. */
    public void setDelayMaxMs(int delayMaxMs) {
        this.delayMaxMs = delayMaxMs;
    }

    public double getSpeed() {
        return speed;
    }

    /** {@code SPEED}: the delay is divided by it, &gt; 0; default 1.0. */
    public void setSpeed(double speed) {
        this.speed = speed;
    }

    public int getCapacity() {
        return capacity;
    }

    /** {@code CAPACITY}: requests served at once before queueing, 0 = unlimited (default). */
    public void setCapacity(int capacity) {
        this.capacity = capacity;
    }

    public double getCpuBase() {
        return cpuBase;
    }

    /** {@code CPU_BASE}: idle CPU utilization, fraction 0..1; default 0.1. */
    public void setCpuBase(double cpuBase) {
        this.cpuBase = cpuBase;
    }

    public double getMemoryBase() {
        return memoryBase;
    }

    /** {@code MEMORY_BASE}: idle memory utilization, fraction 0..1; default 0.2. */
    public void setMemoryBase(double memoryBase) {
        this.memoryBase = memoryBase;
    }

    public Long getSeed() {
        return seed;
    }

    /** {@code SEED}: seed of the delay generator; default {@link AgentConfig#defaultSeed} of the agent id. */
    public void setSeed(Long seed) {
        this.seed = seed;
    }

    public int getFirstTokenMs() {
        return firstTokenMs;
    }

    /** {@code FIRST_TOKEN_MS}: chat completions' time to first token, ms, 0..3600000; default 200. */
    public void setFirstTokenMs(int firstTokenMs) {
        this.firstTokenMs = firstTokenMs;
    }

    public double getTokensPerSecond() {
        return tokensPerSecond;
    }

    /** {@code TOKENS_PER_SECOND}: chat completions' token rate, &gt; 0; default 50. */
    public void setTokensPerSecond(double tokensPerSecond) {
        this.tokensPerSecond = tokensPerSecond;
    }

    public int getAnswerTokens() {
        return answerTokens;
    }

    /** {@code ANSWER_TOKENS}: tokens per answer when the request has no {@code max_tokens}, 1..100000; default 32. */
    public void setAnswerTokens(int answerTokens) {
        this.answerTokens = answerTokens;
    }

    public int getPrefixBlockChars() {
        return prefixBlockChars;
    }

    /** {@code PREFIX_BLOCK_CHARS}: characters per prompt block of the prefix cache model, 1..1000000; default 64. */
    public void setPrefixBlockChars(int prefixBlockChars) {
        this.prefixBlockChars = prefixBlockChars;
    }

    public int getPrefixCacheBlocks() {
        return prefixCacheBlocks;
    }

    /** {@code PREFIX_CACHE_BLOCKS}: prefix cache capacity, blocks, 0..10000000; default 0 = no cache. */
    public void setPrefixCacheBlocks(int prefixCacheBlocks) {
        this.prefixCacheBlocks = prefixCacheBlocks;
    }

    public double getUncachedBlockMs() {
        return uncachedBlockMs;
    }

    /** {@code UNCACHED_BLOCK_MS}: time to first token added per uncached prompt block, ms, 0..60000; default 0. */
    public void setUncachedBlockMs(double uncachedBlockMs) {
        this.uncachedBlockMs = uncachedBlockMs;
    }

    public int getMaxRunning() {
        return maxRunning;
    }

    /** {@code MAX_RUNNING}: chat requests generating at once, 0..1000000; default 0 = no limit. */
    public void setMaxRunning(int maxRunning) {
        this.maxRunning = maxRunning;
    }

    public int getMaxQueue() {
        return maxQueue;
    }

    /** {@code MAX_QUEUE}: chat requests waiting for a slot at most, beyond it 429, 0..1000000; default 100. */
    public void setMaxQueue(int maxQueue) {
        this.maxQueue = maxQueue;
    }

    public boolean isMintSessions() {
        return mintSessions;
    }

    /** {@code MINT_SESSIONS}: mint an {@code Mcp-Session-Id} per new session, 404 for unknown ones; default false. */
    public void setMintSessions(boolean mintSessions) {
        this.mintSessions = mintSessions;
    }
}
