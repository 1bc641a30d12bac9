package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Channel;
import org.apache.camel.EndpointAware;
import org.apache.camel.Processor;
import org.apache.camel.spi.IdAware;
import org.apache.camel.util.URISupport;

/**
 * A balancer's agents: the children, their ids and the names given to them, published as one
 * immutable {@link Members} snapshot. Changes are serialized by the caller (the balancer's lock);
 * {@link #current()} is a volatile read from any thread.
 *
 * <h2>Agent ids</h2>
 * A child's id is the name given to its endpoint ({@link #name}), else its endpoint URI without
 * user info and query ({@link #defaultId}): {@code http://localhost:8081?bridgeEndpoint=true&authPassword=s}
 * has id {@code http://localhost:8081}, so no endpoint option (a password, a token) reaches a
 * log line, a metrics tag or an exception message; else the processor's id, else its
 * {@code toString()}. Never a list position nor an identity hash code. A name is looked up by
 * the endpoint URI as written, by its normalized form, or by the id without options.
 */
final class Membership {

    /** {@code user:password@} after a {@code //}, also inside nested URIs such as {@code vertx-http:http://...}. */
    private static final Pattern USER_INFO = Pattern.compile("(?<=//)[^/?#@]*@");

    private final Map<String, String> names = new ConcurrentHashMap<>();
    private volatile Members members = Members.EMPTY;

    Members current() {
        return members;
    }

    /**
     * Names the agent behind {@code endpointUri}, then re-maps the children; on failure the name
     * is taken back and nothing changes.
     */
    void name(String endpointUri, String agentId, AsyncProcessor[] processors, Consumer<List<String>> onChange) {
        Check.notBlank("endpointUri", endpointUri);
        Check.notBlank("agentId", agentId);
        String key = normalized(endpointUri);
        String previous = names.put(key, agentId);
        try {
            refresh(processors, onChange);
        } catch (RuntimeException e) {
            if (previous == null) {
                names.remove(key);
            } else {
                names.put(key, previous);
            }
            throw e;
        }
    }

    /**
     * Computes the ids of {@code processors}, hands them to {@code onChange} (which may reject
     * them by throwing, before anything is published), then publishes them.
     *
     * @throws IllegalArgumentException if two children have the same id
     */
    void refresh(AsyncProcessor[] processors, Consumer<List<String>> onChange) {
        Map<String, AsyncProcessor> byId = new LinkedHashMap<>();
        for (AsyncProcessor processor : processors) {
            String id = idOf(processor);
            if (byId.putIfAbsent(id, processor) != null) {
                throw new IllegalArgumentException("agent ids must be distinct, " + id + " appears twice"
                        + " (endpoints that differ only in their options need names: nameAgent(uri, name))");
            }
        }
        List<String> ids = List.copyOf(byId.keySet());
        onChange.accept(ids);
        members = new Members(ids, Collections.unmodifiableMap(byId));
    }

    private String idOf(Processor processor) {
        String uri = endpointUri(processor);
        if (uri == null) {
            return fallbackId(processor);
        }
        String id = withoutOptions(uri);
        String name = names.get(normalized(uri));
        if (name == null) {
            name = names.get(normalized(id));
        }
        return name != null ? name : id;
    }

    /** The default id of a child: its endpoint URI without user info and query, else its processor id, else {@code toString()}. */
    static String defaultId(Processor processor) {
        String uri = endpointUri(processor);
        return uri != null ? withoutOptions(uri) : fallbackId(processor);
    }

    /** {@code scheme://host:port/path}: the URI without its user info and query. */
    static String withoutOptions(String uri) {
        int query = uri.indexOf('?');
        String base = query < 0 ? uri : uri.substring(0, query);
        return USER_INFO.matcher(base).replaceAll("");
    }

    private static String endpointUri(Processor processor) {
        Processor target = unwrap(processor);
        if (target instanceof EndpointAware endpointAware && endpointAware.getEndpoint() != null) {
            return endpointAware.getEndpoint().getEndpointUri();
        }
        return null;
    }

    private static String fallbackId(Processor processor) {
        Processor target = unwrap(processor);
        if (target instanceof IdAware idAware && idAware.getId() != null) {
            return idAware.getId();
        }
        return String.valueOf(target);
    }

    private static Processor unwrap(Processor processor) {
        Processor target = processor;
        while (target instanceof Channel channel && channel.getNextProcessor() != null) {
            target = channel.getNextProcessor();
        }
        return target;
    }

    /** The id of the route {@code processor} was created for, or null when Camel did not say. */
    static String routeIdOf(Processor processor) {
        if (processor instanceof Channel channel && channel.getRoute() != null) {
            return channel.getRoute().getRouteId();
        }
        return null;
    }

    private static String normalized(String uri) {
        try {
            return URISupport.normalizeUri(uri);
        } catch (URISyntaxException | RuntimeException e) {
            return uri;
        }
    }

    /** The children and their ids: one immutable snapshot, swapped whole. */
    record Members(List<String> ids, Map<String, AsyncProcessor> byId) {
        static final Members EMPTY = new Members(List.of(), Map.of());
    }
}
