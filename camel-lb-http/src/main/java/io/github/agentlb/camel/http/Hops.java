package io.github.agentlb.camel.http;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What one hop keeps of a message's headers, both ways: every end-to-end header. Dropped: the
 * hop-by-hop ones (RFC 9110 §7.6.1: {@code Connection} and the fields it names,
 * {@code Keep-Alive}, {@code Proxy-Connection}, {@code TE}, {@code Trailer},
 * {@code Transfer-Encoding}, {@code Upgrade}), {@code Expect}, {@code Proxy-Authorization},
 * {@code Proxy-Authenticate}, {@code Host} and {@code Content-Length} (each hop's own), and
 * {@code Camel*}. Stateless.
 */
final class Hops {

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "te",
            "trailer", "transfer-encoding", "upgrade", "host", "content-length", "expect", "proxy-authorization",
            "proxy-authenticate");

    /**
     * The most hops of this balancer ({@code Via} entries received by {@link NettyDownstream#VIA_NAME},
     * this one included) a request may have passed and still be sent: more is a loop (an agent
     * address that leads back to a balancer of the chain).
     */
    static final int MAX_BALANCER_HOPS = 10;
    /** What separates the parts of a {@code Via} entry. */
    private static final Pattern SPACES = Pattern.compile("[ \t]+");

    private Hops() {
    }

    /** How many entries of {@code via} (one or more {@code Via} values) were received by {@code name}. */
    static int hopsBy(Iterable<String> via, String name) {
        int hops = 0;
        for (String value : via) {
            for (String entry : value.split(",")) {
                String[] parts = SPACES.split(entry.trim());
                if (parts.length >= 2 && parts[1].equals(name)) {
                    hops++;
                }
            }
        }
        return hops;
    }

    /** The end-to-end headers of {@code from}, in their order. */
    static HttpHeaders endToEnd(HttpHeaders from) {
        Set<String> named = new HashSet<>();
        for (String value : from.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : value.split(",")) {
                named.add(token.trim().toLowerCase(Locale.ROOT));
            }
        }
        HttpHeaders endToEnd = new DefaultHttpHeaders();
        for (Map.Entry<String, String> header : from) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if (!HOP_BY_HOP.contains(name) && !named.contains(name) && !name.startsWith("camel")) {
                endToEnd.add(header.getKey(), header.getValue());
            }
        }
        return endToEnd;
    }
}
