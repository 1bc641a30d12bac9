package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.Introspector;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every JavaBean property of every balancer, set to values out of its range: the setter or the
 * route's start refuses it with a message that names the property as the user wrote it (not a
 * builder's or record's field of another name), found by reflection so a new setter is covered.
 */
class SetterErrorMessagesTest {

    static final Map<String, Supplier<AgentLoadBalancerSupport>> BALANCERS = Map.of(
            "RoundRobinLB", RoundRobinLB::new,
            "ConsistentHashLB", ConsistentHashLB::new,
            "PidWeightedLB", PidWeightedLB::new,
            "AdaptiveVirtualNodeLB", AdaptiveVirtualNodeLB::new,
            "LeastRequestLB", LeastRequestLB::new);

    private static final CamelContext CONTEXT = new DefaultCamelContext();

    private static final Map<Class<?>, List<Object>> BAD_VALUES = Map.of(
            int.class, List.of(0, -1),
            long.class, List.of(-1L),
            double.class, List.of(-1.0, 0.0, 1.5, Double.NaN, 1e9),
            Duration.class, List.of(Duration.ofSeconds(-1), Duration.ZERO),
            String.class, List.of("sha1", " ", "x=y"));

    /** The JavaBean setters of one simple-typed value (what YAML, XML and properties can set). */
    static List<Method> setters(Class<?> type) {
        Map<String, Method> found = new TreeMap<>();
        for (Method method : type.getMethods()) {
            if (method.getName().startsWith("set") && method.getName().length() > 3 && method.getParameterCount() == 1
                    && !Modifier.isStatic(method.getModifiers())
                    && (BAD_VALUES.containsKey(method.getParameterTypes()[0]) || method.getParameterTypes()[0] == boolean.class)
                    && !method.getName().equals("setCamelContext") && !method.getName().equals("setId")
                    && !method.getName().equals("setRouteId")) {
                found.put(property(method), method);
            }
        }
        return List.copyOf(found.values());
    }

    static String property(Method setter) {
        return Introspector.decapitalize(setter.getName().substring(3));
    }

    @BeforeAll
    static void start() {
        CONTEXT.start();
    }

    @AfterAll
    static void stop() {
        CONTEXT.stop();
    }

    @Test
    void aRefusedValueNamesThePropertyTheUserSet() throws Exception {
        List<String> wrong = new ArrayList<>();
        int refused = 0;
        for (var balancer : new TreeMap<>(BALANCERS).entrySet()) {
            for (Method setter : setters(balancer.getValue().get().getClass())) {
                for (Object value : BAD_VALUES.getOrDefault(setter.getParameterTypes()[0], List.of())) {
                    String message = refusal(balancer.getValue().get(), setter, value);
                    if (message != null) {
                        refused++;
                        if (!message.matches("(?s).*\\b" + property(setter) + "\\b.*")) {
                            wrong.add(balancer.getKey() + "." + property(setter) + " = " + value + ": " + message);
                        }
                    }
                }
            }
        }
        assertThat(refused).as("values refused").isGreaterThan(40);
        assertThat(refusal(new ConsistentHashLB(), ConsistentHashLB.class.getMethod("setHashFunction", String.class), "sha1"))
                .startsWith("hashFunction must be one of md5");
        assertThat(wrong).as("messages that do not name the property set").isEmpty();
    }

    /** The message of the exception that refuses {@code value}, at set or at the route's start; null if accepted. */
    static String refusal(AgentLoadBalancerSupport balancer, Method setter, Object value) throws Exception {
        try {
            setter.invoke(balancer, value);
        } catch (InvocationTargetException e) {
            return e.getCause().getMessage();
        }
        // The balancer started on its own, as its route would start it, so that no route's start
        // failure is logged for each refused value.
        balancer.setCamelContext(CONTEXT);
        try {
            balancer.start();
            balancer.stop();
            return null;
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            return cause.getMessage();
        }
    }
}
