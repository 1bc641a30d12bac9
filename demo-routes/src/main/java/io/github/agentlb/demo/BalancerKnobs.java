package io.github.agentlb.demo;

import io.github.agentlb.agent.main.MainSettings;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.Durations;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;

/**
 * Every JavaBean knob of the balancer, reachable from the demo by one name rule: setter
 * {@code setSessionHeader} is property {@code balancer.session.header} and environment variable
 * {@code BALANCER_SESSION_HEADER} (the rule of the proxy's own settings, prefixed), resolved as the
 * proxy's settings are: environment variable, else system property, else
 * {@code application.properties}. Knobs of text, number, boolean and {@link Duration} type are
 * bound; a {@code Duration} is read strictly ({@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h}
 * or ISO-8601 such as {@code PT10S}; Camel's own conversion turns {@code abc} into zero).
 *
 * <p>A bad value (checked as the balancer's start would, {@link AgentLoadBalancerSupport#checkSettings()}),
 * a {@code BALANCER_*} variable or {@code balancer.*} property that names no knob of the chosen
 * strategy, or a knob given both so and by the proxy's own setting of it ({@code BALANCE_FACTOR}
 * and {@code BALANCER_BALANCE_FACTOR}) fails the start with one line naming it. Not thread-safe;
 * used once at start.
 */
final class BalancerKnobs {

    /** The prefix of the properties; the variables' prefix is its upper case. */
    static final String PREFIX = "balancer.";
    static final String VARIABLE_PREFIX = "BALANCER_";
    /** Setters every Camel processor has, not knobs of the balancer. */
    private static final Set<String> CAMELS_OWN = Set.of("setCamelContext", "setId", "setRouteId", "setDisabled",
            "setGeneratedId");
    /** The proxy's own setting under the same prefix ({@code BALANCER_ID}: the shared allocation's balancer id). */
    private static final Set<String> PROXY_OWN = Set.of("balancer.id", "BALANCER_ID");
    /**
     * The proxy's own settings that set a balancer knob, to that knob: giving both is refused
     * rather than one silently winning.
     */
    private static final Map<String, String> PROXY_SETTINGS_OF_KNOBS = Map.of(
            "consecutiveFailures", "consecutiveFailures", "baseEjectionTimeMs", "baseEjectionTime",
            "maxEjectionTimeMs", "maxEjectionTime", "maxEjectedShare", "maxEjectedShare",
            "maximumFailoverAttempts", "maximumFailoverAttempts", "balanceFactor", "balanceFactor",
            "slowStartMs", "slowStartWindow");
    private static final Set<Class<?>> SIMPLE = Set.of(String.class, int.class, Integer.class, long.class, Long.class,
            double.class, Double.class, boolean.class, Boolean.class, Duration.class);

    private BalancerKnobs() {
    }

    /** Knobs of the queue, which do nothing while {@code queueSize} is 0. */
    private static final List<String> QUEUE_KNOBS = List.of("queueTimeout", "tenantHeader", "priorityHeader");

