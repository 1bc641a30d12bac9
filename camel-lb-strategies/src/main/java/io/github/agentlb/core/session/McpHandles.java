package io.github.agentlb.core.session;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Server-minted handles of MCP 2026-07-28 stateful tools, in JSON-RPC bodies: a creation tool
 * returns a handle in its result's {@code structuredContent}, and later {@code tools/call}s pass it
 * back as an argument of the same name (the MCP specification,
 * {@code docs/specification/2026-07-28/server/tools.mdx}, "Stateful Tools": {@code create_basket}
 * returns {@code structuredContent.basket_id}, {@code add_item} takes {@code arguments.basket_id}).
 *
 * <ul>
 *   <li>Requests: a {@code tools/call} carries handle {@code <name>} as the string
 *       {@code params.arguments.<name>}.</li>
 *   <li>Answers ({@code result} of a single JSON-RPC response): the string
 *       {@code result.structuredContent.<name>} is a handle, and so is a string field {@code <name>} at
 *       any depth of {@code structuredContent}'s objects and arrays (a created object's
 *       {@code structuredContent.basket.basket_id}, a list's {@code structuredContent.baskets[].basket_id});
 *       the same value in the text of
 *       {@code result.content[].text} (e.g. "Created basket bsk_a1b2c3") is the same handle, replaced
 *       there too where it stands as a word (no letter, digit, {@code _} or {@code -} right before or
 *       after it) and has at least {@value #MIN_HANDLE_CHARS_IN_TEXT} characters (a shorter one could
 *       be any word).</li>
 * </ul>
 *
 * <p>Values are spliced into the body's bytes, every other byte kept ({@link JsonSplice}). A body
 * that is not a single JSON object, or that has a name twice in one object (its {@code method},
 * an argument), or more after the object, is no tool call here. Stateless and thread-safe.
 */
public final class McpHandles {

    /** The method of a tool call. */
    public static final String TOOLS_CALL = "tools/call";
    /** The shortest handle also replaced in an answer's text content, characters. */
    public static final int MIN_HANDLE_CHARS_IN_TEXT = 8;

    /** Refuses a name twice in one object: a server's parser may keep either value. */
    private static final JsonFactory STRICT = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final String TEXT = "text";
    /** A handle in text stands as a word: no letter, digit, {@code _} or {@code -} right before or after it. */
    private static final String WORD_START = "(?<![\\p{L}\\p{N}_-])";
    private static final String WORD_END = "(?![\\p{L}\\p{N}_-])";

    private McpHandles() {
    }

    /**
     * A tool call and the handles it carries.
     *
     * @param handles argument name to handle, each named argument that is a string, in the body's
     *     order; empty when the call carries none
     */
    public record Call(Map<String, String> handles) {
        public Call {
            handles = Collections.unmodifiableMap(new LinkedHashMap<>(handles));
        }
    }

