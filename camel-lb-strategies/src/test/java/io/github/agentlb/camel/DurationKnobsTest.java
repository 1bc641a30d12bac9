package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every time a balancer takes is one the library can count in nanoseconds (at most
 * {@code Long.MAX_VALUE} ns, about 292 years): a longer one ({@code queueTimeout=PT3000000H}) is
 * refused when set or when the balancer starts, naming the knob and the value, never accepted and
 * then failing each request that reads it. Every {@code set*(Duration)} knob of every strategy.
 */
class DurationKnobsTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static final Duration TOO_LONG = Duration.ofHours(3_000_000); // 342 years

    private static final List<Supplier<AgentLoadBalancerSupport>> STRATEGIES = List.of(RoundRobinLB::new,
            ConsistentHashLB::new, PidWeightedLB::new, AdaptiveVirtualNodeLB::new, LeastRequestLB::new);

    @Test
    void aTimeLongerThanNanosecondsCanCountIsRefusedNamingItsKnob() throws Exception {
        List<String> accepted = new ArrayList<>();
        int knobs = 0;
        for (Supplier<AgentLoadBalancerSupport> strategy : STRATEGIES) {
            Method[] setters = strategy.get().getClass().getMethods();
            Arrays.sort(setters, Comparator.comparing(Method::getName));
            for (Method setter : setters) {
                if (!setter.getName().startsWith("set") || setter.getParameterCount() != 1
                        || setter.getParameterTypes()[0] != Duration.class) {
                    continue;
                }
                knobs++;
                String knob = Character.toLowerCase(setter.getName().charAt(3)) + setter.getName().substring(4);
                AgentLoadBalancerSupport lb = strategy.get();
                if (knob.startsWith("queue")) {
                    lb.setMaxInFlightPerAgent(1);
                    lb.setQueueSize(10);
                }
                Throwable refused = catchThrowable(() -> {
                    try {
                        setter.invoke(lb, TOO_LONG);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    ScriptedChild.started(lb, CAMEL.get(), ScriptedChild.ok("A1"));
                });
                lb.stop();
                if (!(refused instanceof IllegalArgumentException)
                        || !refused.getMessage().toLowerCase().contains(knob.toLowerCase().replace("time", ""))
                        && !refused.getMessage().contains(knob)
                        || !refused.getMessage().contains("was " + TOO_LONG)) {
                    accepted.add(lb.getClass().getSimpleName() + "." + knob + ": " + refused);
                }
            }
        }
        assertThat(knobs).as("Duration knobs found").isGreaterThan(20);
        assertThat(accepted).as("knobs that took " + TOO_LONG + " or refused it without naming it").isEmpty();
    }
}
