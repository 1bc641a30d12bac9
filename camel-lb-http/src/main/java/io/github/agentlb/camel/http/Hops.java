package io.github.agentlb.camel.http;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What one hop keeps of a message's headers, both ways: every end-to-end header. Dropped: the
 * hop-by-hop ones (RFC 9110 §7.6.1: {@code Connection} and the fields it names,
 * {@code Keep-Alive}, {@code Proxy-Connection}, {@code TE}, {@code Trailer},
 * {@code Transfer-Encoding}, {@code Upgrade}), {@code Expect}, {@code Proxy-Authorization},
 * {@code Proxy-Authenticate}, {@code Host} and {@code Content-Length} (each hop's own), and
 * {@code Camel*}. Stateless.
 */
final class Hops {

    private static final List<AsciiString> HOP_BY_HOP = List.of(HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE,
            HttpHeaderNames.PROXY_CONNECTION, HttpHeaderNames.TE, HttpHeaderNames.TRAILER,
            HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE, HttpHeaderNames.HOST,
            HttpHeaderNames.CONTENT_LENGTH, HttpHeaderNames.EXPECT, HttpHeaderNames.PROXY_AUTHORIZATION,
            HttpHeaderNames.PROXY_AUTHENTICATE);
    private static final String CAMEL = "camel";

    /**
     * The most hops of this balancer ({@code Via} entries received by {@link NettyDownstream#VIA_NAME},
     * this one included) a request may have passed and still be sent: more is a loop (an agent
     * address that leads back to a balancer of the chain).
     */
    static final int MAX_BALANCER_HOPS = 10;

    private Hops() {
    }

    /**
     * How many entries of {@code via} (one or more {@code Via} values) were received by {@code name}:
     * entries are separated by commas, and an entry's received-by is its second part, parts being
     * separated by spaces or tabs (RFC 9110 §7.6.3).
     */
    static int hopsBy(Iterable<String> via, String name) {
        int hops = 0;
        for (String value : via) {
            for (int from = 0, to; from <= value.length(); from = to + 1) {
                to = value.indexOf(',', from);
                to = to < 0 ? value.length() : to;
                if (receivedBy(value, from, to, name)) {
                    hops++;
                }
            }
        }
        return hops;
    }

    /** Whether the {@code Via} entry {@code value[from, to)} names {@code name} as its second part. */
    private static boolean receivedBy(String value, int from, int to, String name) {
        from = trimmedStart(value, from, to);
        to = trimmedEnd(value, from, to);
        int gap = from;
        while (gap < to && !blank(value.charAt(gap))) {
            gap++;
        }
        int part = gap;
        while (part < to && blank(value.charAt(part))) {
            part++;
        }
        int end = part;
        while (end < to && !blank(value.charAt(end))) {
            end++;
        }
        return gap < to && end - part == name.length() && value.startsWith(name, part);
    }

    /** The first index of {@code value[from, to)} past control characters and spaces ({@link String#trim}'s rule). */
    private static int trimmedStart(String value, int from, int to) {
        while (from < to && value.charAt(from) <= ' ') {
            from++;
        }
        return from;
    }

    /** The end of {@code value[from, to)} before trailing control characters and spaces. */
    private static int trimmedEnd(String value, int from, int to) {
        while (to > from && value.charAt(to - 1) <= ' ') {
            to--;
        }
        return to;
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t';
    }

    /** The end-to-end headers of {@code from}, in their order. */
    static HttpHeaders endToEnd(HttpHeaders from) {
        return addEndToEnd(from, new DefaultHttpHeaders());
    }

    /** Adds the end-to-end headers of {@code from} to {@code endToEnd}, in their order; returns {@code endToEnd}. */
    static HttpHeaders addEndToEnd(HttpHeaders from, HttpHeaders endToEnd) {
        List<String> connection = from.getAll(HttpHeaderNames.CONNECTION);
        for (Iterator<Map.Entry<CharSequence, CharSequence>> headers = from.iteratorCharSequence(); headers.hasNext();) {
            Map.Entry<CharSequence, CharSequence> header = headers.next();
            CharSequence name = header.getKey();
            if (isEndToEnd(name, connection)) {
                endToEnd.add(name, header.getValue());
            }
        }
        return endToEnd;
    }

    /** Whether header {@code name} goes on to the next hop, {@code connection} being its message's {@code Connection} values. */
    static boolean isEndToEnd(CharSequence name, List<String> connection) {
        return !hopByHop(name) && !named(connection, name) && !AsciiString.regionMatches(name, true, 0, CAMEL, 0, CAMEL.length());
    }

    private static boolean hopByHop(CharSequence name) {
        for (AsciiString hop : HOP_BY_HOP) {
            if (hop.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code name} is one of the comma-separated fields of the {@code Connection} values. */
    private static boolean named(List<String> connection, CharSequence name) {
        for (String value : connection) {
            for (int from = 0, to; from <= value.length(); from = to + 1) {
                to = value.indexOf(',', from);
                to = to < 0 ? value.length() : to;
                int start = trimmedStart(value, from, to);
                int end = trimmedEnd(value, start, to);
                if (end - start == name.length() && AsciiString.regionMatches(value, true, start, name, 0, name.length())) {
                    return true;
                }
            }
        }
        return false;
    }
}
