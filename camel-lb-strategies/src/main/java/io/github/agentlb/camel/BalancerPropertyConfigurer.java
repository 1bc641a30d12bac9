package io.github.agentlb.camel;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.camel.CamelContext;
import org.apache.camel.TypeConversionException;
import org.apache.camel.spi.ExtendedPropertyConfigurerGetter;
import org.apache.camel.spi.PropertyConfigurer;

/**
 * Camel's property binding (YAML {@code beans:}, {@code camel.beans.*}, XML) for the balancers: a
 * knob is a public one-argument setter of the balancer's class, its knob interfaces included
 * ({@link FailureSettings}, {@link KeySettings}, ...), whose default methods Camel's own reflection
 * does not look at. Registered for each balancer class under
 * {@code META-INF/services/org/apache/camel/configurer}, as Camel's generated configurers are. A
 * text value goes to the knob's {@code String} setter when it has one (durations are read strictly
 * there, never by Camel's converter, which reads {@code abc} as zero); any other value is converted
 * to the setter's type by the CamelContext's type converter; a text it cannot convert (a number or
 * flag such as {@code virtualNodes: abc}) is an {@link IllegalArgumentException} naming the knob, what
 * it takes and the text. A refused value's exception is thrown as it is, so it names the knob.
 * Stateless and thread-safe.
 */
public final class BalancerPropertyConfigurer implements PropertyConfigurer, ExtendedPropertyConfigurerGetter {

    private static final List<Class<?>> BALANCERS = List.of(RoundRobinLB.class, ConsistentHashLB.class,
            PidWeightedLB.class, AdaptiveVirtualNodeLB.class, LeastRequestLB.class);

    @Override
    public boolean configure(CamelContext camelContext, Object target, String name, Object value, boolean ignoreCase) {
        List<Method> setters = setters(target.getClass(), name, ignoreCase);
        if (setters.isEmpty()) {
            return false;
        }
        Method text = setters.stream().filter(m -> m.getParameterTypes()[0] == String.class).findFirst().orElse(null);
        if (value instanceof String && text != null) {
            return invoke(text, target, value);
        }
        for (Method setter : setters) {
            Class<?> type = setter.getParameterTypes()[0];
            Object converted = type.isInstance(value) ? value : convert(camelContext, type, value);
            if (converted != null) {
                return invoke(setter, target, converted);
            }
        }
        if (text != null) {
            return invoke(text, target, String.valueOf(value));
        }
        String takes = takes(setters.get(0).getParameterTypes()[0]);
        if (value instanceof String none && takes != null) {
            // Camel's own binding would fail with a NumberFormatException naming neither knob nor balancer.
            throw new IllegalArgumentException(name + " must be " + takes + ", was '" + none + "'");
        }
        return false; // left to Camel's own binding (an object knob's bean reference, for one)
    }

    /** What a number or flag knob of {@code type} takes, in words; null for any other type. */
    private static String takes(Class<?> type) {
        return type == int.class ? "a whole number up to " + Integer.MAX_VALUE
                : type == long.class ? "a whole number up to " + Long.MAX_VALUE
                : type == double.class ? "a number" : type == boolean.class ? "true or false" : null;
    }

    /** {@code value} as a {@code type}, or null when the type converter cannot read it as one. */
    private static Object convert(CamelContext camelContext, Class<?> type, Object value) {
        try {
            return camelContext.getTypeConverter().tryConvertTo(type, value);
        } catch (IllegalArgumentException | TypeConversionException e) {
            return null; // "maybe" as a boolean: Camel's converter throws rather than answer null
        }
    }

    private static boolean invoke(Method setter, Object target, Object value) {
        try {
            setter.invoke(target, value);
            return true;
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException refused) {
                throw refused;
            }
            throw new IllegalStateException(setter.getName() + " failed", e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(setter.getName() + " is not accessible", e);
        }
    }

    /** The public one-argument setters of {@code name} on {@code type}, the {@code String} one first. */
    private static List<Method> setters(Class<?> type, String name, boolean ignoreCase) {
        String setter = "set" + name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
        List<Method> found = new ArrayList<>();
        for (Method method : type.getMethods()) {
            if (method.getParameterCount() == 1 && !Modifier.isStatic(method.getModifiers())
                    && (ignoreCase ? method.getName().equalsIgnoreCase(setter) : method.getName().equals(setter))) {
                found.add(method);
            }
        }
        found.sort((a, b) -> Boolean.compare(b.getParameterTypes()[0] == String.class, a.getParameterTypes()[0] == String.class));
        return found;
    }

    /** The type a knob takes: {@code String} when it has a text setter, else its setter's type; null for no knob. */
    @Override
    public Class<?> getOptionType(String name, boolean ignoreCase) {
        for (Class<?> balancer : BALANCERS) {
            List<Method> setters = setters(balancer, name, ignoreCase);
            if (!setters.isEmpty()) {
                return setters.get(0).getParameterTypes()[0];
            }
        }
        return null;
    }

    @Override
    public Object getOptionValue(Object target, String name, boolean ignoreCase) {
        String capitalized = name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
        for (Method method : target.getClass().getMethods()) {
            boolean getter = method.getName().equals("get" + capitalized) || method.getName().equals("is" + capitalized)
                    || ignoreCase && (method.getName().equalsIgnoreCase("get" + capitalized)
                    || method.getName().equalsIgnoreCase("is" + capitalized));
            if (getter && method.getParameterCount() == 0) {
                try {
                    return method.invoke(target);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(method.getName() + " failed", e);
                }
            }
        }
        return null;
    }

    @Override
    public Map<String, Object> getAllOptions(Object target) {
        Map<String, Object> options = new TreeMap<>();
        for (Method method : target.getClass().getMethods()) {
            if (method.getName().startsWith("set") && method.getName().length() > 3 && method.getParameterCount() == 1
                    && !Modifier.isStatic(method.getModifiers())) {
                String name = method.getName().substring(3, 4).toLowerCase(Locale.ROOT) + method.getName().substring(4);
                options.putIfAbsent(name, method.getParameterTypes()[0]);
            }
        }
        return options;
    }
}
