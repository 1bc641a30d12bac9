package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The JavaBean properties YAML and properties files set: each getter shows the default, then what was set. */
class AdaptiveVirtualNodeLBPropertiesTest {

    @Test
    void gettersShowTheDefaultsBeforeAnythingIsSet() {
        AdaptiveVirtualNodeLB lb = new AdaptiveVirtualNodeLB();
        AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();

        assertThat(lb.getTotalVirtualNodes()).isEqualTo(defaults.totalVirtualNodes());
        assertThat(lb.getImbalanceThreshold()).isEqualTo(defaults.imbalanceThreshold());
        assertThat(lb.getSettleThreshold()).isEqualTo(defaults.settleThreshold());
        assertThat(lb.getCooldownWindows()).isEqualTo(defaults.cooldownWindows());
        assertThat(lb.getUtilizationSmoothing()).isEqualTo(defaults.utilizationSmoothing());
        assertThat(lb.getMaxMovesPerEvaluation()).isEqualTo(defaults.maxMovesPerEvaluation());
        assertThat(lb.getEvaluationWindow()).isEqualTo(defaults.evaluationWindow());
        assertThat(lb.getReportExpiry()).isEqualTo(defaults.reportExpiry());
        assertThat(lb.getHistorySize()).isEqualTo(defaults.historySize());
        assertThat(lb.getHashFunction()).isEqualTo("fnv1-64-mixed");
        assertThat(lb.getReallocations()).isZero();
    }

    @Test
    void gettersShowWhatWasSet() {
        AdaptiveVirtualNodeLB lb = new AdaptiveVirtualNodeLB();
        lb.setTotalVirtualNodes(30);
        lb.setImbalanceThreshold(0.2);
        lb.setSettleThreshold(0.05);
        lb.setCooldownWindows(3);
        lb.setUtilizationSmoothing(0.75);
        lb.setMaxMovesPerEvaluation(4);
        lb.setEvaluationWindow(50);
        lb.setReportExpiry(Duration.ofSeconds(2));
        lb.setHistorySize(500);
        lb.setHashFunction("md5");

        assertThat(lb.getTotalVirtualNodes()).isEqualTo(30);
        assertThat(lb.getImbalanceThreshold()).isEqualTo(0.2);
        assertThat(lb.getSettleThreshold()).isEqualTo(0.05);
        assertThat(lb.getCooldownWindows()).isEqualTo(3);
        assertThat(lb.getUtilizationSmoothing()).isEqualTo(0.75);
        assertThat(lb.getMaxMovesPerEvaluation()).isEqualTo(4);
        assertThat(lb.getEvaluationWindow()).isEqualTo(50);
        assertThat(lb.getReportExpiry()).isEqualTo(Duration.ofSeconds(2));
        assertThat(lb.getHistorySize()).isEqualTo(500);
        assertThat(lb.getHashFunction()).isEqualTo("md5");
    }

    @Test
    void aThresholdSetAloneKeepsTheSettleThresholdsRatioToIt() {
        AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();
        AdaptiveVirtualNodeLB lb = new AdaptiveVirtualNodeLB();
        lb.setImbalanceThreshold(0.2);
        lb.checkSettings();
        assertThat(lb.getSettleThreshold()).isEqualTo(0.2 * defaults.settleThreshold() / defaults.imbalanceThreshold());

        AdaptiveVirtualNodeLB both = new AdaptiveVirtualNodeLB();
        both.setSettleThreshold(0.05);
        both.setImbalanceThreshold(0.2);
        both.checkSettings();
        assertThat(both.getSettleThreshold()).isEqualTo(0.05);
        assertThat(both.getImbalanceThreshold()).isEqualTo(0.2);
    }

    @Test
    void weightsSetOneByOneAreAppliedTogether() {
        AdaptiveVirtualNodeLB lb = new AdaptiveVirtualNodeLB();
        lb.setCapacityCpuWeight(0.25);
        lb.setCapacityMemoryWeight(0.75);
        lb.setLoadCpuWeight(0.5);
        lb.setLoadMemoryWeight(0.2);
        lb.setLoadRequestWeight(0.3);
        assertThat(lb.getLoadRequestWeight()).isEqualTo(0.3);

        lb.checkSettings();

        assertThat(lb.state().config().capacityWeights().cpu()).isEqualTo(0.25);
        assertThat(lb.state().config().capacityWeights().memory()).isEqualTo(0.75);
        assertThat(lb.state().config().loadWeights().cpu()).isEqualTo(0.5);
        assertThat(lb.state().config().loadWeights().memory()).isEqualTo(0.2);
        assertThat(lb.state().config().loadWeights().requests()).isEqualTo(0.3);
    }

    /** A weight outside 0..1 is refused when set, before the start: only the sum waits for the others. */
    @Test
    void aWeightOutOfItsRangeIsRefusedWhenSet() {
        AdaptiveVirtualNodeLB lb = new AdaptiveVirtualNodeLB();
        assertThatThrownBy(() -> lb.setCapacityCpuWeight(1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacityCpuWeight must be in 0..1, was 1.5");
        assertThatThrownBy(() -> lb.setCapacityMemoryWeight(-0.5)).hasMessage("capacityMemoryWeight must be in 0..1, was -0.5");
        assertThatThrownBy(() -> lb.setLoadCpuWeight(-0.1)).hasMessage("loadCpuWeight must be in 0..1, was -0.1");
        assertThatThrownBy(() -> lb.setLoadMemoryWeight(Double.NaN)).hasMessage("loadMemoryWeight must be in 0..1, was NaN");
        assertThatThrownBy(() -> lb.setLoadRequestWeight(2)).hasMessage("loadRequestWeight must be in 0..1, was 2.0");
        assertThatThrownBy(() -> lb.setTotalVirtualNodes(50_000_000))
                .hasMessage("totalVirtualNodes must be <= 100000, was 50000000");
        lb.checkSettings();
        assertThat(lb.getLoadCpuWeight()).isEqualTo(AdaptiveVirtualNodesConfig.ofDefaults().loadWeights().cpu());
    }

    @Test
    void thePaperRuleDropsTheGuardsOnlyWhenSetToTrue() {
        AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();
        AdaptiveVirtualNodeLB guarded = new AdaptiveVirtualNodeLB();
        guarded.setPaperRule(false);
        guarded.checkSettings();
        assertThat(guarded.getCooldownWindows()).isEqualTo(defaults.cooldownWindows());
        assertThat(guarded.getSettleThreshold()).isEqualTo(defaults.settleThreshold());

        AdaptiveVirtualNodeLB paper = new AdaptiveVirtualNodeLB();
        paper.setPaperRule(true);
        paper.checkSettings();
        assertThat(paper.getCooldownWindows()).isZero();
        assertThat(paper.getSettleThreshold()).isEqualTo(paper.getImbalanceThreshold());
        assertThat(paper.getUtilizationSmoothing()).isEqualTo(1.0);
        assertThat(paper.getMaxMovesPerEvaluation()).isEqualTo(1);
    }
}
