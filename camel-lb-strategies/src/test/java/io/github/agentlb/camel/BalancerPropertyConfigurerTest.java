package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The property binding Camel uses for the balancers' knobs, the default methods of the knob interfaces included. */
class BalancerPropertyConfigurerTest {

    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final BalancerPropertyConfigurer configurer = new BalancerPropertyConfigurer();
    private final RoundRobinLB rr = new RoundRobinLB();

    @AfterEach
    void close() throws Exception {
        camel.close();
    }

    @Test
    void aKnobOfAnInterfaceIsSetByNameAndTextIsConvertedToItsType() {
        assertThat(configurer.configure(camel, rr, "maximumFailoverAttempts", "2", false)).isTrue();
        assertThat(rr.getMaximumFailoverAttempts()).isEqualTo(2);
        assertThat(configurer.configure(camel, rr, "MAXIMUMFAILOVERATTEMPTS", 3, true)).isTrue();
        assertThat(rr.getMaximumFailoverAttempts()).isEqualTo(3);
        assertThat(configurer.configure(camel, rr, "MAXIMUMFAILOVERATTEMPTS", 4, false)).as("case matters").isFalse();
        assertThat(configurer.configure(camel, rr, "saturationEnabled", "false", false)).isTrue();
        assertThat(rr.isSaturationEnabled()).isFalse();
        assertThat(configurer.configure(camel, rr, "noSuchKnob", "1", false)).isFalse();
        assertThat(rr.getMaximumFailoverAttempts()).as("nothing else changed").isEqualTo(3);
    }

    @Test
    void textGoesToTheTextSetterWhichReadsDurationsStrictly() {
        assertThat(configurer.configure(camel, rr, "baseEjectionTime", "250ms", false)).isTrue();
        assertThat(rr.getBaseEjectionTime()).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> configurer.configure(camel, rr, "baseEjectionTime", "abc", false))
                .as("Camel's own converter would read abc as zero").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("baseEjectionTime").hasMessageContaining("abc");
        assertThat(configurer.configure(camel, rr, "baseEjectionTime", Duration.ofSeconds(2), false)).isTrue();
        assertThat(rr.getBaseEjectionTime()).as("a value of the knob's type as it is").isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void answerKnobsReadBackAsSet() {
        assertThat(configurer.configure(camel, rr, "failOverOnAnswerTimeout", "true", false)).isTrue();
        assertThat(rr.isFailOverOnAnswerTimeout()).isTrue();
        rr.setFailOverOnAnswerTimeout(false);
        assertThat(rr.isFailOverOnAnswerTimeout()).isFalse();
        AnswerRules rules = new AnswerRules(Set.of(503), Duration.ofSeconds(2), Duration.ofSeconds(30), true);
        rr.setAnswerRules(rules);
        assertThat(rr.getAnswerRules()).isSameAs(rules);
    }

    @Test
    void aRefusedValueIsThrownAsTheKnobSaysIt() {
        assertThatThrownBy(() -> configurer.configure(camel, rr, "consecutiveFailures", "0", false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("consecutiveFailures");
    }

    @Test
    void typesAndValuesAreReadForCamelsToolingAndTheListingHasEveryKnob() {
        assertThat(configurer.getOptionType("baseEjectionTime", false)).isEqualTo(String.class);
        assertThat(configurer.getOptionType("maximumFailoverAttempts", false)).isEqualTo(int.class);
        assertThat(configurer.getOptionType("MaximumFailoverAttempts", true)).isEqualTo(int.class);
        assertThat(configurer.getOptionType("virtualNodes", false)).as("a knob of ch only").isEqualTo(int.class);
        assertThat(configurer.getOptionType("noSuchKnob", false)).isNull();

        rr.setMaximumFailoverAttempts(1);
        assertThat(configurer.getOptionValue(rr, "maximumFailoverAttempts", false)).isEqualTo(1);
        assertThat(configurer.getOptionValue(rr, "MAXIMUMFAILOVERATTEMPTS", true)).isEqualTo(1);
        assertThat(configurer.getOptionValue(rr, "MAXIMUMFAILOVERATTEMPTS", false)).isNull();
        assertThat(configurer.getOptionValue(rr, "saturationEnabled", false)).as("an is-getter").isEqualTo(true);
        assertThat(configurer.getOptionValue(rr, "SATURATIONENABLED", true)).isEqualTo(true);
        assertThat(configurer.getOptionValue(rr, "noSuchKnob", false)).isNull();

        Map<String, Object> options = configurer.getAllOptions(rr);
        assertThat(options).containsKeys("maximumFailoverAttempts", "baseEjectionTime", "sessionHeader", "saturationEnabled")
                .doesNotContainKeys("virtualNodes", "agentIds", "maximumFailoverAttempts ");
        assertThat(options.keySet()).allSatisfy(name -> assertThat(name).isNotEmpty()
                .matches(n -> Character.isLowerCase(n.charAt(0)), "starts lower case"));
        assertThat(options.keySet()).as("each a setter's").allSatisfy(name ->
                assertThat(configurer.getOptionType(name, false)).as(name).isNotNull());
    }
    @Test
    void aValueNoSetterTakesIsRefusedAndAKnobWithATextSetterTakesText() {
        assertThat(configurer.configure(camel, rr, "maxInFlightPerAgent", new Object(), false)).isFalse();
        assertThat(rr.getMaxInFlightPerAgent()).as("unchanged").isZero();
        for (String knob : java.util.List.of("queueTimeout", "hedgeDelay", "baseEjectionTime", "healthCheckInterval",
                "healthCheckJitter", "healthCheckTimeout")) {
            assertThat(configurer.getOptionType(knob, false)).as(knob).isEqualTo(String.class);
        }
        assertThat(configurer.getOptionType("maxInFlightPerAgent", false)).isEqualTo(int.class);
    }
}
