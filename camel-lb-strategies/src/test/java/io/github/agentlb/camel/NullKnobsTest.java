package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.Introspector;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Null to every public knob setter of every balancer, found by reflection: refused naming the knob.
 * A text, time or list value is refused as any bad value ({@link IllegalArgumentException},
 * {@code "<knob> must ..., was null"}); an object ({@code FailoverPolicy}, {@code SlowStart}, ...) with
 * {@link NullPointerException} whose message is the knob, as {@code Objects.requireNonNull}.
 */
class NullKnobsTest {

    /** Setters that take null on purpose: Camel's ids, and {@code healthCheckPath} (null: off). */
    private static final Set<String> NULL_TAKEN = Set.of("setId", "setRouteId", "setGeneratedId", "setHealthCheckPath",
            "setCamelContext");

    @Test
    void nullToAnyKnobSetterIsRefusedNamingTheKnob() throws Exception {
        List<String> wrong = new ArrayList<>();
        int refused = 0;
        for (var balancer : new TreeMap<>(SetterErrorMessagesTest.BALANCERS).entrySet()) {
            for (Method setter : balancer.getValue().get().getClass().getMethods()) {
                Class<?> type = setter.getParameterCount() == 1 ? setter.getParameterTypes()[0] : null;
                if (!setter.getName().startsWith("set") || type == null || type.isPrimitive()
                        || Modifier.isStatic(setter.getModifiers()) || NULL_TAKEN.contains(setter.getName())) {
                    continue;
                }
                String knob = Introspector.decapitalize(setter.getName().substring(3));
                String call = balancer.getKey() + "." + setter.getName() + "((" + type.getSimpleName() + ") null)";
                Throwable thrown = null;
                try {
                    setter.invoke(balancer.getValue().get(), (Object) null);
                } catch (InvocationTargetException e) {
                    thrown = e.getCause();
                }
                boolean value = type == String.class || type == Duration.class || Collection.class.isAssignableFrom(type);
                if (value ? thrown instanceof IllegalArgumentException && thrown.getMessage().startsWith(knob + " ")
                        && thrown.getMessage().contains("null")
                        : thrown instanceof NullPointerException && knob.equals(thrown.getMessage())) {
                    refused++;
                } else {
                    wrong.add(call + " -> " + thrown);
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(refused).isGreaterThan(100);
    }

    @Test
    void theNullsTheTrialMetNameTheirKnob() {
        RoundRobinLB rr = new RoundRobinLB();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> rr.setIdempotentMethods((String) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("idempotentMethods must not be null, was null");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> rr.setIdempotentMethods((Collection<String>) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("idempotentMethods must not be null, was null");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> rr.setSlowStartWindow((Duration) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("slowStartWindow must be >= 0, was null");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AdaptiveVirtualNodeLB().setAvnConfig(null))
                .isInstanceOf(NullPointerException.class).hasMessage("avnConfig");
    }
}
