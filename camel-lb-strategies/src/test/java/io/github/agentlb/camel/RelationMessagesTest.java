package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * After the start a knob that breaks its relation with another is refused at once, and the message
 * names the knob being set first, then the other knob and its value; either side of each relation.
 */
class RelationMessagesTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private static <T extends AgentLoadBalancerSupport> T started(T balancer) {
        return ScriptedChild.startedAgents(balancer, CAMEL.get(), () -> 0L, ScriptedChild::naming, "A1", "A2");
    }

    @Test
    void ejectionTimes() {
        RoundRobinLB rr = started(new RoundRobinLB());
        rr.setMaxEjectionTime("5m");
        assertThatThrownBy(() -> rr.setBaseEjectionTime("10m")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("baseEjectionTime must be <= maxEjectionTime (PT5M), was PT10M");
        rr.setBaseEjectionTime("1m");
        assertThatThrownBy(() -> rr.setMaxEjectionTime("30s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT1M), was PT30S");
        assertThat(rr.getOutlierEjection().baseEjectionTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(rr.getOutlierEjection().maxEjectionTime()).isEqualTo(Duration.ofMinutes(5));
    }

    /** A knob set before the start that still breaks its relation then fails the start naming that knob, either side. */
    @Test
    void aKnobStillWaitingAtTheStartIsNamedAsItWasSet() {
        RoundRobinLB base = new RoundRobinLB();
        base.setBaseEjectionTime("10m");
        assertThatThrownBy(base::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("baseEjectionTime must be <= maxEjectionTime (PT5M), was PT10M");
        RoundRobinLB max = new RoundRobinLB();
        max.setMaxEjectionTime("5s");
        assertThatThrownBy(max::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT10S), was PT5S");
        RoundRobinLB rest = new RoundRobinLB();
        rest.setDefaultRest("90s");
        assertThatThrownBy(rest::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("defaultRest must be <= maxRest (PT1M), was PT1M30S");
        AdaptiveVirtualNodeLB avn = new AdaptiveVirtualNodeLB();
        avn.setSettleThreshold(0.5);
        assertThatThrownBy(avn::checkSettings).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("settleThreshold must be <= imbalanceThreshold (");
    }

    @Test
    void rests() {
        RoundRobinLB rr = started(new RoundRobinLB());
        rr.setMaxRest("20s");
        assertThatThrownBy(() -> rr.setDefaultRest("30s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("defaultRest must be <= maxRest (PT20S), was PT30S");
        rr.setDefaultRest("2s");
        assertThatThrownBy(() -> rr.setMaxRest("1s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxRest must be >= defaultRest (PT2S), was PT1S");
    }

    @Test
    void retryBackoffIntervals() {
        RoundRobinLB rr = started(new RoundRobinLB());
        rr.setRetryBackoffMaxInterval("1s");
        assertThatThrownBy(() -> rr.setRetryBackoffBaseInterval("2s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBackoffBaseInterval must be <= retryBackoffMaxInterval (PT1S), was PT2S");
        rr.setRetryBackoffBaseInterval("100ms");
        assertThatThrownBy(() -> rr.setRetryBackoffMaxInterval("50ms")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBackoffMaxInterval must be >= retryBackoffBaseInterval (PT0.1S), was PT0.05S");
    }

    @Test
    void avnThresholds() {
        AdaptiveVirtualNodeLB avn = started(new AdaptiveVirtualNodeLB());
        avn.setSettleThreshold(0.05);
        assertThatThrownBy(() -> avn.setImbalanceThreshold(0.04)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("imbalanceThreshold must be >= settleThreshold (0.05), was 0.04");
        avn.setImbalanceThreshold(0.2);
        assertThatThrownBy(() -> avn.setSettleThreshold(0.3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("settleThreshold must be <= imbalanceThreshold (0.2), was 0.3");
    }
}
