package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.avn.AgentUtilization;
import io.github.agentlb.core.bounded.BoundedLoad;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.hash.HashAlgorithm;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.core.orca.Saturation;
import io.github.agentlb.core.pid.PidWeightsConfig;
import io.github.agentlb.core.session.LearnedSessions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link BalancerConfig#with}: a draft whose setters chain, each part replaced or built once. */
class ConfigDraftTest {

    private static final AgentUtilization BUSY = new AgentUtilization(0.9, 0.5);
    private static final AgentUtilization IDLE = new AgentUtilization(0.1, 0.2);

    @Test
    void everySetterChainsAndEachPartLandsInTheNewConfiguration() {
        OutlierEjection ejection = OutlierEjection.custom().consecutiveFailures(3).build();
        PidWeightsConfig pid = PidWeightsConfig.custom().kp(2).build();
        FailoverPolicy failover = new FailoverPolicy(1, Duration.ZERO, FailoverPolicy.RFC_9110_IDEMPOTENT);
        BalancerConfig.Key key = BalancerConfig.Key.header("tenant");
        BalancerConfig.Ring ring = new BalancerConfig.Ring(40, HashAlgorithm.MD5);
        BalancerConfig.LeastRequest leastRequest = new BalancerConfig.LeastRequest(7, 1.5);

        BalancerConfig config = BalancerConfig.DEFAULT.with(d -> d.ejection(ejection).saturation(Saturation.disabled())
                .pid(pid).avn(AdaptiveVirtualNodesConfig.ofDefaults()).capacityWeights(0.25, 0.75)
                .loadWeights(0.2, 0.3, 0.5).imbalanceThreshold(0.3).settleThreshold(0.1)
                .addStartupUtilization("A0", IDLE).startupUtilization(Map.of("A1", BUSY)).addStartupUtilization("A2", IDLE)
                .failover(failover).answers(AnswerRules.DEFAULT).reportFormat("json")
                .sessions(LearnedSessions.disabled()).slowStart(SlowStart.DEMO).key(key)
                .boundedLoad(BoundedLoad.ofDefaults()).ring(ring).leastRequest(leastRequest));

        assertThat(config.ejection()).isSameAs(ejection);
        assertThat(config.saturation().enabled()).isFalse();
        assertThat(config.pid()).isEqualTo(pid);
        AdaptiveVirtualNodesConfig avn = config.avn().config();
        assertThat(avn.capacityWeights().cpu()).isEqualTo(0.25);
        assertThat(avn.loadWeights().requests()).isEqualTo(0.5);
        assertThat(avn.imbalanceThreshold()).isEqualTo(0.3);
        assertThat(avn.settleThreshold()).isEqualTo(0.1);
        assertThat(config.avn().startupUtilization()).as("replaced whole, then added to")
                .isEqualTo(Map.of("A1", BUSY, "A2", IDLE));
        assertThat(config.failover()).isSameAs(failover);
        assertThat(config.answers()).isSameAs(AnswerRules.DEFAULT);
        assertThat(config.reportFormat()).isEqualTo("JSON");
        assertThat(config.slowStart()).isSameAs(SlowStart.DEMO);
        assertThat(config.key()).isSameAs(key);
        assertThat(config.boundedLoad().isEnabled()).isTrue();
        assertThat(config.ring()).isSameAs(ring);
        assertThat(config.leastRequest()).isSameAs(leastRequest);
    }

    @Test
    void thePaperRuleKeepsTheSettleThresholdOnTheThreshold() {
        BalancerConfig config = BalancerConfig.DEFAULT.with(d -> d.paperRule().imbalanceThreshold(0.25));
        assertThat(config.avn().config().settleThreshold()).isEqualTo(0.25);
        BalancerConfig followed = BalancerConfig.DEFAULT.with(d -> d.imbalanceThreshold(0.4));
        assertThat(followed.avn().config().settleThreshold()).as("at the default ratio")
                .isEqualTo(0.4 * BalancerConfig.Avn.DEFAULT.settleFactor());
    }

    @Test
    void weightsThatDoNotSumToOneAreRefusedWhenBuilt() {
        assertThatThrownBy(() -> BalancerConfig.DEFAULT.with(d -> d.capacityWeights(0.5, 0.6)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0.6");
    }

    @Test
    void anUntouchedPartStaysTheRecordItWas() {
        BalancerConfig config = BalancerConfig.DEFAULT.with(d -> d.reportFormat("TEXT"));
        assertThat(config.ejection()).isSameAs(BalancerConfig.DEFAULT.ejection());
        assertThat(config.pid()).isSameAs(BalancerConfig.DEFAULT.pid());
        assertThat(config.avn()).isEqualTo(BalancerConfig.DEFAULT.avn());
    }
    @Test
    void theRequestPathPartsChainToo() {
        io.github.agentlb.core.hedge.HedgePolicy hedging = new io.github.agentlb.core.hedge.HedgePolicy(true,
                Duration.ofMillis(250), 97, 2);
        io.github.agentlb.core.health.ActiveHealthCheck healthCheck = io.github.agentlb.core.health.ActiveHealthCheck.of("/ready");
        BalancerConfig.LeastRequest leastRequest = new BalancerConfig.LeastRequest(3, 1.0);
        FlowControl flow = FlowControl.DISABLED.withMaxInFlightPerAgent(4).withQueueSize(8);
        BalancerConfig config = BalancerConfig.DEFAULT.with(d -> d.retryBudget(io.github.agentlb.core.retry.RetryBudget.UNLIMITED)
                .retryBackoff(io.github.agentlb.core.retry.RetryBackoff.DISABLED).hedging(hedging).healthCheck(healthCheck)
                .leastRequest(leastRequest).flowControl(flow).reportFormat("json"));
        assertThat(config.retryBudget()).isSameAs(io.github.agentlb.core.retry.RetryBudget.UNLIMITED);
        assertThat(config.retryBackoff()).isSameAs(io.github.agentlb.core.retry.RetryBackoff.DISABLED);
        assertThat(config.hedging()).isSameAs(hedging);
        assertThat(config.healthCheck()).isEqualTo(healthCheck);
        assertThat(config.leastRequest()).isSameAs(leastRequest);
        assertThat(config.flowControl()).isEqualTo(flow);
        assertThat(config.reportFormat()).isEqualTo("JSON");
    }

    @Test
    void anAvnConfigurationAloneHasNoStartUpUtilizationAndItsOwnSettleThreshold() {
        AdaptiveVirtualNodesConfig avn = AdaptiveVirtualNodesConfig.ofDefaults();
        BalancerConfig.Avn of = BalancerConfig.Avn.of(avn);
        assertThat(of.config()).isSameAs(avn);
        assertThat(of.startupUtilization()).isEmpty();
        assertThat(of.settleFactor()).as("the threshold as the config has it").isNaN();
    }
}
