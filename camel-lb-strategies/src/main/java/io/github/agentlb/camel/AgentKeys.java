package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.key.PromptPrefix;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.Message;
import org.apache.camel.StreamCache;
import org.apache.camel.support.ExpressionAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ready-made keys for the hashing strategies ({@link ConsistentHashLB}, {@link AdaptiveVirtualNodeLB}),
 * as Camel {@link Expression}s that evaluate to a String, or to null when the exchange has no such
 * key (the balancer then spreads it round-robin).
 *
 * <ul>
 *   <li>{@link #sessionHeader(String...)}: {@code session:<id>} from the first present, non-blank
 *       header of the names given ({@code Mcp-Session-Id}, {@code X-Session-Id} by default).</li>
 *   <li>{@link #promptPrefix(PromptPrefix)}: {@code prompt:<16 hex>} read from an OpenAI-style
 *       JSON body ({@link PromptPrefix}); the body stays readable.</li>
 *   <li>{@link #header(String)}: a header's value as it is, so a key keeps the agent that
 *       {@code keyHeader(name)} maps it to.</li>
 *   <li>{@link #standard()}: session header, then prompt prefix, then header {@code user_id}.</li>
 * </ul>
 * The {@code session:} and {@code prompt:} prefixes keep kinds apart: a session id never
 * collides with a prompt key. The raw header fallback is not prefixed, on purpose: a {@code user_id}
 * reaches the same agent through {@link #standard()} as through the default {@code keyHeader}.
 *
 * <p>Without Java: {@link KeySettings#setKeys} takes the same chain as text,
 * {@code session,prompt,user_id} (see {@link #parse}).
 *
 * <p>Every expression is stateless and thread-safe. Cost per exchange: a header lookup per name;
 * the prompt key reads the body as far as {@link PromptPrefix} needs (a byte[], String or
 * ByteBuffer body without a copy of a heap buffer; a stream is cached first so it can still be sent).
 *
 * <p>Over 300 lines: the keys and the parser of their text form, which builds each of them and
 * checks the list whole (parts known, none empty, none twice).
 */
public final class AgentKeys {

    /** Session headers read by default, in order: MCP's {@code Mcp-Session-Id}, then {@code X-Session-Id}. */
    public static final List<String> DEFAULT_SESSION_HEADERS = List.of("Mcp-Session-Id", "X-Session-Id");
    /** Prefix of a session key. */
    public static final String SESSION = "session:";
    /** Prefix of a prompt key. */
    public static final String PROMPT = "prompt:";

    private static final Logger LOG = LoggerFactory.getLogger(AgentKeys.class);

    private AgentKeys() {
    }

    /**
     * {@code session:<value>} of the first of {@code names} present with a non-blank value
     * (Camel's header lookup ignores case), or null.
     *
     * @param names the headers in order; none gives {@link #DEFAULT_SESSION_HEADERS}
     * @throws IllegalArgumentException if a name is null or blank
     */
    public static Expression sessionHeader(String... names) {
        List<String> headers = names == null || names.length == 0 ? DEFAULT_SESSION_HEADERS : List.of(names.clone());
        headers.forEach(name -> Check.headerName("sessionHeader", name));
        String label = "session" + headers;
        return new ExpressionAdapter() {
            @Override
            public Object evaluate(Exchange exchange) {
                for (String name : headers) {
                    String value = text(exchange, exchange.getMessage().getHeader(name));
                    if (value != null && !value.isBlank()) {
                        return SESSION + value.strip();
                    }
                }
                return null;
            }

            @Override
            public String toString() {
                return label;
            }
        };
    }

    /**
     * {@code prompt:<16 hex>} from the message body ({@link PromptPrefix#keyOf}), or null when the
     * body has none (not JSON, malformed, no {@code messages} or {@code prompt}; a DEBUG line).
     * The body is read as: byte[], String, ByteBuffer (its remaining bytes, position unchanged);
     * a {@link StreamCache}, reset before and after, so the body can still be sent; any other
     * {@link InputStream}, first made a StreamCache by the context's stream-caching strategy and
     * set as the body; anything else (Netty's ByteBuf, ...) converted to byte[] by Camel's type
     * converters, which leave Netty's reader index where it was (its InputStream converter moves it).
     *
     * @param config the prefix to read
     */
    public static Expression promptPrefix(PromptPrefix config) {
        Objects.requireNonNull(config, "config");
        return new ExpressionAdapter() {
            @Override
            public Object evaluate(Exchange exchange) {
                String key = promptKey(exchange, config);
                return key == null ? null : PROMPT + key;
            }

            @Override
            public String toString() {
                return "prompt" + config;
            }
        };
    }

    /**
     * The value of header {@code name} as it is (stripped), or null when absent or blank.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank
     */
    public static Expression header(String name) {
        Check.notBlank("header", name);
        return new ExpressionAdapter() {
            @Override
            public Object evaluate(Exchange exchange) {
                String value = text(exchange, exchange.getMessage().getHeader(name));
                return value == null || value.isBlank() ? null : value;
            }

            @Override
            public String toString() {
                return "header:" + name;
            }
        };
    }

    /**
     * The text of a key's value: a header the client sent more than once (or as a header and a
     * query parameter, which Camel's HTTP consumers merge) comes as a list or an array, and its first
     * value is the key, as nginx's {@code $http_} variables read a repeated header; null for none.
     * Other values are converted by Camel's type converter.
     */
    static String text(Exchange exchange, Object value) {
        if (value instanceof Iterable<?> values) {
            Iterator<?> first = values.iterator();
            value = first.hasNext() ? first.next() : null;
        } else if (value instanceof Object[] values) {
            value = values.length == 0 ? null : values[0];
        }
        return value == null || value instanceof String ? (String) value
                : exchange.getContext().getTypeConverter().convertTo(String.class, exchange, value);
    }

    /**
     * The first non-null, non-blank String of {@code keys}, evaluated in order (later ones only
     * when needed), or null.
     *
     * @throws IllegalArgumentException if no key is given
     */
    public static Expression firstOf(Expression... keys) {
        if (keys == null || keys.length == 0) {
            throw new IllegalArgumentException("keys must not be empty, was " + (keys == null ? null : "[]"));
        }
        List<Expression> chain = List.of(keys.clone());
        return new ExpressionAdapter() {
            @Override
            public Object evaluate(Exchange exchange) {
                for (Expression key : chain) {
                    String value = text(exchange, key.evaluate(exchange, Object.class));
                    if (value != null && !value.isBlank()) {
                        return value;
                    }
                }
                return null;
            }

            @Override
            public void init(org.apache.camel.CamelContext context) {
                chain.forEach(key -> key.init(context));
            }

            @Override
            public String toString() {
                return "firstOf" + chain;
            }
        };
    }

    /**
     * The key for agent traffic: {@link #sessionHeader(String...)} with the default names, then
     * {@link #promptPrefix(PromptPrefix)} with {@link PromptPrefix#ofDefaults()}, then header
     * {@value BalancerConfig.Key#DEFAULT_HEADER} as it is; null (round-robin) when none.
     */
    public static Expression standard() {
        return parse("session,prompt," + BalancerConfig.Key.DEFAULT_HEADER);
    }

    /** The parts a key list may hold, as error messages name them. */
    private static final String PARTS =
            "session, prompt, header:<name>, mcp-method, mcp-name, mcp-param:<Name> or a header name";

    /**
     * The key chain of a comma-separated list, evaluated in order: {@code session} (the default
     * session headers), {@code prompt} (the default prompt prefix), {@code header:<name>} or a
     * bare header name (its value as it is), or an MCP key of revision 2026-07-28, trusted only from
     * that revision on: {@code mcp-method}, {@code mcp-name}, {@code mcp-param:<Name>}
     * ({@link McpKeys}). Blanks around parts are ignored.
     *
     * @throws IllegalArgumentException naming field {@code keys} and the part, if a part is empty,
     *     {@code header:} has no name, or a header part is no header name
     */
    public static Expression parse(String keys) {
        Check.notBlank("keys", keys);
        List<Expression> chain = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String raw : keys.split(",", -1)) {
            String part = raw.strip();
            String lower = part.toLowerCase(Locale.ROOT);
            String id = lower.startsWith("header:") ? lower.substring(7).strip() : lower.equals("session")
                    || lower.equals("prompt") || McpKeys.names(lower) ? ":" + lower : lower; // a plain name is a header's
            if (!part.isEmpty() && !seen.add(id)) {
                throw new IllegalArgumentException("keys names '" + part + "' twice, was '" + keys + "'");
            }
            if (part.isEmpty()) {
                throw new IllegalArgumentException("keys must be a comma list of " + PARTS + ", was '" + keys
                        + "' (an empty part)");
            } else if (lower.equals("session")) {
                chain.add(sessionHeader());
            } else if (lower.equals("prompt")) {
                chain.add(promptPrefix(PromptPrefix.ofDefaults()));
            } else if (McpKeys.names(lower)) {
                chain.add(McpKeys.parse(part, keys));
            } else if (lower.startsWith("header:")) {
                String name = part.substring("header:".length()).strip();
                if (name.isEmpty() || name.contains(":")) {
                    throw new IllegalArgumentException("keys has an unknown part '" + part + "' (" + PARTS + "), was '"
                        + keys + "'");
                }
                chain.add(header(headerPart(name, part, keys)));
            } else if (part.contains(":") || part.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("keys has an unknown part '" + part + "' (" + PARTS + "), was '"
                        + keys + "'");
            } else {
                chain.add(header(headerPart(part, part, keys)));
                KEYWORDS.stream().filter(keyword -> oneLetterApart(lower, keyword)).findFirst().ifPresent(keyword -> LOG.warn(
                        "keys part '{}' is read as a header's name, one letter from '{}' (a header so named: header:{})",
                        part, keyword, part));
            }
        }
        return chain.size() == 1 ? chain.get(0) : firstOf(chain.toArray(Expression[]::new));
    }

    /** The keywords a bare part may be a misspelling of. */
    private static final List<String> KEYWORDS = List.of("session", "prompt", "mcp-method", "mcp-name");

    /**
     * Whether {@code a} becomes {@code b} by one letter added, dropped, changed, or two neighbours
     * swapped (Damerau's four errors); not when they are equal.
     */
    static boolean oneLetterApart(String a, String b) {
        int start = 0;
        while (start < a.length() && start < b.length() && a.charAt(start) == b.charAt(start)) {
            start++;
        }
        int endA = a.length();
        int endB = b.length();
        while (endA > start && endB > start && a.charAt(endA - 1) == b.charAt(endB - 1)) {
            endA--;
            endB--;
        }
        int leftA = endA - start;
        int leftB = endB - start;
        if (leftA + leftB == 0) {
            return false; // equal
        }
        if (leftA <= 1 && leftB <= 1) {
            return true; // one added, dropped or changed
        }
        return leftA == 2 && leftB == 2 && a.charAt(start) == b.charAt(start + 1) && a.charAt(start + 1) == b.charAt(start);
    }

    /** {@code name} if it is a header name (an RFC 9110 token), else refused naming {@code part}: it could match no header. */
    private static String headerPart(String name, String part, String keys) {
        try {
            return Check.headerName("keys", name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("keys has a header part that is no header name (RFC 9110 token) '" + part
                    + "', was '" + keys + "'");
        }
    }

    static String promptKey(Exchange exchange, PromptPrefix config) {
        Message message = exchange.getMessage();
        Object body = message.getBody();
        if (body == null) {
            return null;
        }
        String key;
        try {
            key = read(exchange, message, body, config);
        } catch (RuntimeException e) {
            LOG.debug("No prompt key for exchange {}: its body ({}) could not be read: {}", exchange.getExchangeId(),
                    body.getClass().getName(), e.toString());
            return null;
        }
        if (key == null) {
            LOG.debug("No prompt key for exchange {}: its body ({}) is not a JSON request with messages or prompt",
                    exchange.getExchangeId(), body.getClass().getName());
        }
        return key;
    }

    private static String read(Exchange exchange, Message message, Object body, PromptPrefix config) {
        if (body instanceof byte[] bytes) {
            return config.keyOf(bytes);
        }
        if (body instanceof String text) {
            return config.keyOf(text);
        }
        if (body instanceof ByteBuffer buffer) {
            if (buffer.hasArray()) {
                return config.keyOf(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            }
            byte[] copy = new byte[Math.min(buffer.remaining(), config.maxBodyBytes())];
            buffer.duplicate().get(copy);
            return config.keyOf(copy);
        }
        if (body instanceof InputStream && !(body instanceof StreamCache)) {
            StreamCache cached = exchange.getContext().getStreamCachingStrategy().cache(exchange);
            if (cached == null) {
                // Thrown, not returned as null: the body may well be a JSON request, it was not read.
                throw new IllegalStateException("the context's stream caching strategy did not cache it");
            }
            message.setBody(cached);
            body = cached;
        }
        if (body instanceof StreamCache cache) {
            cache.reset();
            try {
                InputStream in = cache instanceof InputStream stream ? stream : message.getBody(InputStream.class);
                return config.keyOf(in);
            } finally {
                cache.reset();
            }
        }
        return config.keyOf(exchange.getContext().getTypeConverter().tryConvertTo(byte[].class, exchange, body));
    }
}
