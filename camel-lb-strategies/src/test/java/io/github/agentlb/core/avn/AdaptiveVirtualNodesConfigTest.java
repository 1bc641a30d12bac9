package io.github.agentlb.core.avn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.hash.HashAlgorithm;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every setting at the edge of its range, and {@code toBuilder} copying every field. */
class AdaptiveVirtualNodesConfigTest {

    private static AdaptiveVirtualNodesConfig everyFieldSet() {
        return AdaptiveVirtualNodesConfig.custom().capacityWeights(0.25, 0.75).loadWeights(0.5, 0.25, 0.25)
                .totalVirtualNodes(30).imbalanceThreshold(0.2).settleThreshold(0.05).cooldownWindows(3)
                .utilizationSmoothing(0.75).maxMovesPerEvaluation(4).evaluationWindow(50).historySize(500)
                .reportExpiry(Duration.ofSeconds(2)).hashFunction(HashAlgorithm.MD5).build();
    }

    @Test
    void everySetterIsKeptAndToBuilderCopiesEveryField() {
        AdaptiveVirtualNodesConfig c = everyFieldSet();

        assertThat(new double[] {c.capacityWeights().cpu(), c.capacityWeights().memory(), c.loadWeights().cpu(),
                c.loadWeights().memory(), c.loadWeights().requests(), c.imbalanceThreshold(), c.settleThreshold(),
                c.utilizationSmoothing()}).containsExactly(0.25, 0.75, 0.5, 0.25, 0.25, 0.2, 0.05, 0.75);
        assertThat(new int[] {c.totalVirtualNodes(), c.cooldownWindows(), c.maxMovesPerEvaluation(),
                c.evaluationWindow(), c.historySize()}).containsExactly(30, 3, 4, 50, 500);
        assertThat(c.reportExpiry()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.hashFunction()).isEqualTo(HashAlgorithm.MD5);
        assertThat(c.toString()).isEqualTo("AdaptiveVirtualNodesConfig[a_c=0.25, a_m=0.75, b_c=0.5, b_m=0.25,"
                + " b_t=0.25, N=30, threshold=0.2, settleThreshold=0.05, cooldownWindows=3, utilizationSmoothing=0.75,"
                + " maxMovesPerEvaluation=4, evaluationWindow=50, historySize=500, reportExpiry=PT2S, hash="
                + HashAlgorithm.MD5 + "]");
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
    }

    @Test
    void toBuilderKeepsAResolvedSettleThresholdWhenTheThresholdChangesLater() {
        AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();

        // 0.7 x 0.1 was resolved; raising the threshold afterwards keeps it rather than rescaling it
        assertThat(defaults.toBuilder().imbalanceThreshold(0.5).build().settleThreshold())
                .isEqualTo(defaults.settleThreshold());
    }

    @Test
    void theEdgesOfEveryRangeAreAccepted() {
        AdaptiveVirtualNodesConfig c = AdaptiveVirtualNodesConfig.custom().capacityWeights(0, 1).loadWeights(1, 0, 0)
                .totalVirtualNodes(1).imbalanceThreshold(Math.nextDown(1.0)).settleThreshold(Math.nextDown(1.0))
                .cooldownWindows(0).utilizationSmoothing(1).maxMovesPerEvaluation(1).evaluationWindow(1)
                .historySize(1).reportExpiry(Duration.ofNanos(1)).build();

        assertThat(c.capacityWeights().cpu()).isZero();
        assertThat(c.capacityWeights().memory()).isEqualTo(1.0);
        assertThat(c.loadWeights().cpu()).isEqualTo(1.0);
        assertThat(c.totalVirtualNodes()).isEqualTo(1);
        assertThat(c.settleThreshold()).isEqualTo(c.imbalanceThreshold());
        assertThat(c.cooldownWindows()).isZero();
        assertThat(c.utilizationSmoothing()).isEqualTo(1.0);
        assertThat(c.maxMovesPerEvaluation()).isEqualTo(1);
        assertThat(c.evaluationWindow()).isEqualTo(1);
        assertThat(c.historySize()).isEqualTo(1);
        assertThat(c.reportExpiry()).isEqualTo(Duration.ofNanos(1));
        assertThat(AdaptiveVirtualNodesConfig.custom().imbalanceThreshold(Double.MIN_VALUE)
                .settleThreshold(Double.MIN_VALUE).build().imbalanceThreshold()).isEqualTo(Double.MIN_VALUE);
        assertThat(AdaptiveVirtualNodesConfig.custom().loadWeights(0, 1, 0).build().loadWeights().memory()).isEqualTo(1.0);
        assertThat(AdaptiveVirtualNodesConfig.custom().loadWeights(0, 0, 1).build().loadWeights().requests()).isEqualTo(1.0);
    }

