package io.github.agentlb.agent.main;

import java.lang.reflect.Method;
import java.net.BindException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.camel.CamelContext;
import org.apache.camel.PropertyBindingException;
import org.apache.camel.main.Main;
import org.apache.camel.util.IOHelper;
import org.apache.camel.util.StringHelper;

/**
 * A settings JavaBean that Camel Main creates and binds, the way it binds any
 * {@code camel.beans.*} bean, for the agent's and the proxy's Main classes.
 *
 * <p>{@link #declareTo(Main)} gives Main, as initial properties, {@code camel.beans.NAME =
 * #class:TYPE} and for each bean property {@code camel.beans.NAME.delayMinMs = {{?delay.min.ms}}}:
 * the key is the property name in dot case. Camel's properties component resolves a key from the
 * environment variable ({@code DELAY_MIN_MS}), else the system property ({@code -Ddelay.min.ms=}),
 * else {@code application.properties} or another location ({@code -propertiesLocation
 * file:x.properties}); Camel converts the text to the setter's type and calls the setter. A key
 * found nowhere leaves the bean's default ({@code {{?...}}} is Camel's optional placeholder).
 * Camel takes a value as it is: a blank or space-padded number is a bad value, not the default.
 *
 * <p>Why the declarations are made here rather than written in {@code application.properties}:
 * agent-stub is on the demo proxy's class path, so a file of its own would meet the proxy's in
 * the shaded jar, and an application that embeds either would have to copy the lines. As initial
 * properties they have the lowest precedence, so a file may still set
 * {@code camel.beans.NAME.PROPERTY} itself.
 *
 * <p>Why {@link #startupProblem} exists: Camel reports a value it cannot convert as a
 * {@link PropertyBindingException} whose message is several lines about
 * {@code camel.beans.NAME.port} and the bean's {@code toString}, with the stack trace of each
 * cause; the operator set {@code PORT}. (Camel's other binding, {@code @PropertyInject} with a
 * default value, was not used: it silently takes the default when the value does not convert.)
 *
 * <p>Immutable and thread-safe; the bean it binds is not.
 *
 * @param <T> the settings bean: public, with a public no-argument constructor and setters
 */
public final class MainSettings<T> {

    private final String beanName;
    private final Class<T> type;
    private final List<String> properties;

    /**
     * @param beanName   the bean's name in the registry and in {@code camel.beans.NAME}
     * @param type       the bean's class
     * @param properties the bean properties bound, e.g. {@code delayMinMs}; each has a setter
     */
    public MainSettings(String beanName, Class<T> type, List<String> properties) {
        this.beanName = Objects.requireNonNull(beanName, "beanName");
        this.type = Objects.requireNonNull(type, "type");
        this.properties = List.copyOf(properties);
    }

    /** The Camel property key of a bean property: {@code delayMinMs} to {@code delay.min.ms}. */
    public static String key(String property) {
        return StringHelper.camelCaseToDot(property);
    }

    /** The environment variable of a bean property: {@code delayMinMs} to {@code DELAY_MIN_MS}. */
    public static String variable(String property) {
        return IOHelper.normalizeEnvironmentVariable(key(property));
    }

    /** The bean properties bound, in declaration order. */
    public List<String> properties() {
        return properties;
    }

    /**
     * The variables of {@code environment} that are none of this binding's nor {@code alsoKnown} but
     * near one (at most 1 edit from a name of up to 6 characters, 2 from a longer one: {@code STRATEGIE},
     * {@code AGENT}; or the same name with another time unit or none: {@code DELAY_MAX},
     * {@code DRAIN_TIMEOUT_SECONDS} for {@code DELAY_MAX_MS}, {@code DRAIN_TIMEOUT_S}), which a user most
     * likely mistyped: each ignored, as any other variable, and said in a line naming the variable
     * meant, in the order of the variables' names.
     *
     * @param what what the variables configure, e.g. {@code "the proxy"}
     */
    public List<String> nearMisses(Map<String, String> environment, Set<String> alsoKnown, String what) {
        Set<String> known = new TreeSet<>(alsoKnown);
        properties.forEach(p -> known.add(variable(p)));
        List<String> lines = new ArrayList<>();
        for (String name : new TreeSet<>(environment.keySet())) {
            if (!known.contains(name)) {
                known.stream().filter(k -> edits(name, k) <= (k.length() <= 6 ? 1 : 2)
                        || unitless(name).equals(unitless(k)) && !unitless(k).isEmpty()).findFirst().ifPresent(meant ->
                        lines.add(name + " is no variable of " + what + " and is ignored: " + meant + " was meant?"));
            }
        }
        return lines;
    }

    /** {@code name} without a time unit at its end: {@code DRAIN_TIMEOUT} of {@code DRAIN_TIMEOUT_SECONDS}. */
    private static String unitless(String name) {
        return name.replaceFirst("_(MS|MILLIS|MILLISECONDS|S|SEC|SECS|SECONDS)$", "");
    }

