package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Channel;
import org.apache.camel.EndpointAware;
import org.apache.camel.Processor;
import org.apache.camel.spi.IdAware;
import org.apache.camel.util.URISupport;

/**
 * A balancer's agent ids: the names given to children, and the ids computed from them as one
 * immutable {@link Members}. Changes are serialized by the caller (the balancer's one writer);
 * the balancer publishes the result in its {@link BalancerState}.
 *
 * <h2>Agent ids</h2>
 * A child's id is the name given to its endpoint ({@link #name}), else its endpoint URI without
 * user info and query ({@link #defaultId}): {@code http://localhost:8081?bridgeEndpoint=true&authPassword=s}
 * has id {@code http://localhost:8081}, so no endpoint option (a password, a token) reaches a
 * log line, a metrics tag or an exception message; else the processor's id, else its
 * {@code toString()}. Never a list position nor an identity hash code. A name is looked up by
 * the endpoint URI as written, by its normalized form, by the id without options, or by its address
 * ({@link #address}): so {@code agent:http://h:8081?firstByteTimeout=5s}, {@code agent://http://h:8081}
 * and {@code http://h:8081/} all name the child {@code .to("agent:http://h:8081")}, whose endpoint
 * URI is {@code http://h:8081}.
 */
final class Membership {

    /** {@code user:password@} after a {@code //}, also inside nested URIs such as {@code vertx-http:http://...}. */
    private static final Pattern USER_INFO = Pattern.compile("(?<=//)[^/?#@]*@");
    /** A component's scheme before an {@code http(s)://} address: {@code agent:}, {@code agent://}, {@code netty-http:}. */
    private static final Pattern SCHEME_BEFORE_ADDRESS = Pattern.compile("^[a-z][a-z0-9+.-]*:(?://)?(?=https?://)",
            Pattern.CASE_INSENSITIVE);

    private final Map<String, String> names = new ConcurrentHashMap<>();
    /** The endpoint URIs of {@link #names} as they were given, by their normalized form. */
    private final Map<String, String> written = new ConcurrentHashMap<>();
    /** Whether a start checked the names ({@link #checkNamedAtFirstStart}); under the writer's lock. */
    private boolean checkedAtStart;
    /** Names of children added at runtime ({@code addAgent}), by identity: they need no endpoint. */
    private final Map<Processor, String> childNames = Collections.synchronizedMap(new IdentityHashMap<>());

    /**
     * Names the agent behind {@code endpointUri}.
     *
     * @return the name it had before, or null
     */
    String name(String endpointUri, String agentId) {
        Check.notBlank("endpointUri", endpointUri);
        checkedName("agentId", agentId);
        written.put(normalized(endpointUri), endpointUri);
        return names.put(normalized(endpointUri), agentId);
    }

    /** {@code name} if not blank and without white space, the rule of every agent name. */
    static String checkedName(String field, String name) {
        Check.notBlank(field, name);
        if (name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(field + " must not contain white space, was '" + name + "'");
        }
        return name;
    }

    /**
     * Checks that the names given for {@code endpointUris} (each as given to {@link #name}) find a child
     * among {@code processors}, none of them added at runtime (its id is the one it was added as).
     *
     * @throws IllegalArgumentException naming the first URI that finds none, and the children's default ids, or
     *     that finds a child added at runtime, and its id
     */
    void checkNamed(Collection<String> endpointUris, AsyncProcessor[] processors) {
        // An endpoint as written first, then without its options, then its address: the closest child answers.
        Map<String, AsyncProcessor> byKey = new HashMap<>();
        for (int pass = 0; pass < 3; pass++) {
            for (AsyncProcessor processor : processors) {
                String uri = endpointUri(processor);
                if (uri != null) {
                    byKey.putIfAbsent(pass == 0 ? normalized(uri) : pass == 1 ? normalized(withoutOptions(uri)) : address(uri),
                            processor);
                }
            }
        }
        for (String given : endpointUris) {
            AsyncProcessor child = byKey.getOrDefault(normalized(given), byKey.get(address(normalized(given))));
            if (child == null) {
                throw new IllegalArgumentException("nameAgent: no child of this balancer has endpoint '" + given
                        + "'; its children: " + Arrays.stream(processors).map(p -> childNames.getOrDefault(p, defaultId(p)))
                        .collect(Collectors.joining(", ")));
            }
            String added = childNames.get(child);
            if (added != null) {
                throw new IllegalArgumentException("nameAgent: the agent at endpoint '" + given + "' was added at runtime as '"
                        + added + "', its id; to give it another, remove it and add it again");
            }
        }
    }