    @Test
    void justOutsideEveryRangeIsRejectedNamingFieldAndValue() {
        var b = AdaptiveVirtualNodesConfig.custom();

        assertThatThrownBy(() -> b.capacityWeights(1.1, -0.1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacityCpuWeight must be in [0, 1], was 1.1");
        assertThatThrownBy(() -> b.capacityWeights(0.5, 1.5)).hasMessage("capacityMemoryWeight must be in [0, 1], was 1.5");
        assertThatThrownBy(() -> b.capacityWeights(0.5, 0.5 - 1e-8))
                .hasMessageStartingWith("capacityCpuWeight + capacityMemoryWeight must be 1, was 0.5 + 0.4999999");
        assertThatThrownBy(() -> b.loadWeights(-0.5, 1, 0.5)).hasMessage("loadCpuWeight must be in [0, 1], was -0.5");
        assertThatThrownBy(() -> b.loadWeights(0, 0, 1.5)).hasMessage("loadRequestWeight must be in [0, 1], was 1.5");
        assertThatThrownBy(() -> b.loadWeights(0.5, 0.25, 0.25 - 1e-8)).hasMessageStartingWith(
                "loadCpuWeight + loadMemoryWeight + loadRequestWeight must be 1, was 0.5 + 0.25 + 0.2499999");
        assertThatThrownBy(() -> b.settleThreshold(1)).hasMessage("settleThreshold must be in (0, 1), was 1.0");
        assertThatThrownBy(() -> b.settleThreshold(Double.NaN)).hasMessage("settleThreshold must be in (0, 1), was NaN");
        assertThatThrownBy(() -> b.imbalanceThreshold(Double.NaN)).hasMessage("imbalanceThreshold must be in (0, 1), was NaN");
        assertThatThrownBy(() -> b.hashFunction((io.github.agentlb.core.hash.HashFunction) null))
                .isInstanceOf(NullPointerException.class).hasMessage("hashFunction");
        assertThatThrownBy(() -> AdaptiveVirtualNodesConfig.custom().imbalanceThreshold(0.2)
                .settleThreshold(Math.nextUp(0.2)).build())
                .hasMessage("settleThreshold must be <= imbalanceThreshold (0.2), was 0.20000000000000004");
    }

    @Test
    void theCanonicalConstructorChecksAsTheSettersDo() {
        AdaptiveVirtualNodesConfig d = AdaptiveVirtualNodesConfig.ofDefaults();

        assertThatThrownBy(() -> new AdaptiveVirtualNodesConfig(d.capacityWeights(), d.loadWeights(), d.totalVirtualNodes(),
                d.hysteresis(), 0, d.maxMovesPerEvaluation(), d.evaluationWindow(), d.historySize(), d.reportExpiry(),
                d.hashFunction())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("utilizationSmoothing must be in (0, 1], was 0.0");
        assertThat(new AdaptiveVirtualNodesConfig(d.capacityWeights(), d.loadWeights(), d.totalVirtualNodes(),
                d.hysteresis(), d.utilizationSmoothing(), d.maxMovesPerEvaluation(), d.evaluationWindow(),
                d.historySize(), d.reportExpiry(), d.hashFunction())).isEqualTo(d);
    }
}