    /** The edits (insertions, deletions, substitutions, swaps of neighbours) from {@code a} to {@code b}: optimal string alignment. */
    static int edits(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /**
     * The one line to print when a setting holds what Camel's property placeholders would read
     * otherwise (a backslash, which they drop before a value's last character, or <code>{{</code>,
     * <code>}}</code>), else null: each is taken as written, as the class says. Checked before Camel
     * starts, in {@code environment} and the system properties.
     *
     * @param what the application, e.g. "proxy"
     */
    public String placeholderProblem(Map<String, String> environment, String what) {
        for (String property : properties) {
            String text = environment.get(variable(property));
            text = text != null ? text : System.getProperty(key(property));
            if (text != null && (text.contains("\\") || text.contains("{{") || text.contains("}}"))) {
                return "Bad " + what + " configuration: " + variable(property) + " is taken as written and must hold no"
                        + " backslash, {{ or }} (Camel's property placeholders would read it otherwise), was '" + text + "'";
            }
        }
        return null;
    }

    /** Declares the bean and its properties to {@code main}; call before {@code main} starts. */
    public void declareTo(Main main) {
        main.addInitialProperty("camel.beans." + beanName, "#class:" + type.getName());
        for (String property : properties) {
            main.addInitialProperty("camel.beans." + beanName + "." + property, "{{?" + key(property) + "}}");
        }
    }

    /**
     * The bean as Camel Main bound it, for a route builder's {@code configure()}.
     *
     * @throws IllegalStateException if the context's Main was not given {@link #declareTo}
     */
    public T boundIn(CamelContext context) {
        T bean = context.getRegistry().lookupByNameAndType(beanName, type);
        if (bean == null) {
            throw new IllegalStateException("no bean '" + beanName + "' in the registry: call declareTo(main) first");
        }
        return bean;
    }

    /**
     * Refuses a setting given with white space around it ({@code PORT=" 8000"}): Camel converts
     * some such values and not others, so each is taken as written, as the class says. Call from
     * the route builder's {@code configure()}, before the settings are used.
     *
     * @throws IllegalArgumentException naming the variable and the value as given
     */
    public void requireAsWritten(CamelContext context) {
        for (String property : properties) {
            context.getPropertiesComponent().resolveProperty(key(property)).ifPresent(text -> {
                if (!text.equals(text.strip())) {
                    throw new IllegalArgumentException(variable(property) + " is taken as written and must not start or"
                            + " end with white space, was '" + text + "'");
                }
            });
        }
    }

    /**
     * Runs a setter of a validating builder with a bound value, naming the variable when it
     * refuses: "SPEED: speed must be &gt; 0 and finite, was -2.0".
     *
     * @throws IllegalArgumentException what the setter threw, its message prefixed with the variable
     */
    public static void apply(String property, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(variable(property) + ": " + e.getMessage(), e);
        }
    }

    /**
     * The one line to print for a start-up failure the operator can fix, or null for any other:
     * a value Camel could not convert ("Bad agent configuration: PORT must be an integer, was
     * 'eighty'"), a value the settings refused ({@link IllegalArgumentException}), an option of
     * another bean or component that could not be set (as written, with the reason), a port in use
     * ({@link ServerPorts.PortInUseException}) or taken between the check and the bind.
     *
     * @param what the application, e.g. "agent"
     */
    public String startupProblem(Throwable failure, String what) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PropertyBindingException binding && type.isInstance(binding.getTarget())) {
                String property = binding.getPropertyName();
                if (!properties.contains(property)) {
                    return "Bad " + what + " configuration: camel.beans." + beanName + " has no setting '"
                            + property + "'; it has " + properties;
                }
                return "Bad " + what + " configuration: " + variable(property) + " must be "
                        + expected(property) + ", was '" + binding.getValue() + "'";
            }
            if (t instanceof PropertyBindingException other && other.getPropertyName() != null) {
                // Another bean's or component's option (-Dcamel.component.agent.minStallTime=...): as written.
                String key = other.getOptionPrefix() == null || other.getOptionKey() == null ? other.getPropertyName()
                        : other.getOptionPrefix().replaceAll("\\.$", "") + "." + other.getOptionKey();
                Throwable reason = other.getCause();
                return "Bad " + what + " configuration: " + key + "=" + other.getValue() + " was refused"
                        + (reason == null ? " (no such option, or not a value it takes)" : ": " + describe(reason));
            }
            if (t instanceof ServerPorts.PortInUseException inUse) {
                return inUse.getMessage();
            }
            if (t instanceof IllegalArgumentException bad) {
                String prefix = "Bad " + what + " configuration: ";
                String described = describe(bad);
                return described.startsWith(prefix) ? described : prefix + described;
            }
            if (t instanceof BindException bind) {
                return "Cannot listen: " + describe(bind) + ": set PORT";
            }
        }
        return null;
    }

    /** The failure's message, or its type when it has none: the line never says "null". */
    static String describe(Throwable failure) {
        String message = failure.getMessage();
        return message == null || message.isBlank() ? failure.getClass().getName() : message;
    }

    /** What a value of the property's setter type looks like, for the error line. */
    private String expected(String property) {
        String setter = "set" + property.substring(0, 1).toUpperCase(Locale.ROOT) + property.substring(1);
        for (Method method : type.getMethods()) {
            if (method.getName().equalsIgnoreCase(setter) && method.getParameterCount() == 1) {
                Class<?> p = method.getParameterTypes()[0];
                if (p == int.class || p == long.class || p == Integer.class || p == Long.class) {
                    return "an integer";
                }
                if (p == double.class || p == Double.class) {
                    return "a decimal number";
                }
                if (p == Duration.class) {
                    return "a duration such as 10s, 500ms or PT1M";
                }
                if (p == boolean.class || p == Boolean.class) {
                    return "true or false";
                }
            }
        }
        return "a valid value";
    }
}
