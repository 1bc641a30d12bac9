package io.github.agentlb.core.key;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * The text of a JSON string value that the end of the input cut off, for a body held only in part
 * (a proxy's first bytes of a body still arriving, or {@link PromptPrefix#maxBodyBytes()}): Jackson
 * decodes a string token only whole, so the raw text from the token's opening quote to the end of
 * the input is cut back to its last whole character and escape, closed with a quote and decoded by
 * Jackson alone. One per body read; not thread-safe.
 */
abstract class CutStrings {

    /** Decodes one cut string, at most as long as the body it came from (read up to {@link PromptPrefix#maxBodyBytes()}). */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build()).build();

    /** Set by the reader when a string of the key was cut: the key is then complete only if long enough. */
    boolean cut;

    /**
     * @param p a parser whose current token is a string that the input's end cut off
     * @return its text up to the cut, or null when it cannot be read (an encoding other than UTF-8, say)
     */
    abstract String text(JsonParser p);

    /** Of a body of {@code length} bytes from {@code offset} of {@code body}. */
    static CutStrings of(byte[] body, int offset, int length) {
        return new CutStrings() {
            @Override
            String text(JsonParser p) {
                return bytes(body, offset, length, p.currentTokenLocation());
            }
        };
    }

    /** Of a body held as text. */
    static CutStrings of(String body) {
        return new CutStrings() {
            @Override
            String text(JsonParser p) {
                long at = p.currentTokenLocation().getCharOffset();
                if (at < 0 || at >= body.length() || body.charAt((int) at) != '"') {
                    return null;
                }
                int end = body.length();
                int safe = (int) at + 1;
                for (int i = safe; i < end; i = safe) {
                    int len = body.charAt(i) != '\\' ? 1 : i + 1 < end && body.charAt(i + 1) == 'u' ? 6 : 2;
                    if (i + len > end) {
                        break;
                    }
                    safe = i + len;
                }
                return decode(body.substring((int) at, safe) + '"');
            }
        };
    }

    /** A stream that keeps what was read of the one it wraps, for its cut strings. Not thread-safe. */
    static final class Recorded extends FilterInputStream {
        /** What was read, as long as the reads asked for (a parser's buffer each). */
        private byte[] read = new byte[0];
        private int size;
        final CutStrings strings = new CutStrings() {
            @Override
            String text(JsonParser p) {
                return bytes(read, 0, size, p.currentTokenLocation());
            }
        };

        Recorded(InputStream in) {
            super(in);
        }

        /** @return the bytes read so far */
        int size() {
            return size;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                keep(new byte[] {(byte) b}, 0, 1); // a parser reads into its buffer, never byte by byte
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                keep(buffer, offset, n);
            }
            return n;
        }

        /** Read, so that what follows keeps its offset. */
        @Override
        public long skip(long n) throws IOException {
            int got = read(new byte[(int) Math.min(Math.max(n, 0), 8192)]);
            return Math.max(got, 0);
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        private void keep(byte[] buffer, int offset, int n) {
            if (size + n > read.length) {
                read = Arrays.copyOf(read, Math.max(size + n, read.length * 2));
            }
            System.arraycopy(buffer, offset, read, size, n);
            size += n;
        }
    }

    /** The UTF-8 string token at {@code location} in {@code body}'s range, cut by the range's end. */
    private static String bytes(byte[] body, int offset, int length, JsonLocation location) {
        long at = location.getByteOffset();
        if (at < 0 || at >= length || body[offset + (int) at] != '"') {
            return null;
        }
        int start = offset + (int) at;
        int end = offset + length;
        int safe = start + 1;
        for (int i = safe; i < end; i = safe) {
            int len = utf8Length(body[i]);
            if (body[i] == '\\') {
                len = i + 1 < end && body[i + 1] == 'u' ? 6 : 2;
            }
            if (i + len > end) {
                break;
            }
            safe = i + len;
        }
        byte[] closed = Arrays.copyOfRange(body, start, safe + 1);
        closed[closed.length - 1] = '"';
        try (JsonParser p = JSON.createParser(closed)) {
            return p.nextToken() == JsonToken.VALUE_STRING ? p.getText() : null;
        } catch (IOException malformed) {
            return null;
        }
    }

    /** Bytes in the UTF-8 sequence that {@code lead} begins (1 for a stray continuation byte: Jackson refuses it). */
    private static int utf8Length(byte lead) {
        if ((lead & 0x80) == 0) {
            return 1;
        }
        return (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 1;
    }

    private static String decode(String quoted) {
        try (JsonParser p = JSON.createParser(quoted)) {
            return p.nextToken() == JsonToken.VALUE_STRING ? p.getText() : null;
        } catch (IOException malformed) {
            return null;
        }
    }
}
