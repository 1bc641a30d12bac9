package io.github.agentlb.core.queue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.OptionalLong;

/**
 * The output tokens an OpenAI-shaped JSON answer reports, for the queue's fairness
 * ({@link FairQueue#charge}): the top-level object's {@code usage.completion_tokens} (Chat
 * Completions) or {@code usage.output_tokens} (the Responses API), a whole number &gt;= 0. Anything
 * else gives nothing: not JSON, not an object, no {@code usage}, a missing, negative, fractional or
 * non-numeric count, or a text over {@link #MAX_CHARS} characters (not read at all). A streamed
 * answer (Server-Sent Events) is not JSON and gives nothing.
 *
 * <p>Read with Jackson's streaming parser, no tree built: O(n) in the text, stopping at
 * {@code usage}'s end. Stateless and thread-safe.
 */
public final class UsageTokens {

    /** The longest answer read, in characters: 1,048,576. */
    public static final int MAX_CHARS = 1 << 20;
    private static final JsonFactory JSON = new JsonFactory();

    private UsageTokens() {
    }

    /**
     * @param json an answer's body, or null
     * @return its output tokens as the rule above reads them, else empty
     */
    public static OptionalLong outputTokens(CharSequence json) {
        if (json == null || json.length() > MAX_CHARS) {
            return OptionalLong.empty();
        }
        try (JsonParser parser = JSON.createParser(json.toString())) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return OptionalLong.empty();
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("usage".equals(name) && value == JsonToken.START_OBJECT) {
                    return countIn(parser);
                }
                parser.skipChildren();
            }
            return OptionalLong.empty();
        } catch (IOException notJson) {
            return OptionalLong.empty();
        }
    }

    /** The count in the {@code usage} object the parser has just entered. */
    private static OptionalLong countIn(JsonParser parser) throws IOException {
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            if (("completion_tokens".equals(name) || "output_tokens".equals(name))
                    && value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                long tokens = parser.getLongValue();
                return tokens >= 0 ? OptionalLong.of(tokens) : OptionalLong.empty();
            }
            parser.skipChildren();
        }
        return OptionalLong.empty();
    }
}