    /**
     * Sets the knobs given for {@code balancer}.
     *
     * @return the knobs set, property name to the text given, for the start-up log
     * @throws IllegalArgumentException naming the variable and the value of a bad or unknown knob
     */
    static Map<String, String> apply(AgentLoadBalancerSupport balancer, CamelContext context) {
        Map<String, Method> knobs = knobsOf(balancer.getClass());
        PropertiesComponent properties = context.getPropertiesComponent();
        Map<String, String> set = new TreeMap<>();
        for (Map.Entry<String, Method> knob : knobs.entrySet()) {
            String key = PREFIX + MainSettings.key(knob.getKey());
            Optional<String> text = asWritten(properties, key, variableOf(knob.getKey()));
            if (text.isPresent()) {
                bind(balancer, knob.getKey(), knob.getValue(), text.get());
                set.put(knob.getKey(), isSecret(knob.getKey()) ? "(set)" : text.get());
            }
        }
        Set<String> known = new HashSet<>(PROXY_OWN);
        knobs.keySet().forEach(k -> {
            known.add(variableOf(k));
            known.add(PREFIX + MainSettings.key(k));
        });
        List<String> given = new ArrayList<>();
        System.getenv().keySet().stream().filter(v -> v.startsWith(VARIABLE_PREFIX)).forEach(given::add);
        given.addAll(properties.loadProperties(k -> k.startsWith(PREFIX)).stringPropertyNames());
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(PREFIX)).forEach(given::add);
        List<String> unknown = given.stream().filter(name -> !known.contains(name)).sorted().distinct().toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(String.join(", ", unknown)
                    + ": no such knob of the " + balancer.strategyName() + " balancer; its knobs: "
                    + String.join(", ", knobs.keySet().stream().map(BalancerKnobs::variableOf).toList()));
        }
        PROXY_SETTINGS_OF_KNOBS.forEach((proxySetting, knob) -> {
            if (set.containsKey(knob) && properties.resolveProperty(MainSettings.key(proxySetting)).isPresent()) {
                throw new IllegalArgumentException(MainSettings.variable(proxySetting) + " and " + variableOf(knob)
                        + " both set the balancer's " + knob + ": set one");
            }
        });
        try {
            balancer.checkSettings();
        } catch (IllegalArgumentException e) {
            // "queueSize must be ..." or "queueSize=10 needs ...": the field is the leading name, or, when that
            // one was left at its default, the first knob set here that the message names.
            String message = e.getMessage() == null ? "" : e.getMessage();
            String leading = message.split("[ =]", 2)[0];
            String field = set.containsKey(leading) ? leading : set.keySet().stream()
                    .filter(k -> names(message, k)).findFirst().orElse(null);
            if (field == null) {
                throw e;
            }
            // The other knobs the message names, by the variables that set them here.
            List<String> others = knobs.keySet().stream().filter(k -> !k.equals(field)
                    && names(message, k))
                    .map(k -> k + " is " + variableOf(k)).sorted().toList();
            throw new IllegalArgumentException(variableOf(field) + ": " + e.getMessage()
                    + (others.isEmpty() ? "" : " (" + String.join(", ", others) + ")"), e);
        }
        if (balancer.getQueueSize() == 0) {
            for (String knob : QUEUE_KNOBS) {
                if (set.containsKey(knob)) {
                    throw new IllegalArgumentException(variableOf(knob) + " does nothing without "
                            + variableOf("queueSize") + " (the queue when every agent is full): set both or neither");
                }
            }
        }
        return set;
    }

    /**
     * The text given for {@code key}, by Camel's precedence: the environment variable, then the
     * system property, as written; then the properties loaded (initial and files, each as its format
     * reads it), their placeholders resolved as Camel resolves them (<code>{{env:SECRET}}</code>);
     * else what Camel resolves. Not through Camel's placeholder parser where none is meant: it drops
     * a backslash before a value's last character ({@code /a\\b} is {@code /ab}, a secret ending in a
     * backslash loses it) and resolves a value holding <code>{{</code> to none (the knob was left unset,
     * unseen).
     */
    static Optional<String> asWritten(PropertiesComponent properties, String key, String variable) {
        String text = System.getenv(variable);
        if (text == null) {
            text = System.getProperty(key);
        }
        if (text == null) {
            text = properties.loadProperties(key::equals).getProperty(key);
            if (text != null && text.contains("{{")) {
                return properties.resolveProperty(key);
            }
        }
        return text != null ? Optional.of(text) : properties.resolveProperty(key);
    }

    /**
     * Fails the start when {@code BALANCER_*} or {@code balancer.*} settings are given for a
     * strategy that has no balancer of this project (Camel's own baselines).
     *
     * @throws IllegalArgumentException naming the settings
     */
    static void refuseWithoutBalancer(String strategy, CamelContext context) {
        List<String> given = new ArrayList<>();
        System.getenv().keySet().stream().filter(v -> v.startsWith(VARIABLE_PREFIX) && !PROXY_OWN.contains(v))
                .forEach(given::add);
        given.addAll(context.getPropertiesComponent().loadProperties(k -> k.startsWith(PREFIX) && !PROXY_OWN.contains(k))
                .stringPropertyNames());
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(PREFIX) && !PROXY_OWN.contains(k))
                .forEach(given::add);
        if (!given.isEmpty()) {
            throw new IllegalArgumentException(String.join(", ", given.stream().sorted().distinct().toList())
                    + ": STRATEGY=" + strategy + " is Camel's own balancer, which has none of these knobs");
        }
    }

    /** Whether knob {@code property} holds a secret, whose value is never logged nor put in a refusal. */
    private static boolean isSecret(String property) {
        return property.toLowerCase(Locale.ROOT).contains("secret");
    }

    /** Whether {@code message} names {@code knob} as a word. */
    private static boolean names(String message, String knob) {
        return java.util.regex.Pattern.compile("\\b" + knob + "\\b").matcher(message).find();
    }

    /** The environment variable of knob {@code property}: {@code sessionHeader} to {@code BALANCER_SESSION_HEADER}. */
    static String variableOf(String property) {
        return VARIABLE_PREFIX + MainSettings.variable(property);
    }

    /** The balancer's knobs of a simple type: property name to its setter, sorted by name. */
    static Map<String, Method> knobsOf(Class<?> type) {
        Map<String, Method> knobs = new TreeMap<>();
        for (Method method : type.getMethods()) {
            if (method.getName().startsWith("set") && method.getName().length() > 3 && method.getParameterCount() == 1
                    && Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
                    && SIMPLE.contains(method.getParameterTypes()[0])
                    && !CAMELS_OWN.contains(method.getName())) {
                String name = Character.toLowerCase(method.getName().charAt(3)) + method.getName().substring(4);
                // A typed setter wins over its String overload, whatever order reflection gives.
                knobs.merge(name, method, (kept, other) -> kept.getParameterTypes()[0] == String.class ? other : kept);
            }
        }
        return knobs;
    }

    private static void bind(AgentLoadBalancerSupport balancer, String property, Method setter, String text) {
        String variable = variableOf(property);
        Object value;
        try {
            if (!text.equals(text.strip())) {
                throw new IllegalArgumentException("is taken as written and must not start or end with white space");
            }
            value = convert(setter.getParameterTypes()[0], text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(variable + ": " + e.getMessage() + ", was " + (isSecret(property)
                    ? "a secret of " + text.length() + " characters (not shown)" : "'" + text + "'"), e);
        }
        try {
            setter.invoke(balancer, value);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw new IllegalArgumentException(variable + ": " + cause.getMessage(), cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object convert(Class<?> type, String text) {
        if (type == String.class) {
            return text;
        }
        if (text.isEmpty()) {
            throw new IllegalArgumentException("a value is needed");
        }
        try {
            if (type == int.class || type == Integer.class) {
                return Integer.valueOf(text);
            }
            if (type == long.class || type == Long.class) {
                return Long.valueOf(text);
            }
            if (type == double.class || type == Double.class) {
                return Double.valueOf(text);
            }
        } catch (NumberFormatException e) {
            if (type == double.class || type == Double.class) {
                throw new IllegalArgumentException("must be a decimal number");
            }
            boolean digits = text.matches("[+-]?[0-9]+");
            long max = type == long.class || type == Long.class ? Long.MAX_VALUE : Integer.MAX_VALUE;
            throw new IllegalArgumentException(digits ? "must be a whole number from " + (-max - 1) + " to " + max
                    : "must be a whole number");
        }
        if (type == boolean.class || type == Boolean.class) {
            if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException("must be true or false");
            }
            return Boolean.valueOf(text);
        }
        return duration(text);
    }

    /**
     * A duration read by the library's {@link Durations#read}: {@code 250ms}, {@code 10s},
     * {@code 2m}, {@code 1h} or ISO-8601 ({@code PT10S}); zero is {@code 0}.
     *
     * @throws IllegalArgumentException for anything else, negative durations included
     */
    static Duration duration(String text) {
        return Durations.read(text).orElseThrow(() -> new IllegalArgumentException("must be " + Durations.RULE));
    }
}
