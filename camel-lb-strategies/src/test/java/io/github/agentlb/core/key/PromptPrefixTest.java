package io.github.agentlb.core.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.ring.HashRing;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PromptPrefixTest {

    private static final PromptPrefix KEYS = PromptPrefix.ofDefaults();

    private static final String CHAT = """
            {"model":"llama-3.1-8b","temperature":0.2,
             "messages":[{"role":"system","content":"You are a helpful assistant."},
                         {"role":"user","content":"What is consistent hashing?"}]}""";

    @Test
    void goldenKeys() {
        assertThat(KEYS.keyOf(CHAT)).isEqualTo("94a575bceb67b0a4");
        assertThat(KEYS.keyOf("{\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}]}")).isEqualTo("dda306925a3b750f");
        assertThat(KEYS.keyOf("{\"model\":\"gpt-3.5-turbo-instruct\",\"prompt\":\"Say this is a test\"}"))
                .isEqualTo("28ac82d84db8bb30");
        assertThat(KEYS.keyOf(CHAT)).hasSize(16).matches("[0-9a-f]{16}");
    }

    @Test
    void theSameMessagesInAnotherFieldOrderOrSpacingGiveTheSameKey() {
        String reordered = """
                {
                  "messages" : [
                    { "content" : "  You are a   helpful\\n\\tassistant. ", "role" : "system" },
                    { "content" : [ {"text":"What is", "type":"text"},
                                    {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},
                                    {"type":"text","text":"consistent   hashing?"} ],
                      "role" : "user", "name" : "ann" }
                  ],
                  "temperature" : 0.2, "model" : "llama-3.1-8b"
                }""";
        assertThat(KEYS.keyOf(reordered)).isEqualTo(KEYS.keyOf(CHAT));
        assertThat(KEYS.keyOf(CHAT.getBytes(StandardCharsets.UTF_8))).isEqualTo(KEYS.keyOf(CHAT));
        assertThat(KEYS.keyOf(new ByteArrayInputStream(CHAT.getBytes(StandardCharsets.UTF_8)))).isEqualTo(KEYS.keyOf(CHAT));
    }

    @Test
    void aDifferentSystemPromptOrFirstTurnGivesAnotherKey() {
        assertThat(KEYS.keyOf(CHAT.replace("helpful", "terse"))).isNotEqualTo(KEYS.keyOf(CHAT));
        assertThat(KEYS.keyOf(CHAT.replace("consistent", "rendezvous"))).isNotEqualTo(KEYS.keyOf(CHAT));
        // The role counts: the same text from another role is another turn.
        assertThat(KEYS.keyOf(CHAT.replace("\"user\"", "\"assistant\""))).isNotEqualTo(KEYS.keyOf(CHAT));
    }

    @Test
    void everyTurnOfAConversationGetsOneKey() {
        Set<String> keys = new HashSet<>();
        List<String> messages = new ArrayList<>(List.of(message("system", "You answer questions about hashing."),
                message("developer", "Be brief.")));
        for (int turn = 1; turn <= 5; turn++) {
            messages.add(message("user", "Question " + turn + ": why does the ring need virtual nodes?"));
            keys.add(KEYS.keyOf(body(messages)));
            messages.add(message("assistant", "Answer " + turn + ": " + "to spread load. ".repeat(turn * 40)));
            // A system message late in the conversation does not change the key either.
            if (turn == 3) {
                messages.add(message("system", "The user is now in a hurry."));
            }
        }
        assertThat(keys).hasSize(1);
        assertThat(keys.iterator().next()).isNotNull();
    }

    @Test
    void conversationsSharingOnlyALongSystemPromptSpreadOverTheRing() {
        String system = "You are the support agent of a large retailer. ".repeat(64).substring(0, 3000);
        Random random = new Random(21);
        Set<String> keys = new HashSet<>();
        HashRing ring = HashRing.uniform(List.of("agent-1", "agent-2", "agent-3", "agent-4", "agent-5"), 150,
                HashAlgorithm.MD5);
        Map<String, Integer> perAgent = new TreeMap<>();
        for (int c = 0; c < 20; c++) {
            String first = "Order " + (100_000 + random.nextInt(900_000)) + " has not arrived; what can I do?";
            String key = KEYS.keyOf(body(List.of(message("system", system), message("user", first))));
            keys.add(key);
            perAgent.merge(ring.agentFor(key), 1, Integer::sum);
        }
        assertThat(keys).hasSizeGreaterThanOrEqualTo(18);
        assertThat(perAgent).isEqualTo(Map.of("agent-1", 3, "agent-2", 3, "agent-3", 4, "agent-4", 4, "agent-5", 6));
        // The system prompt alone never decides: without a user turn there is no key.
        assertThat(KEYS.keyOf(body(List.of(message("system", system))))).isNull();
    }

    @Test
    void onlyTheFirstKTimesBCharactersOfTheFirstTurnCount() {
        PromptPrefix small = PromptPrefix.custom().blocks(2).blockChars(8).build();
        assertThat(small.prefixChars()).isEqualTo(16);
        // "user: " is 6 characters of the 16.
        String a = body(List.of(message("user", "0123456789-and-then-a")));
        String b = body(List.of(message("user", "0123456789-and-then-b")));
        String c = body(List.of(message("user", "012345678X-and-then-a")));
        assertThat(small.keyOf(a)).isEqualTo(small.keyOf(b));
        assertThat(small.keyOf(a)).isNotEqualTo(small.keyOf(c));
        assertThat(KEYS.keyOf(a)).isNotEqualTo(KEYS.keyOf(b));
    }

    @Test
    void completionsPromptKeysByItsFirstCharacters() {
        String prompt = "{\"prompt\":\"Say   this is\\na test\",\"model\":\"m\"}";
        assertThat(KEYS.keyOf(prompt)).isEqualTo(KEYS.keyOf("{\"model\":\"m\",\"prompt\":\" Say this is a test \"}"));
        assertThat(KEYS.keyOf("{\"prompt\":[\"Say this is a test\",\"another\"]}")).isEqualTo(KEYS.keyOf(prompt));
        assertThat(KEYS.keyOf("{\"prompt\":[101,2023,2003]}")).isNull();
        assertThat(KEYS.keyOf("{\"prompt\":\"   \"}")).isNull();
        String shared = "x".repeat(1024);
        assertThat(KEYS.keyOf("{\"prompt\":\"" + shared + "A\"}")).isEqualTo(KEYS.keyOf("{\"prompt\":\"" + shared + "B\"}"));
        // A prompt and a chat with the same text do not share a key.
        assertThat(KEYS.keyOf("{\"messages\":[{\"role\":\"user\",\"content\":\"Say this is a test\"}]}"))
                .isNotEqualTo(KEYS.keyOf(prompt));
    }

    @Test
    void noKeyForBodiesWithoutOne() {
        assertThat(KEYS.keyOf((String) null)).isNull();
        assertThat(KEYS.keyOf((byte[]) null)).isNull();
        assertThat(KEYS.keyOf((InputStream) null)).isNull();
        assertThat(KEYS.keyOf("")).isNull();
        assertThat(KEYS.keyOf("not json at all")).isNull();
        assertThat(KEYS.keyOf("[1,2,3]")).isNull();
        assertThat(KEYS.keyOf("\"messages\"")).isNull();
        assertThat(KEYS.keyOf("{}")).isNull();
        assertThat(KEYS.keyOf("{\"model\":\"m\",\"input\":\"hello\"}")).isNull();
        assertThat(KEYS.keyOf("{\"messages\":[]}")).isNull();
        assertThat(KEYS.keyOf("{\"messages\":\"hello\"}")).isNull();
        assertThat(KEYS.keyOf("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"")).isNull();
        assertThat(KEYS.keyOf("{\"messages\":[{\"role\":\"user\",\"content\":\"hi}]}")).isNull();
        assertThat(KEYS.keyOf("{\"messages\":[{\"role\":\"user\" \"content\":\"hi\"}]}")).isNull();
        assertThat(KEYS.keyOf(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2})).isNull();
        assertThat(KEYS.keyOf("[".repeat(10_000))).isNull();
    }

    @Test
    void readsOnlyAsFarAsTheKeyNeeds() {
        String tail = ",\"tools\":[" + "{\"type\":\"function\",\"function\":{\"name\":\"f\"}},".repeat(200_000) + "{}]}";
        String body = "{\"messages\":[" + message("user", "hello") + "," + message("assistant", "hi") + "]" + tail;
        Counting in = new Counting(body.getBytes(StandardCharsets.UTF_8));
        assertThat(KEYS.keyOf(in)).isEqualTo(KEYS.keyOf("{\"messages\":[" + message("user", "hello") + "]}"));
        assertThat(in.read).isLessThanOrEqualTo(8_000 + 100);
        assertThat(body.length()).isGreaterThan(8_000_000);
    }

    @Test
    void aHugeBodyBeforeTheKeyIsReadOnlyUpToTheLimit() {
        String head = "{\"tools\":[" + "{\"type\":\"function\",\"function\":{\"name\":\"f\"}},".repeat(200_000) + "{}],";
        String body = head + "\"messages\":[" + message("user", "hello") + "]}";
        Counting in = new Counting(body.getBytes(StandardCharsets.UTF_8));
        assertThat(KEYS.keyOf(in)).isNull();
        assertThat(in.read).isEqualTo(PromptPrefix.DEFAULT_MAX_BODY_BYTES);
        assertThat(KEYS.keyOf(body)).isNull();
        assertThat(KEYS.keyOf(body.getBytes(StandardCharsets.UTF_8))).isNull();
        // Within a larger limit the same body has its key.
        PromptPrefix large = PromptPrefix.custom().maxBodyBytes(16 << 20).build();
        assertThat(large.keyOf(body)).isEqualTo(KEYS.keyOf("{\"messages\":[" + message("user", "hello") + "]}"));
    }

    @Test
    void aFailingStreamGivesNoKey() {
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("connection reset");
            }
        };
        assertThat(KEYS.keyOf(failing)).isNull();
    }

    @Test
    void builderNamesFieldAndValue() {
        assertThatThrownBy(() -> PromptPrefix.custom().blocks(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("blocks must be >= 1, was 0");
        assertThatThrownBy(() -> PromptPrefix.custom().blockChars(-3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("blockChars must be >= 1, was -3");
        assertThatThrownBy(() -> PromptPrefix.custom().maxBodyBytes(10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBodyBytes must be >= 64, was 10");
        assertThat(PromptPrefix.ofDefaults()).isEqualTo(PromptPrefix.custom().build());
        assertThat(PromptPrefix.ofDefaults().toString())
                .isEqualTo("PromptPrefix[blocks=4, blockChars=256, maxBodyBytes=1048576]");
    }

    @Test
    void builderValuesAreKeptAndDecideEquality() {
        PromptPrefix a = PromptPrefix.custom().blocks(2).blockChars(8).maxBodyBytes(100).build();
        assertThat(a.blocks()).isEqualTo(2);
        assertThat(a.blockChars()).isEqualTo(8);
        assertThat(a.maxBodyBytes()).isEqualTo(100);
        assertThat(a).hasToString("PromptPrefix[blocks=2, blockChars=8, maxBodyBytes=100]");
        PromptPrefix same = PromptPrefix.custom().maxBodyBytes(100).blockChars(8).blocks(2).build();
        assertThat(a).isEqualTo(same).isNotSameAs(same);
        assertThat(a.hashCode()).isEqualTo(same.hashCode());
        for (PromptPrefix other : List.of(PromptPrefix.custom().blocks(3).blockChars(8).maxBodyBytes(100).build(),
                PromptPrefix.custom().blocks(2).blockChars(9).maxBodyBytes(100).build(),
                PromptPrefix.custom().blocks(2).blockChars(8).maxBodyBytes(101).build())) {
            assertThat(a).isNotEqualTo(other);
            assertThat(a.hashCode()).isNotEqualTo(other.hashCode());
        }
        assertThat(a).isNotEqualTo(a.toString()).isNotEqualTo(null);
        assertThat(PromptPrefix.ofDefaults().maxBodyBytes()).isEqualTo(1_048_576);
    }

    @Test
    void leadingMessagesJoinAsRoleAndTextSeparatedBySingleSpaces() {
        String user = message("user", "hello");
        String twoLeading = body(List.of(message("system", "Be kind."), message("developer", "Be brief."), user));
        String oneLeading = body(List.of(message("system", "Be kind. developer: Be brief."), user));
        assertThat(KEYS.keyOf(twoLeading)).isEqualTo(KEYS.keyOf(oneLeading));
        assertThat(KEYS.keyOf(twoLeading))
                .isNotEqualTo(KEYS.keyOf(body(List.of(message("system", "Be kind.developer: Be brief."), user))));
    }

    @Test
    void contentGivenTwiceOrAsPartsJoinsWithOneSpace() {
        String plain = "{\"messages\":[{\"role\":\"user\",\"content\":\"what is hashing\"}]}";
        String twice = "{\"messages\":[{\"role\":\"user\",\"content\":\"what is\",\"content\":\"hashing\"}]}";
        String bareParts = "{\"messages\":[{\"role\":\"user\",\"content\":[\"what\",\"is\",\"hashing\"]}]}";
        String mixedParts = "{\"messages\":[{\"role\":\"user\",\"content\":[\"what is\","
                + "{\"type\":\"text\",\"text\":\"hashing\"}]}]}";
        assertThat(KEYS.keyOf(plain)).isNotNull();
        assertThat(KEYS.keyOf(twice)).isEqualTo(KEYS.keyOf(plain));
        assertThat(KEYS.keyOf(bareParts)).isEqualTo(KEYS.keyOf(plain));
        assertThat(KEYS.keyOf(mixedParts)).isEqualTo(KEYS.keyOf(plain));
        assertThat(KEYS.keyOf(plain.replace("what is hashing", "whatishashing"))).isNotEqualTo(KEYS.keyOf(plain));
    }

    @Test
    void theFirstCharactersNeverEndInsideASurrogatePair() {
        // "user: " is 6 of the 8 characters; the emoji's high surrogate would be the 8th.
        PromptPrefix eight = PromptPrefix.custom().blocks(1).blockChars(8).build();
        String emoji = "a\uD83D\uDE00b";
        assertThat(eight.keyOf(body(List.of(message("user", emoji))))).isEqualTo(eight.keyOf(body(List.of(message("user", "a")))));
        assertThat(eight.keyOf(body(List.of(message("user", "ab"))))).isNotEqualTo(eight.keyOf(body(List.of(message("user", "a")))));
    }

    @Test
    void aTextOfExactlyThePrefixLengthIsHashedWhole() {
        PromptPrefix eight = PromptPrefix.custom().blocks(1).blockChars(8).build();
        // Eight characters ending in a lone high surrogate: nothing past it, so nothing is cut.
        String lone = body(List.of(message("user", "a\\ud83d")));
        assertThat(eight.keyOf(lone)).isNotNull().isNotEqualTo(eight.keyOf(body(List.of(message("user", "a")))));
    }

    /**
     * A body cut off inside its first turn's text (a proxy that routes on the first bytes of a body
     * still arriving, or the read limit) has the whole body's key once the text before the cut is
     * K x B characters long: at every byte of a stretch of escapes, two-, three- and four-byte
     * characters, from a byte array, a stream and text. Cut sooner, inside a system message, or where
     * the role (a part's type) comes after the text, it has none.
     */
    @Test
    void aBodyCutInsideItsFirstTurnAfterTheCountedCharactersHasTheWholeBodysKey() {
        String unit = "lorem ipsum \\\"quoted\\\" \\\\ tab\\t \\u00e9t\u00e9 \u20ac \ud83d\ude00  ";
        String turn = "Summarise this: " + unit.repeat(300);
        String body = body(List.of(message("system", "Be brief."), message("user", turn), message("assistant", "ok")));
        String whole = KEYS.keyOf(body);
        assertThat(whole).isNotNull();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        int from = body.indexOf("Summarise") + 3_000;
        for (int cut = from; cut < from + 200; cut++) {
            assertThat(KEYS.keyOf(Arrays.copyOf(bytes, cut))).as("bytes cut at %d", cut).isEqualTo(whole);
            assertThat(KEYS.keyOf(new ByteArrayInputStream(bytes, 0, cut))).as("stream cut at %d", cut).isEqualTo(whole);
            assertThat(KEYS.keyOf(body.substring(0, cut))).as("text cut at %d", cut).isEqualTo(whole);
        }
        // The read limit cuts the same way: a first turn of 2 MiB.
        String huge = body(List.of(message("user", "x y ".repeat(1 << 19))));
        assertThat(KEYS.keyOf(new ByteArrayInputStream(huge.getBytes(StandardCharsets.UTF_8))))
                .isEqualTo(PromptPrefix.custom().maxBodyBytes(16 << 20).build().keyOf(huge)).isNotNull();
        // Completions: the prompt cut after its counted characters.
        String prompt = "{\"prompt\":\"" + unit.repeat(300) + "\"}";
        assertThat(KEYS.keyOf(prompt.substring(0, 3_000))).isEqualTo(KEYS.keyOf(prompt)).isNotNull();
        // Content as parts, the type first: cut inside the text.
        String parts = body(List.of("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + turn + "\"}]}"));
        assertThat(KEYS.keyOf(parts.substring(0, 3_000))).isEqualTo(KEYS.keyOf(parts)).isNotNull();
        // None: too soon, in a system message, the role or the type after the text.
        assertThat(KEYS.keyOf(body.substring(0, body.indexOf("Summarise") + 500))).isNull();
        String longSystem = body(List.of(message("system", turn), message("user", "hi")));
        assertThat(KEYS.keyOf(longSystem.substring(0, 3_000))).isNull();
        String roleAfter = body(List.of("{\"content\":\"" + turn + "\",\"role\":\"user\"}"));
        assertThat(KEYS.keyOf(roleAfter)).isNotNull();
        assertThat(KEYS.keyOf(roleAfter.substring(0, 3_000))).isNull();
        String typeAfter = body(List.of("{\"role\":\"user\",\"content\":[{\"text\":\"" + turn + "\",\"type\":\"text\"}]}"));
        assertThat(KEYS.keyOf(typeAfter)).isNotNull();
        assertThat(KEYS.keyOf(typeAfter.substring(0, 3_000))).isNull();
    }

    /**
     * The first bytes of a body decide its key when the key is complete in them or the body can
     * have none; they do not when they end before that: inside a system message, a long tools list
     * sent first, a message whose role follows its long content, a short text before a large image.
     */
    @Test
    void theFirstBytesDecideTheKeyOnlyWhenItIsCompleteOrImpossible() {
        String turn = "Summarise this: " + "lorem ipsum dolor ".repeat(2_000);
        String plain = body(List.of(message("system", "Be brief."), message("user", turn)));
        assertThat(decides(plain, 2_000)).as("the key complete in the first turn").isTrue();
        assertThat(decides(plain, 500)).as("cut before K x B characters of the turn").isFalse();
        assertThat(decides(plain, plain.length())).isTrue();
        String longSystem = body(List.of(message("system", turn), message("user", "hi")));
        assertThat(decides(longSystem, 20_000)).isFalse();
        assertThat(decides(longSystem, longSystem.length())).isTrue();
        String toolsFirst = "{\"tools\":[" + "{\"type\":\"function\",\"function\":{\"name\":\"f\"}},".repeat(2_000)
                + "{}],\"messages\":[" + message("user", "hello") + "]}";
        assertThat(decides(toolsFirst, 60_000)).isFalse();
        assertThat(decides(toolsFirst, toolsFirst.length())).isTrue();
        String roleAfter = body(List.of("{\"content\":\"" + turn + "\",\"role\":\"user\"}"));
        assertThat(decides(roleAfter, 20_000)).isFalse();
        String image = body(List.of("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is in this image?\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," + "A".repeat(200_000) + "\"}}]}"));
        assertThat(decides(image, 60_000)).isFalse();
        assertThat(KEYS.keyOf(image)).isNotNull();
        // No key whatever follows: decided.
        assertThat(decides("not json", 8)).isTrue();
        assertThat(decides("{\"input\":\"" + turn + "\"}", 5_000)).isFalse(); // a field skipped, cut: more may follow
        assertThat(decides("{\"model\":\"m\",\"messages\":\"x\"}", 30)).isTrue();
        assertThat(KEYS.decides(null)).isTrue();
        // The read limit decides.
        PromptPrefix small = PromptPrefix.custom().maxBodyBytes(10_000).build();
        assertThat(small.decides(new ByteArrayInputStream(toolsFirst.getBytes(StandardCharsets.UTF_8), 0, 20_000))).isTrue();
    }

    private static boolean decides(String body, int bytes) {
        byte[] all = body.getBytes(StandardCharsets.UTF_8);
        return KEYS.decides(new ByteArrayInputStream(all, 0, Math.min(bytes, all.length)));
    }

    static String message(String role, String content) {
        return "{\"role\":\"" + role + "\",\"content\":\"" + content.replace("\n", "\\n") + "\"}";
    }

    static String body(List<String> messages) {
        return "{\"model\":\"m\",\"stream\":true,\"messages\":[" + String.join(",", messages) + "]}";
    }

    /** Counts the bytes read. */
    private static final class Counting extends FilterInputStream {
        long read;

        Counting(byte[] bytes) {
            super(new ByteArrayInputStream(bytes));
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                read++;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                read += n;
            }
            return n;
        }
    }

    @Test
    void theLimitedStreamEndsAtItsLimitByteByByteIncludingZeroBytes() throws IOException {
        ByteArrayInputStream source = new ByteArrayInputStream(new byte[] {0, 7, 9});
        PromptPrefix.Limited limited = new PromptPrefix.Limited(source, 2);
        assertThat(limited.read()).isZero();
        assertThat(limited.read()).isEqualTo(7);
        assertThat(limited.read()).isEqualTo(-1);
        assertThat(source.read()).as("the byte after the limit is left in the source").isEqualTo(9);
    }

    @Test
    void theLimitedStreamReadsAtMostItsLimitIntoABuffer() throws IOException {
        ByteArrayInputStream source = new ByteArrayInputStream(new byte[] {1, 2, 3, 4, 5, 6});
        PromptPrefix.Limited limited = new PromptPrefix.Limited(source, 4);
        byte[] buffer = new byte[10];
        assertThat(limited.read(buffer, 0, buffer.length)).isEqualTo(4);
        assertThat(buffer).startsWith(1, 2, 3, 4);
        assertThat(limited.read(buffer, 0, buffer.length)).isEqualTo(-1);
        assertThat(source.read()).isEqualTo(5);
    }

    @Test
    void theLimitedStreamSkipsAndReportsAvailableBytesWithinItsLimit() throws IOException {
        ByteArrayInputStream source = new ByteArrayInputStream(new byte[10]);
        PromptPrefix.Limited limited = new PromptPrefix.Limited(source, 4);
        assertThat(limited.available()).isEqualTo(4);
        assertThat(limited.skip(3)).isEqualTo(3);
        assertThat(limited.available()).isEqualTo(1);
        assertThat(limited.skip(10)).isEqualTo(1);
        assertThat(limited.read()).isEqualTo(-1);
        assertThat(source.available()).isEqualTo(6);
    }
}
