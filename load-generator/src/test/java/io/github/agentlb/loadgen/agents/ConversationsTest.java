package io.github.agentlb.loadgen.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ConversationsTest {

    private final Conversations defaults = Conversations.ofDefaults(42);

    @Test
    void defaultsHaveTheDocumentedShape() {
        assertEquals(48, defaults.conversations());
        assertEquals(20, defaults.turns());
        assertEquals(6, defaults.groups());
        assertEquals(960, defaults.requests());
        assertEquals(4, mcpConversations(defaults));
    }

    @Test
    void goldenValues() throws Exception {
        assertEquals(GOLDEN_FIRST_PROMPT_CHARS, promptChars(0, 0));
        assertEquals(GOLDEN_TURN3_OF_5_SHA256, sha256(defaults.requestBody(5, 3)));
        assertEquals(GOLDEN_LAST_PROMPT_CHARS, promptChars(47, 19));
        assertEquals(GOLDEN_LAST_TURN_SHA256, sha256(defaults.requestBody(47, 19)));
    }

    @Test
    void sameSeedSameTextsOtherSeedOtherTexts() {
        Conversations again = Conversations.ofDefaults(42);
        for (int c = 0; c < defaults.conversations(); c += 7) {
            for (int k = 0; k < defaults.turns(); k++) {
                assertEquals(defaults.requestBody(c, k), again.requestBody(c, k));
            }
        }
        assertNotEquals(defaults.requestBody(5, 3), Conversations.ofDefaults(43).requestBody(5, 3));
    }

    @Test
    void eachTurnExtendsTheLastWithAnAnswerAToolResultAndAUserMessage() {
        for (int k = 1; k < defaults.turns(); k++) {
            List<Conversations.Message> before = defaults.messages(9, k - 1);
            List<Conversations.Message> now = defaults.messages(9, k);
            assertEquals(before, now.subList(0, before.size()));
            assertEquals(before.size() + 3, now.size());
            assertEquals("assistant", now.get(now.size() - 3).role());
            Conversations.Message tool = now.get(now.size() - 2);
            assertEquals("user", tool.role());
            assertTrue(tool.content().startsWith(Conversations.TOOL_PREFIX)
                    || tool.content().startsWith(Conversations.DOCUMENT_PREFIX), tool.content());
            assertEquals("user", now.get(now.size() - 1).role());
        }
    }

    @Test
    void historiesGrowToSeveralTimesTheSystemPrompt() {
        for (int c = 0; c < defaults.conversations(); c++) {
            List<Conversations.Message> last = defaults.messages(c, defaults.turns() - 1);
            int system = last.get(0).content().length();
            int history = last.stream().skip(1).mapToInt(m -> m.content().length()).sum();
            assertTrue(history >= 2 * system, "conversation " + c + ": history " + history + ", system " + system);
        }
    }

    @Test
    void groupsShareTheirSystemPromptAndConversationsDiffer() {
        String system0 = defaults.messages(0, 0).get(0).content();
        assertEquals(system0, defaults.messages(6, 0).get(0).content());
        assertNotEquals(system0, defaults.messages(1, 0).get(0).content());
        assertNotEquals(defaults.messages(0, 0).get(1), defaults.messages(6, 0).get(1));
        for (int g = 0; g < defaults.groups(); g++) {
            int chars = defaults.messages(g, 0).get(0).content().length();
            assertTrue(chars >= 3_000 && chars <= 4_100, "system prompt " + g + " has " + chars + " chars");
        }
    }

    @Test
    void messageLengthsStayInTheirRanges() {
        for (int c = 0; c < defaults.conversations(); c++) {
            List<Conversations.Message> all = defaults.messages(c, defaults.turns() - 1);
            int first = all.get(1).content().length();
            assertTrue(first >= 180 && first <= 220, "first user message of " + c + ": " + first);
            for (int j = 2; j < all.size(); j++) {
                int len = all.get(j).content().length();
                int min;
                int max;
                switch ((j - 2) % 3) {
                    case 0 -> {
                        min = Conversations.ASSISTANT_MIN_CHARS;
                        max = Conversations.ASSISTANT_MAX_CHARS;
                    }
                    case 1 -> {
                        min = Conversations.TOOL_MIN_CHARS;
                        max = Conversations.TOOL_MAX_CHARS;
                    }
                    default -> {
                        min = Conversations.USER_MIN_CHARS;
                        max = Conversations.USER_MAX_CHARS;
                    }
                }
                assertTrue(len >= min - 15 && len <= max, all.get(j).role() + " message " + j + " of " + c + ": " + len);
            }
        }
    }

    @Test
    void oneConversationInTenIsMcpStyle() {
        assertEquals(List.of(9, 19, 29, 39), IntStream.range(0, defaults.conversations())
                .filter(defaults::isMcp).boxed().toList());
        assertEquals(1, mcpConversations(new Conversations(10, 2, 1, 1)));
        assertEquals(0, mcpConversations(new Conversations(9, 2, 1, 1)));
        assertEquals("c5", defaults.userId(5));
    }

    @Test
    void badArgumentsAreNamed() {
        assertThrows(IllegalArgumentException.class, () -> new Conversations(0, 6, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Conversations(6, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Conversations(6, 6, 7, 1));
        assertThrows(IllegalArgumentException.class, () -> defaults.messages(48, 0));
        assertThrows(IllegalArgumentException.class, () -> defaults.messages(0, 20));
    }

    private static final int GOLDEN_FIRST_PROMPT_CHARS = 3_921;
    private static final String GOLDEN_TURN3_OF_5_SHA256 =
            "66acd525e2c6c3b4d2af6ed02ef0e6b51812faed2eb9a8995531c065305ccc9a";
    /** The last turn of the last conversation: a history of about 7.8 x its system prompt. */
    private static final int GOLDEN_LAST_PROMPT_CHARS = 30_449;
    private static final String GOLDEN_LAST_TURN_SHA256 =
            "3ae3684720a1a2c7899f2a9937c5b2d6a7ddbc4eb28391d916b3389f209d566c";

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Characters of all message contents of a turn, the system prompt included. */
    private int promptChars(int conversation, int turn) {
        return defaults.messages(conversation, turn).stream().mapToInt(m -> m.content().length()).sum();
    }

    /** Number of MCP-style conversations. */
    private static long mcpConversations(Conversations c) {
        return IntStream.range(0, c.conversations()).filter(c::isMcp).count();
    }
}
