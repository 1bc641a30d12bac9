package io.github.agentlb.camel.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.TreeMap;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.StreamCache;
import org.apache.camel.component.netty.http.NettyChannelBufferStreamCache;
import org.apache.camel.component.netty.http.NettyHttpConstants;
import org.apache.camel.util.URISupport;
import org.apache.camel.support.ObjectHelper;

/**
 * The request an agent gets from a route fed by camel-netty-http's consumer: the client's, with what
 * the route changed before its {@code loadBalance()}, as Camel's own HTTP producers send a message.
 * The consumer maps the request into the exchange's message: each header (a repeated one as a list),
 * and each query parameter as a header too ({@code ?user_id=42}). Then:
 * <ul>
 *   <li>A header the route set, changed or removed is sent as the message has it (a list as one line
 *       per value), or not at all. A header it left alone goes as the client sent it, line for line.
 *       A message header that is a query parameter as the consumer mapped it stays in the target
 *       only; {@code Camel*} headers and hop-by-hop ones ({@link Hops}) are never sent.</li>
 *   <li>A body the route set on the message (one that is no longer the consumer's stream cache or
 *       buffer, and whose bytes differ: a text, bytes, a stream, a data format's output) is sent in
 *       place of the client's.</li>
 *   <li>A message the route replaced ({@code setBody}, {@code transform}: Camel gives the exchange a
 *       message of its own, which no longer holds the consumer's request) is sent whole: the method
 *       and target the consumer recorded ({@code CamelHttpMethod}, {@code CamelHttpUrl},
 *       {@code CamelHttpRawQuery}), its headers by the rule above, its body. Only from a consumer with
 *       {@code bridgeEndpoint=true}: without it the consumer also makes a form body's fields headers,
 *       which could not be told from the route's, so such a call fails (an {@link IllegalStateException}
 *       naming the option) rather than send a client's field as a header.</li>
 * </ul>
 * Stateless.
 */
final class RouteEdits {

    private static final String FORM = "application/x-www-form-urlencoded";

    private RouteEdits() {
    }

    /**
     * {@code received} with the route's changes of {@code message}, the consumer's mapping of it;
     * {@code received} itself when the route changed nothing.
     */
    static FullHttpRequest applied(FullHttpRequest received, Message message) {
        Map<String, List<String>> mapped = mappedParameters(received.uri(), formMapped(message.getExchange())
                ? received.headers().get(HttpHeaderNames.CONTENT_TYPE) : null, received.content());
        HttpHeaders headers = null;
        Set<String> routes = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        Set<String> seen = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (String name : received.headers().names()) {
            if (!Hops.isEndToEnd(name, List.of()) || !seen.add(name)) {
                continue;
            }
            // As the consumer maps it: each spelling of the name it meets adds all the name's lines, then the query's.
            List<String> expected = new ArrayList<>();
            for (String spelling : received.headers().names()) {
                if (spelling.equalsIgnoreCase(name)) {
                    expected.addAll(received.headers().getAll(spelling));
                }
            }
            expected.addAll(mapped.getOrDefault(name, List.of()));
            List<String> now = values(message.getHeader(name));
            if (!now.equals(expected)) {
                headers = headers != null ? headers : new DefaultHttpHeaders().set(received.headers());
                headers.set(name, now); // none: removed
                routes.add(name);
            }
        }
        // The client's Connection names away its own headers (the downstream drops them), never what the route adds.
        HttpHeaders added = added(message, received.headers(), mapped, List.of());
        if (!added.isEmpty()) {
            headers = (headers != null ? headers : new DefaultHttpHeaders().set(received.headers())).add(added);
            routes.addAll(added.names());
        }
        if (headers != null && headers.contains(HttpHeaderNames.CONNECTION)) {
            // What the route set is the route's: the client's Connection does not name it away.
            List<String> tokens = new ArrayList<>();
            for (String value : headers.getAll(HttpHeaderNames.CONNECTION)) {
                for (String token : value.split(",")) {
                    if (!token.isBlank() && !routes.contains(token.strip())) {
                        tokens.add(token.strip());
                    }
                }
            }
            headers.set(HttpHeaderNames.CONNECTION, String.join(", ", tokens));
        }
        ByteBuf body = replacedBody(message, received.content());
        if (headers == null && body == null) {
            return received;
        }
        FullHttpRequest edited = new DefaultFullHttpRequest(received.protocolVersion(), received.method(), received.uri(),
                body != null ? body : received.content().duplicate()); // the downstream retains what it sends
        edited.headers().set(headers != null ? headers : received.headers());
        return edited;
    }

    /**
     * The request of a message the route replaced, from what the consumer recorded on it; null when
     * the message holds no such record (not from camel-netty-http's consumer).
     */
    static FullHttpRequest rebuilt(Exchange exchange) {
        Message message = exchange.getIn();
        String method = message.getHeader(NettyHttpConstants.HTTP_METHOD, String.class);
        String url = message.getHeader(NettyHttpConstants.HTTP_URL, String.class);
        if (method == null || url == null) {
            return null;
        }
        if (!Boolean.TRUE.equals(exchange.getProperty(Exchange.SKIP_WWW_FORM_URLENCODED, Boolean.class))) {
            // Without bridgeEndpoint the consumer made a form body's fields headers: not to be told from the route's.
            throw new IllegalStateException("the route replaced camel-netty-http's message before loadBalance() (setBody,"
                    + " transform, ...): its consumer needs bridgeEndpoint=true, else a form body's fields, which it makes"
                    + " headers, would go to the agent as headers");
        }
        String rawQuery = message.getHeader(NettyHttpConstants.HTTP_RAW_QUERY, String.class);
        String uri = NettyDownstream.originForm(url) + (rawQuery == null ? "" : "?" + rawQuery);
        byte[] bytes = message.getBody(byte[].class);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method), uri,
                bytes == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
        Map<String, List<String>> mapped = mappedParameters(uri, null, request.content()); // bridgeEndpoint: no form fields
        List<String> connection = withoutSuffix(values(message.getHeader(HttpHeaderNames.CONNECTION.toString())),
                mapped.get(HttpHeaderNames.CONNECTION.toString()));
        request.headers().add(added(message, new DefaultHttpHeaders(), mapped, connection));
        if (HttpHeaderValues.CLOSE.contentEqualsIgnoreCase(exchange.getProperty(NettyHttpConstants.CONNECTION, "", String.class))) {
            request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return request;
    }

