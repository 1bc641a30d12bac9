package io.github.agentlb.core.session;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * Rewrites string values of one JSON object in place, read with Jackson's streaming parser: each
 * replaced value is spliced into the body's bytes, every other byte kept as it was (numbers of any
 * precision or range, white space, escapes; a raw control character in a string is let through, as
 * it is not re-written). What A2A task ids ({@link A2aTasks}) and MCP handles ({@link McpHandles})
 * are sealed and restored with. Stateless and thread-safe.
 */
final class JsonSplice {

    /** For the bodies rewritten: one the agent wrote with a raw control character in a string is still sealed. */
    private static final JsonFactory LENIENT = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS).build();

    private JsonSplice() {
    }

    /**
     * {@code body} with each string value whose field {@code names} accepts replaced by
     * {@code value} of its path and text ({@link #path}); {@code body} itself when none changes.
     * Only the paths of the fields {@code names} accepts are built, so other tokens cost no allocation.
     *
     * @throws IllegalArgumentException when {@code body} is not one JSON object
     */
    static byte[] rewrite(byte[] body, Predicate<String> names, BiFunction<List<String>, String, String> value) {
        try {
            return rewrite(body, names, value, false);
        } catch (IllegalArgumentException e) {
            if (e.getCause() == null || !String.valueOf(e.getCause().getMessage()).contains("UTF-8")) {
                throw e;
            }
            // Bytes that are not UTF-8 in some string (an agent's bug): read a byte per char, kept as they came.
            return rewrite(body, names, value, true);
        }
    }

    /** {@link #rewrite}, the body read as UTF-8, or ({@code latin1}) a byte per char, offsets then in chars. */
    private static byte[] rewrite(byte[] body, Predicate<String> names, BiFunction<List<String>, String, String> value,
            boolean latin1) {
        ByteArrayOutputStream out = null;
        int copied = 0;
        try (JsonParser parser = latin1 ? LENIENT.createParser(new String(body, StandardCharsets.ISO_8859_1).toCharArray())
                : LENIENT.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (parser.nextToken() != null) {
                if (parser.currentToken() == JsonToken.VALUE_STRING && names.test(parser.currentName())) {
                    int from = offset(parser.currentTokenLocation(), latin1); // the opening quote
                    String text = parser.getText();
                    int to = offset(parser.currentLocation(), latin1); // past the closing quote
                    // Read a byte per char, a value without escapes is its raw bytes as UTF-8; with escapes, as parsed.
                    String old = latin1 && text.length() == to - from - 2
                            ? new String(body, from + 1, to - from - 2, StandardCharsets.UTF_8) : text;
                    String replaced = value.apply(path(parser.getParsingContext()), old);
                    if (!replaced.equals(old)) {
                        out = out == null ? new ByteArrayOutputStream(body.length + 64) : out;
                        out.write(body, copied, from - copied);
                        out.write('"');
                        out.write(JsonStringEncoder.getInstance().quoteAsUTF8(replaced));
                        out.write('"');
                        copied = to;
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
        }
        if (out == null) {
            return body;
        }
        out.write(body, copied, body.length - copied);
        return out.toByteArray();
    }

    private static int offset(JsonLocation location, boolean latin1) {
        return (int) (latin1 ? location.getCharOffset() : location.getByteOffset());
    }

    /** Whether anything but white space follows the root object. */
    static boolean more(JsonParser parser) {
        try {
            return parser.nextToken() != null;
        } catch (IOException e) {
            return true;
        }
    }

    /** The field names from the root to the current value; an array element adds {@code []}. */
    static List<String> path(JsonStreamContext context) {
        Deque<String> names = new ArrayDeque<>();
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            names.addFirst(c.inArray() ? "[]" : String.valueOf(c.getCurrentName()));
        }
        return List.copyOf(names);
    }
}
