package io.github.agentlb.camel.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.PropertyBindingException;
import org.apache.camel.spi.Metadata;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.support.LifecycleStrategySupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@value #SCHEME} component: {@code agent:http://host:port[?options]} endpoints, each one
 * agent as a child of a route's {@code loadBalance()}, streaming the agent's answer into the
 * route's camel-netty-http consumer connection as it arrives ({@link AgentEndpoint},
 * {@link AgentProducer}; options and behaviour in {@code docs/http-component.md}). Found by Camel's
 * component discovery ({@code META-INF/services/org/apache/camel/component/agent}): having the jar
 * on the class path is enough.
 *
 * <p>When the CamelContext's registry holds a Micrometer {@code MeterRegistry} (camel-micrometer's
 * {@value #METER_REGISTRY_NAME}, else the only one), each endpoint's meters are registered there
 * when its producer starts, or at its first call when the registry came later ({@link AgentMetrics});
 * otherwise nothing is measured beyond plain counters.
 *
 * <p>Thread-safe.
 */
public class AgentComponent extends DefaultComponent {

    /** The component's scheme. */
    public static final String SCHEME = "agent";
    /** The name camel-micrometer binds its registry under; looked up first. */
    public static final String METER_REGISTRY_NAME = "metricsRegistry";
    private static final Logger LOG = LoggerFactory.getLogger(AgentComponent.class);
    private static final String MICROMETER = "io.micrometer.core.instrument.MeterRegistry";

    /** The counters of each agent address: endpoints that differ only in their options share them. */
    private final Map<String, AgentStats> stats = new ConcurrentHashMap<>();
    /** The times to first byte of recent answers of all its endpoints, for their stall rule. */
    private final FirstByteTimes firstByteTimes = new FirstByteTimes();
    @Metadata(defaultValue = "false", description = "Default of the endpoints' stallWhileWaiting option")
    private volatile boolean stallWhileWaiting;

    /** @return the default of its endpoints' {@link AgentEndpoint#isStallWhileWaiting()} */
    public boolean isStallWhileWaiting() {
        return stallWhileWaiting;
    }

    /**
     * Sets the default of its endpoints' {@code stallWhileWaiting} (in Camel Main:
     * {@code camel.component.agent.stallWhileWaiting=true}); endpoints made after this call take it,
     * an endpoint's own option wins.
     */
    public void setStallWhileWaiting(boolean stallWhileWaiting) {
        this.stallWhileWaiting = stallWhileWaiting;
    }

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        refuseRepeated(parameters);
        AgentEndpoint endpoint = new AgentEndpoint(remaining, this);
        endpoint.setStallWhileWaiting(stallWhileWaiting);
        try {
            setProperties(endpoint, parameters);
        } catch (PropertyBindingException e) {
            throw notANumber(e);
        }
        return endpoint;
    }

    /**
     * Refuses an option given more than once: twice by one name (Camel makes its values a list) or by
     * names that differ in case only (Camel's binding takes either, the last by the map's order).
     */
    private static void refuseRepeated(Map<String, Object> parameters) {
        Map<String, String> byLowerCase = new java.util.HashMap<>();
        for (Map.Entry<String, Object> parameter : parameters.entrySet()) {
            String name = parameter.getKey();
            if (parameter.getValue() instanceof java.util.Collection<?>) {
                throw new IllegalArgumentException(name + " is given more than once, was '" + parameter.getValue() + "'");
            }
            String other = byLowerCase.put(name.toLowerCase(java.util.Locale.ROOT), name);
            if (other != null) {
                String option = optionNamed(name);
                String spelled = option.equals(other) ? "also as " + name : option.equals(name) ? "also as " + other
                        : "as " + other + " and " + name;
                throw new IllegalArgumentException(option + " is given more than once (" + spelled + "), was '"
                        + parameters.getOrDefault(option, parameters.get(other)) + "'");
            }
        }
    }

    /** The option that {@code name} sets in any case, as its setter spells it; {@code name} when none does. */
    private static String optionNamed(String name) {
        for (java.lang.reflect.Method setter : AgentEndpoint.class.getMethods()) {
            if (setter.getName().equalsIgnoreCase("set" + name) && setter.getParameterCount() == 1) {
                return Character.toLowerCase(setter.getName().charAt(3)) + setter.getName().substring(4);
            }
        }
        return name;
    }

    /**
     * Camel's conversion of a number or boolean option's text failed (a value it does not read, or
     * the option given twice, which Camel makes a list): an {@link IllegalArgumentException} naming
     * the option, what it takes and the value, as every other refused option.
     */
    private static RuntimeException notANumber(PropertyBindingException e) {
        Class<?> type = null;
        for (java.lang.reflect.Method setter : AgentEndpoint.class.getMethods()) {
            if (setter.getName().equalsIgnoreCase("set" + e.getPropertyName()) && setter.getParameterCount() == 1) {
                type = setter.getParameterTypes()[0];
            }
        }
        String takes = type == int.class ? "a whole number up to " + Integer.MAX_VALUE
                : type == long.class ? "a whole number up to " + Long.MAX_VALUE
                : type == double.class ? "a number" : type == boolean.class ? "true or false" : null;
        return takes == null || e.getValue() instanceof String text && reads(type, text) ? e // the option's own refusal
                : new IllegalArgumentException(e.getPropertyName() + " must be " + takes + ", was '" + e.getValue() + "'");
    }

    /** Whether Camel reads {@code text} as a value of {@code type}. */
    private static boolean reads(Class<?> type, String text) {
        try {
            if (type == boolean.class) {
                return text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false");
            }
            if (type == int.class) {
                Integer.parseInt(text.strip());
            } else if (type == long.class) {
                Long.parseLong(text.strip());
            } else {
                Double.parseDouble(text.strip());
            }
            return true;
        } catch (NumberFormatException notOne) {
            return false;
        }
    }

    /**
     * Ends the streams that wait for events rather than an answer as soon as the CamelContext begins
     * to stop, so that they do not hold its shutdown to its timeout ({@link AgentCall#contextStopping}).
     */
    private final LifecycleStrategySupport whenStopping = new LifecycleStrategySupport() {
        @Override
        public void onContextStopping(CamelContext context) {
            for (Endpoint endpoint : context.getEndpoints()) {
                if (endpoint instanceof AgentEndpoint agent && agent.getComponent() == AgentComponent.this) {
                    agent.pool().contextStopping();
                }
            }
        }
    };

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        getCamelContext().addLifecycleStrategy(whenStopping);
    }

    @Override
    protected void doStop() throws Exception {
        getCamelContext().getLifecycleStrategies().remove(whenStopping);
        super.doStop();
    }

    /** The counters of the agent at {@code address} ({@code http://host:port}). */
    AgentStats statsOf(String address) {
        return stats.computeIfAbsent(address, AgentStats::new);
    }

    FirstByteTimes firstByteTimes() {
        return firstByteTimes;
    }

    /**
     * Registers an agent's meters when there is a registry to register them in.
     *
     * @return what removes them again, null when none were registered
     */
    Runnable bindMetrics(AgentStats stats) {
        Object registry = meterRegistry();
        LOG.debug("Meters of agent {}: {}", stats.agent(), registry == null ? "off (no MeterRegistry)" : "in " + registry);
        return registry == null ? null : AgentMetrics.bind(stats, registry);
    }

    private Object meterRegistry() {
        Class<?> type;
        try {
            type = Class.forName(MICROMETER, false, AgentComponent.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        Object registry = getCamelContext().getRegistry().lookupByNameAndType(METER_REGISTRY_NAME, type);
        return registry != null ? registry : getCamelContext().getRegistry().findSingleByType(type);
    }
}