    /**
     * At the first start only, {@link #checkNamed} for every name given so far: a restart after a named
     * agent left is no configuration error.
     */
    void checkNamedAtFirstStart(AsyncProcessor[] processors) {
        if (!checkedAtStart) {
            checkNamed(List.copyOf(written.values()), processors);
            checkedAtStart = true;
        }
    }

    /** Takes back a name given by {@link #name}: {@code previous} again, or none. */
    void restoreName(String endpointUri, String previous) {
        String key = normalized(endpointUri);
        if (previous == null) {
            names.remove(key);
            written.remove(key);
        } else {
            names.put(key, previous);
        }
    }

    /** Names a child added at runtime. */
    void nameChild(Processor child, String agentId) {
        childNames.put(child, Check.notBlank("name", agentId));
    }

    /** Forgets the name of a runtime child that left. */
    void forgetChild(Processor child) {
        childNames.remove(child);
    }

    /**
     * The ids of {@code processors}, in child order.
     *
     * @throws IllegalArgumentException if two children have the same id
     */
    Members compute(AsyncProcessor[] processors) {
        Map<String, AsyncProcessor> byId = new LinkedHashMap<>();
        for (AsyncProcessor processor : processors) {
            String id = idOf(processor);
            if (byId.putIfAbsent(id, processor) != null) {
                throw new IllegalArgumentException("agent ids must be distinct, " + id + " appears twice"
                        + " (endpoints that differ only in their options need names: nameAgent(uri, name))");
            }
        }
        return new Members(List.copyOf(byId.keySet()), Collections.unmodifiableMap(byId));
    }

    private String idOf(Processor processor) {
        String given = childNames.get(processor);
        if (given != null) {
            return given;
        }
        String uri = endpointUri(processor);
        if (uri == null) {
            return fallbackId(processor);
        }
        String id = withoutOptions(uri);
        String name = names.get(normalized(uri));
        if (name == null) {
            name = names.get(normalized(id));
        }
        if (name == null && !names.isEmpty()) {
            String address = address(uri);
            for (Map.Entry<String, String> named : names.entrySet()) {
                if (address(named.getKey()).equals(address)) {
                    return named.getValue();
                }
            }
        }
        return name != null ? name : id;
    }

    /**
     * The address a URI names: without a component's scheme before an {@code http(s)://} address, its
     * user info, query and a trailing slash ({@code agent://http://h:8081?x=1} gives {@code http://h:8081}).
     */
    static String address(String uri) {
        String address = withoutOptions(SCHEME_BEFORE_ADDRESS.matcher(uri.trim()).replaceFirst(""));
        return address.endsWith("/") && address.indexOf('/') < address.length() - 1 && !address.endsWith("//")
                ? address.substring(0, address.length() - 1) : address;
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

    /**
     * The health address of an agent: the {@code http://} or {@code https://} address in its
     * child's endpoint URI ({@code agent:http://host:8081}, {@code netty-http:http://...},
     * {@code http://host:8081?bridgeEndpoint=true}), scheme and authority only (no user info),
     * followed by {@code path}; null when the URI holds none or either is null.
     */
    static URI healthUri(String endpointUri, String path) {
        if (endpointUri == null || path == null) {
            return null;
        }
        String lower = endpointUri.toLowerCase(Locale.ROOT);
        int at = lower.indexOf("http://");
        int secure = lower.indexOf("https://");
        at = at < 0 ? secure : secure < 0 ? at : Math.min(at, secure);
        if (at < 0) {
            return null;
        }
        try {
            URI address = URI.create(endpointUri.substring(at).replaceFirst("[?#].*$", ""));
            if (address.getHost() == null) {
                return null;
            }
            return URI.create(address.getScheme() + "://" + address.getRawAuthority().replaceFirst("^.*@", "") + path);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The endpoint URI of {@code processor}'s target, as written; null when it has no endpoint. */
    static String endpointUriOf(Processor processor) {
        return endpointUri(processor);
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
    }
}
