package io.github.agentlb.core.key;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import io.github.agentlb.core.Check;
import io.github.agentlb.core.hash.HashAlgorithm;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A routing key read from the prompt of an OpenAI-style JSON request body, so that requests that
 * can reuse an agent's prefix cache (KV cache) reach the same agent. Immutable configuration built
 * by {@link #custom()} or {@link #ofDefaults()}; each setter of the {@link Builder} throws
 * {@link IllegalArgumentException} naming the field and the bad value.
 *
 * <h2>The key</h2>
 * <ul>
 *   <li><b>Chat</b> ({@code messages}, an array of {@code {"role":..., "content":...}}): the key
 *       combines a hash of the canonical text of the system and developer messages that lead the
 *       array with a hash of the first K blocks of B characters of the canonical text of the first
 *       other message (the first user turn). A conversation's later turns repeat its leading
 *       messages and its first user turn, so every turn of one conversation gets the same key and
 *       reaches the agent that already holds its prefix; conversations that share only a long
 *       system prompt still spread, because their first user turns differ; a shared system prompt
 *       alone never decides. A body with system messages only has no key.</li>
 *   <li><b>Completions</b> ({@code prompt}, a string, or an array whose first element is a string):
 *       a hash of the first K x B characters of its canonical text. Prompts that share a prefix
 *       longer than K x B characters (a long fixed instruction, say) get one key: that prefix then
 *       decides alone. An array of token ids has no key.</li>
 * </ul>
 * Canonical text: for each message, its role, a colon and its content; content is a string or
 * an array of parts of which only {@code {"type":"text","text":...}} count (images, audio and
 * other parts are ignored), parts joined by a space; runs of white space collapse to one space
 * and the text is trimmed. The key is therefore independent of the order of the JSON object's
 * fields and of white space, inside strings and between tokens. Everything else in the body
 * ({@code model}, {@code tools}, sampling options) is skipped and never decides.
 *
 * <p>Key form: 16 lowercase hex characters, a 64-bit hash (FNV-1a 64 with MurmurHash3's
 * finalizer, {@link HashAlgorithm#FNV1A_64_MIXED}); the same body gives the same key in every
 * JVM and run. No key ({@code null}, the caller falls back to another key) when the body is not
 * a JSON object, is malformed or truncated before the key is complete, has neither field, or
 * is longer than {@link #maxBodyBytes()} before the key is complete. The key is complete inside
 * the first turn's text (or the prompt) once K x B characters of its canonical text are read: a
 * body cut there (a proxy holding only its first bytes, or the limit) has the whole body's key,
 * provided the message's {@code role} came before its {@code content} (and a part's {@code type}
 * before its {@code text}), as clients send them. Never throws on a bad body.
 *
 * <h2>Bounded reading</h2>
 * Jackson's streaming {@link JsonParser}, never a tree: fields before {@code messages} or
 * {@code prompt} are skipped token by token, and reading stops at the end of the first user
 * turn (or of the prompt's first string). At most {@link #maxBodyBytes()} bytes are read (a
 * String body: that many chars), plus the parser's read-ahead buffer (8,000 bytes) from a stream;
 * what is read of a stream is kept until the key is made, to read a string the end cut off.
 *
 * <h2>Source and difference</h2>
 * KubeAI's {@code PrefixHash} load balancing (consistent hashing with bounded loads on a prompt
 * prefix, https://www.kubeai.org/, model field {@code loadBalancing.prefixHash}) hashes the first
 * {@code prefixCharLength} characters (default 100) of the first {@code user} message's content,
 * taken raw and only when the content is a string; system messages are ignored, and for
 * completions the prompt's first {@code prefixCharLength} characters. Here the text is
 * canonical, content parts count, the default span is longer (4 x 256 = 1,024 characters, so
 * first turns that open with the same template still differ), and the leading system and
 * developer messages join the key, so two applications whose users open alike do not share it.
 * The blocks mirror the engines' prefix caches, which reuse whole blocks from the start.
 *
 * <p>Thread-safe; one instance can serve every request. Cost: O(bytes read); per call it
 * allocates the parser and the canonical text of the leading messages and of the first turn.
 */
public final class PromptPrefix {

    /** Default K: 4 blocks. */
    public static final int DEFAULT_BLOCKS = 4;
    /** Default B: 256 characters per block (with K = 4, the first 1,024 characters of the first turn). */
    public static final int DEFAULT_BLOCK_CHARS = 256;
    /** Default most bytes read of a body: 1 MiB (1,048,576). */
    public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;

    private static final PromptPrefix DEFAULTS = custom().build();
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final int blocks;
    private final int blockChars;
    private final int maxBodyBytes;
    private final JsonFactory json;

    private PromptPrefix(Builder b) {
        this.blocks = b.blocks;
        this.blockChars = b.blockChars;
        this.maxBodyBytes = b.maxBodyBytes;
        this.json = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64)
                        .maxStringLength(maxBodyBytes).maxDocumentLength(maxBodyBytes).build())
                .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
                .build();
    }

    /** @return a builder initialised with the defaults */
    public static Builder custom() {
        return new Builder();
    }

    /** @return K = 4 blocks of B = 256 characters, bodies up to 1 MiB */
    public static PromptPrefix ofDefaults() {
        return DEFAULTS;
    }

    /** @return K, the blocks of the first turn (or prompt) hashed, >= 1 */
    public int blocks() {
        return blocks;
    }

    /** @return B, characters per block, >= 1 */
    public int blockChars() {
        return blockChars;
    }

    /** @return the most bytes of a body read (chars of a String body), >= 64 */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** @return K x B, the characters of the first turn or prompt that count */
    public long prefixChars() {
        return (long) blocks * blockChars;
    }

    /**
     * The key of a body held in memory.
     *
     * @param body a request body, UTF-8 (or UTF-16/32 with a BOM); null gives null
     * @return 16 hex characters, or null when the body has no key
     */
    public String keyOf(byte[] body) {
        return body == null ? null : keyOf(body, 0, body.length);
    }

    /**
     * The key of {@code length} bytes of {@code body} from {@code offset}; reads at most
     * {@link #maxBodyBytes()} of them.
     *
     * @return 16 hex characters, or null when the body has no key
     * @throws IndexOutOfBoundsException if the range is not inside {@code body}
     */
    public String keyOf(byte[] body, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, body.length);
        int read = Math.min(length, maxBodyBytes);
        return keyOf(json -> json.createParser(body, offset, read), CutStrings.of(body, offset, read));
    }

    /**
     * The key of a body held as text; reads at most {@link #maxBodyBytes()} chars of it.
     *
     * @return 16 hex characters, or null when the body has no key (null gives null)
     */
    public String keyOf(String body) {
        if (body == null) {
            return null;
        }
        String read = body.length() > maxBodyBytes ? body.substring(0, maxBodyBytes) : body;
        return keyOf(json -> json.createParser(read), CutStrings.of(read));
    }

    /**
     * The key of a body read from a stream: reads only as far as the key needs (plus the
     * parser's buffer), at most {@link #maxBodyBytes()} bytes; never closes the stream. An
     * {@link IOException} of the stream gives null like a malformed body.
     *
     * @return 16 hex characters, or null when the body has no key (null gives null)
     */
    public String keyOf(InputStream body) {
        if (body == null) {
            return null;
        }
        CutStrings.Recorded read = new CutStrings.Recorded(new Limited(body, maxBodyBytes));
        return keyOf(json -> json.createParser(read), read.strings);
    }

    /**
     * Whether the first bytes of a body decide its key: the key is complete in them, or the body
     * can have none (not a JSON object, malformed, no {@code messages} or {@code prompt}, or
     * {@link #maxBodyBytes()} read). False when they end before that, so that more of the body may
     * complete the key: a proxy holding a body still arriving holds more of it (a first turn that
     * begins after 64 KiB of {@code tools}, or a message's {@code role} after its long
     * {@code content}). Reads as {@link #keyOf(InputStream)}; never closes the stream.
     *
     * @param prefix the body's first bytes (null: true)
     */
    public boolean decides(InputStream prefix) {
        if (prefix == null) {
            return true;
        }
        CutStrings.Recorded read = new CutStrings.Recorded(new Limited(prefix, maxBodyBytes));
        try (JsonParser parser = json.createParser(read)) {
            return read(parser, read.strings) != null || !read.strings.cut || read.size() >= maxBodyBytes;
        } catch (JsonEOFException cut) {
            return read.size() >= maxBodyBytes;
        } catch (IOException malformed) {
            return true;
        }
    }

    /** Opens a parser over a body with this instance's factory. */
    @FunctionalInterface
    private interface Opener {
        JsonParser open(JsonFactory json) throws IOException;
    }

    /** The one place where a malformed body (or a failing stream) becomes "no key". */
    private String keyOf(Opener opener, CutStrings strings) {
        try (JsonParser parser = opener.open(json)) {
            return read(parser, strings);
        } catch (IOException malformed) {
            return null;
        }
    }

    private String read(JsonParser p, CutStrings strings) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if ("messages".equals(field) && value == JsonToken.START_ARRAY) {
                return chatKey(p, strings);
            }
            if ("prompt".equals(field)) {
                return promptKey(p, value, strings);
            }
            p.skipChildren();
        }
        return null;
    }

    /**
     * Reads messages up to the first that is not a system or developer message. The input's end
     * may cut that message's text once its role was read: the key is then the whole body's when
     * what came before the cut is at least {@link #prefixChars()} long, else there is none.
     */
    private String chatKey(JsonParser p, CutStrings strings) throws IOException {
        Canonical leading = new Canonical();
        Canonical message = new Canonical();
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            message.clear();
            String role = readMessage(p, message, strings);
            if ("system".equals(role) || "developer".equals(role)) {
                leading.separate();
                leading.append(role);
                leading.append(':');
                leading.separate();
                leading.append(message.text);
            } else {
                Canonical turn = new Canonical();
                turn.append(role == null ? "" : role);
                turn.append(':');
                turn.separate();
                turn.append(message.text);
                if (strings.cut && turn.text.length() < prefixChars()) {
                    return null;
                }
                long leadingHash = leading.isEmpty() ? 0 : HashAlgorithm.FNV1A_64_MIXED.hash(leading.toString());
                long turnHash = HashAlgorithm.FNV1A_64_MIXED.hash(turn.prefix(prefixChars()));
                return hex(HashAlgorithm.fmix64(leadingHash ^ Long.rotateLeft(turnHash, 32)));
            }
        }
        return null;
    }

    /**
     * Reads one message object; its content's canonical text goes to {@code content}. Once its
     * role is known to be a turn's, a text that the input's end cuts is kept as far as it goes
     * ({@code strings.cut} set; the message ends there).
     *
     * @return its role, or null
     */
    private static String readMessage(JsonParser p, Canonical content, CutStrings strings) throws IOException {
        String role = null;
        while (!strings.cut && p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            CutStrings cuttable = role == null || "system".equals(role) || "developer".equals(role) ? null : strings;
            if ("role".equals(field) && value == JsonToken.VALUE_STRING) {
                role = p.getText().trim();
            } else if ("content".equals(field) && value == JsonToken.VALUE_STRING) {
                content.separate();
                content.append(p, cuttable);
            } else if ("content".equals(field) && value == JsonToken.START_ARRAY) {
                readParts(p, content, cuttable);
            } else {
                p.skipChildren();
            }
        }
        return role;
    }

    /** Reads content parts; text parts join {@code content}, separated by a space; {@code strings}: as for a message. */
    private static void readParts(JsonParser p, Canonical content, CutStrings strings) throws IOException {
        JsonToken token;
        while ((strings == null || !strings.cut) && (token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token == JsonToken.VALUE_STRING) {
                // A bare string part: some clients send content as an array of strings.
                content.separate();
                content.append(p, strings);
                continue;
            }
            if (token != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            String type = null;
            String text = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if ("type".equals(field) && value == JsonToken.VALUE_STRING) {
                    type = p.getText();
                } else if ("text".equals(field) && value == JsonToken.VALUE_STRING) {
                    try {
                        text = p.getText();
                    } catch (JsonEOFException e) {
                        // Cut off: kept only when the part is known to be text.
                        content.separate();
                        content.append(cutText(p, "text".equals(type) ? strings : null, e));
                        return;
                    }
                } else {
                    p.skipChildren();
                }
            }
            if ("text".equals(type) && text != null) {
                content.separate();
                content.append(text);
            }
        }
    }

    /** As {@link #chatKey}, a prompt that the input's end cuts has its key when long enough. */
    private String promptKey(JsonParser p, JsonToken value, CutStrings strings) throws IOException {
        if (value == JsonToken.START_ARRAY) {
            value = p.nextToken();
        }
        if (value != JsonToken.VALUE_STRING) {
            return null;
        }
        Canonical prompt = new Canonical();
        prompt.append(p, strings);
        return prompt.isEmpty() || strings.cut && prompt.text.length() < prefixChars() ? null : hex(HashAlgorithm.FNV1A_64_MIXED.hash(prompt.prefix(prefixChars())));
    }

    /**
     * The text of the parser's current string token, which the input's end cut off, as far as it
     * goes; {@code strings} is then marked {@link CutStrings#cut}.
     *
     * @param strings null when a cut text does not count
     * @throws JsonEOFException {@code cut}, when it does not count or cannot be read
     */
    private static String cutText(JsonParser p, CutStrings strings, JsonEOFException cut) throws JsonEOFException {
        String text = strings == null ? null : strings.text(p);
        if (text == null) {
            throw cut;
        }
        strings.cut = true;
        return text;
    }

    static String hex(long value) {
        char[] out = new char[16];
        for (int i = 15; i >= 0; i--) {
            out[i] = HEX[(int) (value & 0xf)];
            value >>>= 4;
        }
        return new String(out);
    }

    /**
     * Canonical text under construction: runs of white space become one space, none leads or
     * trails; {@link #separate()} asks for one space before the next non-blank text.
     */
    private static final class Canonical {
        final StringBuilder text = new StringBuilder();
        private boolean space;

        void clear() {
            text.setLength(0);
            space = false;
        }

        boolean isEmpty() {
            return text.length() == 0;
        }

        void separate() {
            space = text.length() > 0;
        }

        void append(char c) {
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                separate();
                return;
            }
            if (space) {
                text.append(' ');
                space = false;
            }
            text.append(c);
        }

        void append(CharSequence chars) {
            for (int i = 0; i < chars.length(); i++) {
                append(chars.charAt(i));
            }
        }

        /**
         * Appends the parser's current string token without making a String of it; one that the
         * input's end cut off is appended as far as it goes when {@code strings} is not null, which
         * is then marked {@link CutStrings#cut}.
         *
         * @throws IOException a malformed token, or one cut off that cannot be read that way
         */
        void append(JsonParser p, CutStrings strings) throws IOException {
            char[] chars;
            try {
                chars = p.getTextCharacters();
            } catch (JsonEOFException e) {
                append(cutText(p, strings, e));
                return;
            }
            int end = p.getTextOffset() + p.getTextLength();
            for (int i = p.getTextOffset(); i < end; i++) {
                append(chars[i]);
            }
        }

        /** The first {@code chars} characters, never ending inside a surrogate pair. */
        String prefix(long chars) {
            if (text.length() <= chars) {
                return text.toString();
            }
            int end = (int) chars;
            if (Character.isHighSurrogate(text.charAt(end - 1))) {
                end--;
            }
            return text.substring(0, end);
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }

    /**
     * A stream that ends after {@code limit} bytes of the one it wraps: the parser then fails, and
     * the key is null. Every read, skip and {@code available} stays within the limit. Not
     * thread-safe.
     */
    static final class Limited extends FilterInputStream {
        private long remaining;

        Limited(InputStream in, long limit) {
            super(in);
            this.remaining = limit;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = super.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = super.read(buffer, offset, (int) Math.min(length, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(Math.min(n, remaining));
            remaining -= skipped;
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(super.available(), remaining);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PromptPrefix other && blocks == other.blocks && blockChars == other.blockChars
                && maxBodyBytes == other.maxBodyBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(blocks, blockChars, maxBodyBytes);
    }

    @Override
    public String toString() {
        return "PromptPrefix[blocks=" + blocks + ", blockChars=" + blockChars + ", maxBodyBytes=" + maxBodyBytes + "]";
    }

    /** Builds a {@link PromptPrefix}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private int blocks = DEFAULT_BLOCKS;
        private int blockChars = DEFAULT_BLOCK_CHARS;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;

        private Builder() {
        }

        /** K, the blocks hashed. @throws IllegalArgumentException if {@code blocks < 1} */
        public Builder blocks(int blocks) {
            this.blocks = Check.atLeast("blocks", blocks, 1);
            return this;
        }

        /** B, characters per block. @throws IllegalArgumentException if {@code blockChars < 1} */
        public Builder blockChars(int blockChars) {
            this.blockChars = Check.atLeast("blockChars", blockChars, 1);
            return this;
        }

        /** The most bytes of a body read. @throws IllegalArgumentException if {@code maxBodyBytes < 64} */
        public Builder maxBodyBytes(int maxBodyBytes) {
            this.maxBodyBytes = Check.atLeast("maxBodyBytes", maxBodyBytes, 64);
            return this;
        }

        /** @return the configuration */
        public PromptPrefix build() {
            return new PromptPrefix(this);
        }
    }
}
