package io.github.agentlb.loadgen.agents;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.llm.LlmShape;
import io.github.agentlb.core.Check;
import io.github.agentlb.loadgen.config.Pacing;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * The agents scenario's stub agents (the LLM server model: prefix cache, prefill cost per uncached
 * block, running limit, MCP sessions) and its clients. Immutable.
 *
 * @param agents   stub agents, >= 1, named {@code A1..An}
 * @param chat     first token base (ms), token rate, default answer length
 * @param llm      prefix cache, prefill cost, running limit and queue, sessions
 * @param inFlight closed-loop workers, i.e. conversations in flight, >= 1
 * @param timeout  per request, send to {@code [DONE]}
 */
public record AgentsSettings(int agents, ChatShape chat, LlmShape llm, int inFlight, Duration timeout) {

    /** Default agents (round-robin returns a turn to its agent 1/8 of the time), in flight (3 per agent), cache. */
    public static final int DEFAULT_AGENTS = 8, DEFAULT_IN_FLIGHT = 24, DEFAULT_CACHE_BLOCKS = 4_300;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The agents' chat shape: first token 20 ms after admission plus prefill, 400 tokens/s (the
     * requests ask for {@value Conversations#ANSWER_TOKENS}, about 20 ms of streaming).
     */
    public static final ChatShape DEFAULT_CHAT = new ChatShape(20, 400, Conversations.ANSWER_TOKENS);
    /**
     * The agents' LLM model: 64-char blocks; {@value #DEFAULT_CACHE_BLOCKS} cached per agent, about 1.3 x
     * its fair share of the default working set (six system prompts, 356 blocks, and an eighth of the
     * final histories, 23,438 / 8 = 2,930: 3,286), so it keeps the conversations a keyed strategy
     * gives it; 3 ms per uncached block (some 5,000 prompt tokens/s); 8 running, 64 waiting (never a
     * 429 for the conversations in flight); sessions minted.
     */
    public static final LlmShape DEFAULT_LLM = LlmShape.custom().blockChars(64).cacheBlocks(DEFAULT_CACHE_BLOCKS)
            .uncachedBlockMs(3).maxRunning(8).maxQueue(64).mintSessions(true).build();

    /** @throws IllegalArgumentException naming the bad value */
    public AgentsSettings {
        Check.atLeast("agents", agents, 1);
        Objects.requireNonNull(chat, "chat");
        Objects.requireNonNull(llm, "llm");
        Check.atLeast("inFlight", inFlight, 1);
        Check.positive("timeout", timeout);
    }

    public static AgentsSettings ofDefaults() {
        return new AgentsSettings(DEFAULT_AGENTS, DEFAULT_CHAT, DEFAULT_LLM, DEFAULT_IN_FLIGHT, DEFAULT_TIMEOUT);
    }

    /** The agents' settings: ids {@code A1..An}, free ports, agent i seeded {@code seed x 31 + i} (its session ids). */
    public List<AgentConfig> agentConfigs(long seed) {
        return IntStream.rangeClosed(1, agents).mapToObj(i -> AgentConfig.custom().agentId("A" + i).port(0)
                .seed(seed * 31 + i).chat(chat).llm(llm).build()).toList();
    }

    public String describe() {
        return String.format(Locale.ROOT, "%d agents; first token %d ms + %.1f ms per uncached %d-char block, "
                        + "%.0f tokens/s; prefix cache %d blocks per agent; at most %d running, %d waiting; "
                        + "%d conversations in flight; timeout %d ms", agents, chat.firstTokenMs(), llm.uncachedBlockMs(),
                llm.blockChars(), chat.tokensPerSecond(), llm.cacheBlocks(), llm.maxRunning(), llm.maxQueue(), inFlight,
                timeout.toMillis());
    }

    /** The stub agents' environment, one line per agent: {@code AGENT_ID=A1 SEED=1333 FIRST_TOKEN_MS=20 ...}. */
    public List<String> stubEnv(long seed) {
        String common = String.format(Locale.ROOT, "FIRST_TOKEN_MS=%d TOKENS_PER_SECOND=%s ANSWER_TOKENS=%d "
                        + "PREFIX_BLOCK_CHARS=%d PREFIX_CACHE_BLOCKS=%d UNCACHED_BLOCK_MS=%s MAX_RUNNING=%d "
                        + "MAX_QUEUE=%d MINT_SESSIONS=%b", chat.firstTokenMs(), Pacing.number(chat.tokensPerSecond()),
                chat.answerTokens(), llm.blockChars(), llm.cacheBlocks(), Pacing.number(llm.uncachedBlockMs()),
                llm.maxRunning(), llm.maxQueue(), llm.mintSessions());
        return agentConfigs(seed).stream().map(a -> "AGENT_ID=" + a.agentId() + " SEED=" + a.seed() + " " + common)
                .toList();
    }
}
