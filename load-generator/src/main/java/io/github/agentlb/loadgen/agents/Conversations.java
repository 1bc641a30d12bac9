package io.github.agentlb.loadgen.agents;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.core.Check;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * The agents scenario's workload: {@code conversations} conversations of {@code turns} turns, in
 * {@code groups} groups sharing a long system prompt, made from a seed. Turn k (0-based) sends the
 * whole history: the system prompt, user message 0, then per later turn j = 1..k the assistant's
 * answer to turn j - 1, a tool result or document excerpt (a user message starting
 * {@value #TOOL_PREFIX} or {@value #DOCUMENT_PREFIX}) and user message j. Answers and tool results
 * are written here from the seed, not read from the agent, so the prompts do not depend on who
 * answered; a history grows by about 1,400 characters a turn. Conversation i is in group
 * {@code i % groups}; one in ten ({@code i % 10 == 9}) is MCP-style: it sends its first answer's
 * {@code Mcp-Session-Id} with every later turn. Immutable and thread-safe; a turn's texts are made
 * from the seed when asked for, O(turn).
 *
 * @param conversations number of conversations, >= 1
 * @param turns         turns per conversation, >= 1
 * @param groups        number of system-prompt groups, 1..conversations
 * @param seed          the seed of every text
 */
public record Conversations(int conversations, int turns, int groups, long seed) {

    /** The default workload's size. */
    public static final int DEFAULT_CONVERSATIONS = 48, DEFAULT_TURNS = 20, DEFAULT_GROUPS = 6;
    /** Lengths, chars: system prompts, first user message (within a word), later ones, answers, tool results. */
    public static final int SYSTEM_MIN_CHARS = 3_600, SYSTEM_MAX_CHARS = 4_000, FIRST_USER_CHARS = 200,
            USER_MIN_CHARS = 100, USER_MAX_CHARS = 300, ASSISTANT_MIN_CHARS = 100, ASSISTANT_MAX_CHARS = 200,
            TOOL_MIN_CHARS = 600, TOOL_MAX_CHARS = 1_500;
    /** How tool results and document excerpts begin. */
    public static final String TOOL_PREFIX = "Tool result: ", DOCUMENT_PREFIX = "Document excerpt: ";
    /** One conversation in this many is MCP-style (the last of each run of {@value}). */
    public static final int MCP_EVERY = 10;
    public static final String MODEL = "stub-llm";
    /** Tokens asked for in every request ({@code max_tokens}). */
    public static final int ANSWER_TOKENS = 8;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] WORDS = {
        "agent", "balancer", "cache", "prefix", "token", "session", "request", "answer", "route", "latency",
        "queue", "shard", "replica", "model", "prompt", "context", "window", "stream", "chunk", "header",
        "policy", "bound", "ring", "hash", "weight", "signal", "report", "health", "probe", "timeout",
        "retry", "budget", "tenant", "region", "schema", "invoice", "order", "ledger", "search", "index",
        "summary", "draft", "review", "ticket", "customer", "support", "refund", "shipping", "account", "plan",
        "the", "a", "of", "to", "and", "with", "for", "when", "then", "please", "explain", "list", "compare",
        "why", "how", "which", "each", "every", "must", "should", "never", "always", "briefly", "step"};

    public record Message(String role, String content) {
    }

    /** @throws IllegalArgumentException naming the bad value */
    public Conversations {
        Check.atLeast("conversations", conversations, 1);
        Check.atLeast("turns", turns, 1);
        Check.inRange("groups", groups, 1, conversations);
    }

    /** The default workload: {@value #DEFAULT_CONVERSATIONS} x {@value #DEFAULT_TURNS} in {@value #DEFAULT_GROUPS} groups. */
    public static Conversations ofDefaults(long seed) {
        return new Conversations(DEFAULT_CONVERSATIONS, DEFAULT_TURNS, DEFAULT_GROUPS, seed);
    }

    /** Requests of the whole workload: conversations x turns. */
    public int requests() {
        return conversations * turns;
    }

    /** Whether conversation {@code conversation} keeps an MCP session id from its first answer. */
    public boolean isMcp(int conversation) {
        return checkConversation(conversation) % MCP_EVERY == MCP_EVERY - 1;
    }

    public String userId(int conversation) {
        return "c" + checkConversation(conversation);
    }

    /** The messages of turn {@code turn} (0-based) of {@code conversation}: 2 + 3 x turn (see the class). */
    public List<Message> messages(int conversation, int turn) {
        checkConversation(conversation);
        Check.inRange("turn", turn, 0, turns - 1);
        int group = conversation % groups;
        SplittableRandom system = new SplittableRandom(mix(seed, 1, group));
        List<Message> messages = new ArrayList<>();
        messages.add(new Message("system", "You are assistant " + group + " of the support desk. "
                + text(system, between(system, SYSTEM_MIN_CHARS, SYSTEM_MAX_CHARS))));
        SplittableRandom random = new SplittableRandom(mix(seed, 2, conversation));
        messages.add(new Message("user", "Conversation " + conversation + ": " + text(random, FIRST_USER_CHARS)));
        for (int j = 1; j <= turn; j++) {
            int answerChars = between(random, ASSISTANT_MIN_CHARS, ASSISTANT_MAX_CHARS);
            messages.add(new Message("assistant", text(random, answerChars)));
            String prefix = random.nextBoolean() ? TOOL_PREFIX : DOCUMENT_PREFIX;
            messages.add(new Message("user", prefix + text(random, between(random, TOOL_MIN_CHARS, TOOL_MAX_CHARS)
                    - prefix.length())));
            messages.add(new Message("user", text(random, between(random, USER_MIN_CHARS, USER_MAX_CHARS))));
        }
        return messages;
    }

    /**
     * The JSON body of turn {@code turn} of {@code conversation}: OpenAI's chat completions request
     * with {@code model}, {@code messages}, {@code max_tokens} {@value #ANSWER_TOKENS} and
     * {@code "stream": true}, in that key order.
     */
    public String requestBody(int conversation, int turn) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", MODEL);
        ArrayNode array = body.putArray("messages");
        for (Message m : messages(conversation, turn)) {
            array.addObject().put("role", m.role()).put("content", m.content());
        }
        body.put("max_tokens", ANSWER_TOKENS);
        body.put("stream", true);
        return body.toString();
    }

    private int checkConversation(int conversation) {
        return Check.inRange("conversation", conversation, 0, conversations - 1);
    }

    /** Words from {@link #WORDS} up to about {@code chars} characters (never more), ending with a period. */
    private static String text(SplittableRandom random, int chars) {
        StringJoiner out = new StringJoiner(" ");
        String word = WORDS[random.nextInt(WORDS.length)];
        while (out.length() + word.length() + 2 <= chars) {
            out.add(word);
            word = WORDS[random.nextInt(WORDS.length)];
        }
        return out + ".";
    }

    /** A length drawn uniformly from {@code min..max}. */
    private static int between(SplittableRandom random, int min, int max) {
        return min + random.nextInt(max - min + 1);
    }

    /** A seed per (seed, stream, index): SplitMix64's finalizer over their combination. */
    private static long mix(long seed, int stream, int index) {
        long z = seed * 0x9E3779B97F4A7C15L + stream * 0xBF58476D1CE4E5B9L + index * 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