    /**
     * Reads a request body for each argument of a {@code tools/call} ({@code params.arguments.<name>})
     * that is a string and whose name, in lower case, is one of {@code names} (given in lower case:
     * names are compared ignoring case, as the headers that mirror them).
     *
     * @return null when the body is not one JSON object whose {@code method} is {@value #TOOLS_CALL};
     *     else the call, with no handle when it carries none of {@code names}
     */
    public static Call call(byte[] body, Set<String> names) {
        String method = null;
        Map<String, String> handles = Map.of();
        try (JsonParser parser = STRICT.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("method")) {
                    method = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                } else if (field.equals("params") && value == JsonToken.START_OBJECT) {
                    handles = arguments(parser, names);
                } else {
                    parser.skipChildren();
                }
            }
            if (JsonSplice.more(parser)) {
                return null; // more after the object: parsers differ on what it says
            }
        } catch (IOException e) {
            return null; // not JSON, or a name twice in one object (a server's parser may keep either)
        }
        return TOOLS_CALL.equals(method) ? new Call(handles) : null;
    }

    /** Each of {@code names} that is a string in {@code arguments} of the {@code params} object the parser is at. */
    /**
     * Whether the first {@code limit} bytes of a body too long to read whole are a {@code tools/call}
     * whose {@code params.arguments} carry one of {@code names} with a sealed handle ({@link SessionIds#looksSealed}):
     * a call that only the handle's server can take. Reads at most {@code limit} bytes.
     *
     * @param names the handle argument names, lower-cased
     */
    public static boolean leadingSealedHandle(byte[] body, int limit, Set<String> names) {
        Map<String, String> handles = new LinkedHashMap<>();
        try (JsonParser parser = STRICT.createParser(body, 0, Math.min(body.length, limit))) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("method") && !(value == JsonToken.VALUE_STRING && TOOLS_CALL.equals(parser.getText()))) {
                    return false;
                }
                if (field.equals("params") && value == JsonToken.START_OBJECT) {
                    arguments(parser, names, handles);
                } else {
                    parser.skipChildren();
                }
            }
        } catch (IOException e) {
            // the bytes read ended: the handles before that
        }
        return handles.values().stream().anyMatch(SessionIds::looksSealed);
    }

    private static Map<String, String> arguments(JsonParser parser, Set<String> names) throws IOException {
        return arguments(parser, names, new LinkedHashMap<>());
    }

    /** Puts the handles of {@code params}' {@code arguments} (the parser in {@code params}) into {@code handles}, each as it is read. */
    private static Map<String, String> arguments(JsonParser parser, Set<String> names, Map<String, String> handles)
            throws IOException {
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            boolean isArguments = parser.currentName().equals("arguments");
            if (parser.nextToken() != JsonToken.START_OBJECT || !isArguments) {
                parser.skipChildren();
                continue;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String argument = parser.currentName();
                if (parser.nextToken() == JsonToken.VALUE_STRING && names.contains(argument.toLowerCase(Locale.ROOT))) {
                    handles.put(argument, parser.getText());
                } else {
                    parser.skipChildren();
                }
            }
        }
        return handles;
    }

    /**
     * The request body with each argument {@code name} of {@link #call} set to {@code handles}' value
     * of it, every other byte as it was.
     *
     * @throws IllegalArgumentException when {@code body} is not one JSON object
     */
    public static byte[] withHandles(byte[] body, Map<String, String> handles) {
        return JsonSplice.rewrite(body, handles::containsKey, (path, value) -> path.size() == 3
                && path.get(0).equals("params") && path.get(1).equals("arguments") ? handles.get(path.get(2)) : value);
    }

    /**
     * An answer body with each handle of {@code names} (lower case, compared ignoring case) in its
     * result (see the class comment) replaced by {@code seal} of it; {@code body} itself when it is not one JSON object or
     * {@code seal} changes no handle (so an answer without handles keeps its bytes).
     */
    public static byte[] sealAnswer(byte[] body, Set<String> names, UnaryOperator<String> seal) {
        try {
            // First the handles (structuredContent may come after the text that names them), then the splice.
            Map<String, String> sealed = new LinkedHashMap<>();
            Predicate<String> named = name -> name != null && names.contains(name.toLowerCase(Locale.ROOT));
            JsonSplice.rewrite(body, named, (path, value) -> {
                if (isHandle(path) && !seal.apply(value).equals(value)) {
                    sealed.put(value, seal.apply(value));
                }
                return value;
            });
            if (sealed.isEmpty()) {
                return body;
            }
            return JsonSplice.rewrite(body, name -> named.test(name) || TEXT.equals(name),
                    (path, value) -> isHandle(path) ? sealed.getOrDefault(value, value)
                            : isContentText(path) ? inText(value, sealed) : value);
        } catch (IllegalArgumentException e) {
            return body;
        }
    }

    /** {@code result.structuredContent.<name>}, or {@code <name>} deeper in its objects and arrays. */
    private static boolean isHandle(List<String> path) {
        return path.size() >= 3 && path.get(0).equals("result") && path.get(1).equals("structuredContent");
    }

    /** {@code result.content[].text}. */
    private static boolean isContentText(List<String> path) {
        return path.size() == 4 && path.get(0).equals("result") && path.get(1).equals("content") && path.get(2).equals("[]")
                && path.get(3).equals(TEXT);
    }

    /**
     * {@code text} with each handle of {@link #MIN_HANDLE_CHARS_IN_TEXT} or more characters replaced
     * where it stands as a word, in one pass: of two handles, one inside the other, the longer is
     * the word read.
     */
    private static String inText(String text, Map<String, String> sealed) {
        List<String> handles = sealed.keySet().stream().filter(h -> h.length() >= MIN_HANDLE_CHARS_IN_TEXT && text.contains(h))
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
        if (handles.isEmpty()) {
            return text;
        }
        String words = handles.stream().map(Pattern::quote).collect(Collectors.joining("|", WORD_START + "(?:", ")" + WORD_END));
        return Pattern.compile(words).matcher(text).replaceAll(match -> Matcher.quoteReplacement(sealed.get(match.group())));
    }
}