    /**
     * The message's end-to-end headers that {@code received} lacks and that are no parameter as the
     * consumer mapped it; none that the message's own {@code Connection} names.
     */
    private static HttpHeaders added(Message message, HttpHeaders received, Map<String, List<String>> mapped,
            List<String> connection) {
        HttpHeaders added = new DefaultHttpHeaders();
        for (Map.Entry<String, Object> header : message.getHeaders().entrySet()) {
            String name = header.getKey();
            if (received.contains(name) || !Hops.isEndToEnd(name, connection) || name.regionMatches(true, 0, "org.apache.camel", 0, 16)) {
                continue;
            }
            for (String value : withoutSuffix(period(values(header.getValue())), mapped.get(name))) {
                added.add(name, value);
            }
        }
        return added;
    }

    /**
     * {@code lines} once: the consumer adds all of a name's lines for each spelling of it the client
     * used ({@code X-A}, {@code x-a}), so a list that is one run repeated is that run (two equal lines
     * in one spelling become one: nothing tells them apart then).
     */
    private static List<String> period(List<String> lines) {
        for (int run = 1; run <= lines.size() / 2; run++) {
            if (lines.size() % run == 0 && repeats(lines, run)) {
                return lines.subList(0, run);
            }
        }
        return lines;
    }

    private static boolean repeats(List<String> lines, int run) {
        for (int i = run; i < lines.size(); i++) {
            if (!lines.get(i).equals(lines.get(i - run))) {
                return false;
            }
        }
        return true;
    }

    /** Whether the consumer made a form body's fields headers: it does without {@code bridgeEndpoint=true}. */
    private static boolean formMapped(Exchange exchange) {
        return exchange == null || !Boolean.TRUE.equals(exchange.getProperty(Exchange.SKIP_WWW_FORM_URLENCODED, Boolean.class));
    }

    /**
     * The query parameters of {@code uri} and the fields of a form body, as the consumer maps them to
     * headers (decoded, a repeated one as a list), by case-insensitive name.
     */
    private static Map<String, List<String>> mappedParameters(String uri, String contentType, ByteBuf content) {
        Map<String, List<String>> mapped = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        int query = uri.indexOf('?');
        if (query >= 0) {
            try {
                // As the consumer: decoded, each value split at commas.
                URISupport.parseQuery(uri.substring(query + 1), false, true).forEach((name, value) -> ObjectHelper
                        .createIterator(value, ",", true).forEachRemaining(each -> lines(mapped, name).add(String.valueOf(each))));
            } catch (java.net.URISyntaxException | RuntimeException e) {
                // a query the consumer could not map either: no header of it
            }
        }
        if (contentType != null && contentType.regionMatches(true, 0, FORM, 0, FORM.length())) {
            // As the consumer (without bridgeEndpoint): each name=value pair of the body as written.
            String form = content.toString(content.readerIndex(), content.readableBytes(), StandardCharsets.UTF_8);
            for (String pair : form.split("&")) {
                String[] parts = pair.split("=", 2);
                if (parts.length == 2) {
                    lines(mapped, parts[0]).add(parts[1]);
                }
            }
        }
        return mapped;
    }

    private static List<String> lines(Map<String, List<String>> mapped, String name) {
        return mapped.computeIfAbsent(name, n -> new ArrayList<>());
    }

    /**
     * {@code lines} without the parameter's values the consumer appended after them ({@code fromQuery},
     * or null for none), when they end with them: a query parameter or form field never goes as a header.
     */
    private static List<String> withoutSuffix(List<String> lines, List<String> fromQuery) {
        int kept = fromQuery == null ? lines.size() : lines.size() - fromQuery.size();
        return kept >= 0 && kept < lines.size() && lines.subList(kept, lines.size()).equals(fromQuery) ? lines.subList(0, kept) : lines;
    }

    /** A header's value as lines: none for null, each element of a list, else its text. */
    private static List<String> values(Object value) {
        if (value == null) {
            return List.of();
        }
        if (value instanceof Iterable<?> many) {
            List<String> lines = new ArrayList<>();
            many.forEach(each -> lines.add(String.valueOf(each)));
            return lines;
        }
        return List.of(value.toString());
    }

    /** The body the route set on {@code message} when it differs from {@code received}'s; else null. */
    private static ByteBuf replacedBody(Message message, ByteBuf received) {
        Object body = message.getBody();
        if (body instanceof NettyChannelBufferStreamCache || body == received) {
            return null; // the consumer's (its stream cache; or its buffer, with disableStreamCache)
        }
        byte[] bytes = body == null ? new byte[0] : message.getBody(byte[].class);
        if (body instanceof StreamCache cache) {
            cache.reset(); // a route's stream, read here: readable again after
        }
        if (bytes == null) {
            return null;
        }
        ByteBuf now = Unpooled.wrappedBuffer(bytes);
        // The balancer's own reading (a key from the body) sets it as bytes: the same bytes are no change.
        int length = received.writerIndex();
        return now.readableBytes() == length && ByteBufUtil.equals(now, 0, received, 0, length) ? null : now;
    }
}
