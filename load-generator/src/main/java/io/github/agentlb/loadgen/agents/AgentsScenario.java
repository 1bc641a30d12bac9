package io.github.agentlb.loadgen.agents;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.agent.llm.LlmModel;
import io.github.agentlb.agent.llm.LlmShape;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The agents scenario of one {@link AgentsVariant}: {@link Settings#agents()} stub agents with the
 * LLM server model (prefix cache, prefill cost per uncached block, running limit, MCP sessions)
 * behind the demo proxy (or several replicas), all in this JVM on free loopback ports, and the
 * {@link Conversations} sent through it as streamed chat completions by
 * {@link Settings#inFlight()} closed-loop workers: each worker takes the next conversation and
 * sends its turns one after another, each when the previous answer ended. Conversation i goes to
 * replica {@code i % replicas}, with {@code ?user_id=c<i>}; an MCP-style conversation sends its
 * first answer's session id with every later turn.
 *
 * <p>Thread-safe: {@link #run} may be called for several variants at once, each with its own
 * agents and proxies.
 */
public final class AgentsScenario {

    /**
     * The agents' and the clients' settings.
     *
     * @param agents   stub agents, >= 1, named {@code A1..An}
     * @param chat     first token base (ms), token rate, default answer length
     * @param llm      prefix cache, prefill cost, running limit and queue, sessions
     * @param inFlight closed-loop workers, i.e. conversations in flight, >= 1
     * @param timeout  per request, send to {@code [DONE]}
     */
    public record Settings(int agents, ChatShape chat, LlmShape llm, int inFlight, Duration timeout) {
        /** Default agents. */
        public static final int DEFAULT_AGENTS = 8;
        /** Default conversations in flight. */
        public static final int DEFAULT_IN_FLIGHT = 24;
        /** Default prefix cache per agent, blocks (see {@link #DEFAULT_LLM}). */
        public static final int DEFAULT_CACHE_BLOCKS = 4_300;
        /** Default per-request timeout. */
        public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
        /**
         * The agents' chat shape: first token 20 ms after admission plus prefill, 400 tokens/s
         * (the requests ask for {@value Conversations#ANSWER_TOKENS}, about 20 ms of streaming).
         */
        public static final ChatShape DEFAULT_CHAT = new ChatShape(20, 400, Conversations.ANSWER_TOKENS);
        /**
         * The agents' LLM model: 64-char blocks; {@value #DEFAULT_CACHE_BLOCKS} cached blocks per
         * agent, about 1.3 x an agent's fair share of the default workload's working set (the six
         * system prompts, 356 blocks, and an eighth of the 48 conversations' final histories,
         * 23,438 / 8 = 2,930 blocks: 3,286), so that an agent keeps the conversations a keyed
         * strategy gives it;
         * 3 ms per uncached block (about 16 tokens, some 5,000 prompt tokens/s); 8 running, 64
         * waiting, so that the conversations in flight never get a 429; sessions minted.
         */
        public static final LlmShape DEFAULT_LLM = LlmShape.custom().blockChars(64).cacheBlocks(DEFAULT_CACHE_BLOCKS)
                .uncachedBlockMs(3).maxRunning(8).maxQueue(64).mintSessions(true).build();

        public Settings {
            if (agents < 1) {
                throw new IllegalArgumentException("agents must be >= 1, was " + agents);
            }
            Objects.requireNonNull(chat, "chat");
            Objects.requireNonNull(llm, "llm");
            if (inFlight < 1) {
                throw new IllegalArgumentException("inFlight must be >= 1, was " + inFlight);
            }
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be > 0, was " + timeout);
            }
        }

        /** The scenario's defaults. */
        public static Settings ofDefaults() {
            return new Settings(DEFAULT_AGENTS, DEFAULT_CHAT, DEFAULT_LLM, DEFAULT_IN_FLIGHT, DEFAULT_TIMEOUT);
        }

        /** One line for reports. */
        public String describe() {
            return String.format(Locale.ROOT, "%d agents; first token %d ms + %.1f ms per uncached %d-char block, "
                            + "%.0f tokens/s; prefix cache %d blocks per agent; at most %d running, %d waiting; "
                            + "%d conversations in flight; timeout %d ms", agents, chat.firstTokenMs(),
                    llm.uncachedBlockMs(), llm.blockChars(), chat.tokensPerSecond(), llm.cacheBlocks(),
                    llm.maxRunning(), llm.maxQueue(), inFlight, timeout.toMillis());
        }
    }

    private final Conversations workload;
    private final Settings settings;
    private final long seed;
    private final PrintStream stdout;

    /**
     * @param workload the conversations
     * @param settings agents and clients
     * @param seed     seed of the agents (their session ids)
     * @param stdout   where progress goes
     */
    public AgentsScenario(Conversations workload, Settings settings, long seed, PrintStream stdout) {
        this.workload = Objects.requireNonNull(workload, "workload");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.seed = seed;
        this.stdout = Objects.requireNonNull(stdout, "stdout");
    }

    /** The conversations sent. */
    public Conversations workload() {
        return workload;
    }

    /** The agents' and clients' settings. */
    public Settings settings() {
        return settings;
    }

    /** The agents' settings: ids {@code A1..An}, free ports, seeds derived from the scenario's seed. */
    List<AgentConfig> agentConfigs() {
        List<AgentConfig> configs = new ArrayList<>();
        for (int i = 1; i <= settings.agents(); i++) {
            configs.add(AgentConfig.custom().agentId("A" + i).port(0).seed(seed * 31 + i)
                    .chat(settings.chat()).llm(settings.llm()).build());
        }
        return configs;
    }

    /**
     * Runs {@code variant}: starts its agents and proxies, sends every conversation, reads the
     * agents' counters and stops everything.
     *
     * @throws Exception if the cluster cannot start or a worker is interrupted
     */
    public AgentsResult run(AgentsVariant variant) throws Exception {
        return run(variant, () -> { });
    }

    /**
     * As {@link #run(AgentsVariant)}, calling {@code started} once the agents and proxies listen
     * and before the first request: variants run at the same time wait there for each other, so
     * that no variant is measured while another one starts.
     *
     * @param started called on the calling thread; what it throws ends the run
     * @throws Exception if the cluster cannot start, {@code started} throws or a worker is interrupted
     */
    public AgentsResult run(AgentsVariant variant, StartGate started) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(agentConfigs(),
                ProxyConfig.builder().strategy(variant.strategy()), variant::balancer, variant.replicas())) {
            started.pass();
            List<URI> targets = cluster.baseUrls().stream().map(u -> URI.create(u + "/v1/chat/completions")).toList();
            ChatStreamClient client = new ChatStreamClient(settings.timeout());
            long start = System.nanoTime();
            List<Turn> turns = ConversationDriver.run(workload, client, settings.inFlight(), "agents-" + variant.label(),
                    c -> URI.create(targets.get(c % targets.size()) + "?user_id=" + workload.userId(c)),
                    c -> c % targets.size(), UnaryOperator.identity());
            long wall = System.nanoTime() - start;
            Map<String, AgentsResult.AgentCounters> counters = new LinkedHashMap<>();
            for (StubAgent agent : cluster.agents()) {
                LlmModel.Counters llm = agent.llm().counters();
                counters.put(agent.config().agentId(), new AgentsResult.AgentCounters(llm.promptBlocks(),
                        llm.cachedBlocks(), llm.maxWaiting(), llm.admitted(), llm.firstTokenNanosTotal(),
                        agent.llm().agentFirstTokenNanos()));
            }
            AgentsResult result = AgentsResult.of(variant, turns, counters, wall);
            stdout.printf(Locale.ROOT, "== agents %s: %d requests in %.1f s, ttft p50 %.1f ms (at the agents %.1f), "
                            + "hit rate %.3f, errors %d%n", variant.label(), result.requests(), result.seconds(),
                    result.ttftP50Ms(), result.agentTtftP50Ms(), result.hitRate(), result.errors());
            return result;
        }
    }

    /** Where a run waits once its agents and proxies listen. */
    @FunctionalInterface
    public interface StartGate {
        /** Returns when the run may send its first request. */
        void pass() throws Exception;
    }
}
