package io.github.agentlb.loadgen.agents;

import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.llm.LlmShape;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints the environment of the agents scenario's stub agents, one line per agent
 * ({@code AGENT_ID=A1 SEED=1333 FIRST_TOKEN_MS=20 ...}), from {@link AgentsSettings#ofDefaults()}
 * and the seed the in-process scenario gives agent i ({@code seed x 31 + i}), so that a script
 * starts stub agent JVMs as the in-process scenario starts its agents:
 * {@code java -cp load-generator.jar io.github.agentlb.loadgen.agents.AgentsStubEnv [SEED]}
 * (default seed {@value LoadTestConfig#DEFAULT_SEED}, the load generator's). Stateless.
 */
public final class AgentsStubEnv {

    private AgentsStubEnv() {
    }

    /** Prints the lines for the seed in {@code args[0]}, else the default seed. */
    public static void main(String[] args) {
        long seed = args.length > 0 ? Long.parseLong(args[0]) : LoadTestConfig.DEFAULT_SEED;
        lines(AgentsSettings.ofDefaults(), seed).forEach(System.out::println);
    }

    /** One line per agent: its id, seed and the chat and LLM variables of the stub agent. */
    static List<String> lines(AgentsSettings settings, long seed) {
        ChatShape chat = settings.chat();
        LlmShape llm = settings.llm();
        String common = String.format(Locale.ROOT, "FIRST_TOKEN_MS=%d TOKENS_PER_SECOND=%s ANSWER_TOKENS=%d "
                        + "PREFIX_BLOCK_CHARS=%d PREFIX_CACHE_BLOCKS=%d UNCACHED_BLOCK_MS=%s MAX_RUNNING=%d "
                        + "MAX_QUEUE=%d MINT_SESSIONS=%b", chat.firstTokenMs(), number(chat.tokensPerSecond()),
                chat.answerTokens(), llm.blockChars(), llm.cacheBlocks(), number(llm.uncachedBlockMs()),
                llm.maxRunning(), llm.maxQueue(), llm.mintSessions());
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= settings.agents(); i++) {
            lines.add("AGENT_ID=A" + i + " SEED=" + (seed * 31 + i) + " " + common);
        }
        return lines;
    }

    /** {@code 400} for 400.0, {@code 2.5} for 2.5. */
    private static String number(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}
