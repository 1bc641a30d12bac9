package io.github.agentlb.camel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.ObjectHelper;
import org.apache.camel.util.URISupport;

/**
 * A request header as the client sent it. camel-netty-http's consumer also makes each query
 * parameter a header, after the request's own ({@code ?Mcp-Session-Id=...}, {@code ?accept=...}), and
 * records the query ({@code CamelHttpRawQuery}): the values the query gave are left out, so that a URL
 * cannot stand in for a header the balancer reads to decide (a session id, what a GET accepts).
 * Stateless.
 */
final class ClientHeaders {

    private ClientHeaders() {
    }

    /** The values of header {@code name} as the client sent them, in order; empty when it sent none. */
    static List<String> values(Message in, String name) {
        List<String> values = lines(in.getHeader(name));
        String rawQuery = values.isEmpty() ? null : in.getHeader(Exchange.HTTP_RAW_QUERY, String.class);
        if (rawQuery == null || rawQuery.isEmpty()) {
            return values;
        }
        List<String> fromQuery = new ArrayList<>();
        try {
            for (Map.Entry<String, Object> parameter : URISupport.parseQuery(rawQuery, false, true).entrySet()) {
                if (parameter.getKey().equalsIgnoreCase(name)) { // decoded, compared as Camel's header map does
                    // As the consumer maps it: each value split at commas.
                    ObjectHelper.createIterator(parameter.getValue(), ",", true).forEachRemaining(v -> fromQuery.add(String.valueOf(v)));
                }
            }
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return values; // a query the consumer could not map either
        }
        int kept = values.size() - fromQuery.size();
        // The query's come last: left out when the header ends with them (else a route set the header).
        return kept >= 0 && values.subList(kept, values.size()).equals(fromQuery) ? values.subList(0, kept) : values;
    }

    /** The first value of header {@code name} as the client sent it, or null. */
    static String first(Message in, String name) {
        List<String> values = values(in, name);
        return values.isEmpty() ? null : values.get(0);
    }

    private static List<String> lines(Object value) {
        if (value == null) {
            return List.of();
        }
        if (value instanceof Iterable<?> many) {
            List<String> lines = new ArrayList<>();
            many.forEach(each -> {
                if (each != null) {
                    lines.add(each.toString());
                }
            });
            return lines;
        }
        return List.of(value.toString());
    }
}
