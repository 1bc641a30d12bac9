package io.github.agentlb.core.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import io.github.agentlb.core.shared.HotKeyReplay.Figures;
import java.util.DoubleSummaryStatistics;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The {@code hotkey} scenario replayed ({@link HotKeyReplay}) over one {@code avn} balancer and over
 * two and three replicas sharing one allocation, timings (the agents' delay seeds) 1..40, against
 * the scenario's targets for the shared allocation: max/mean at most 0.02 above one instance's,
 * stickiness of the other users at most 0.01 below. What it shows: sharing costs nothing on
 * average (same timing), and a single run's comparison fails as often against a second one
 * instance as against the replicas, because one instance itself settles in one of a few
 * allocations depending on the timing; with a load index of request shares alone (no CPU or memory
 * reports) it settles in the same one every time. With the CPU kept but the memory term, which the
 * stub agents report alike (0.2 on every agent) and which only compresses S towards the settle
 * threshold, weighted to zero and two cooldown windows ({@code loadWeights(0.5, 0, 0.5)},
 * {@code cooldownWindows(2)}, existing knobs, not the defaults), one instance's max/mean no longer
 * depends on the timing (1.019-1.031 where the defaults give 1.044-1.131) and the replicas hold the
 * targets against another timing in 31 (two) and 37 (three) of 40. Printed to stdout ({@code mvn -q -B -o -pl
 * camel-lb-strategies test -Dtest=HotKeyReplayTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dmaven.test.redirectTestOutputToFile=false}).
 */
class HotKeyReplayTest {

    private static final int TIMINGS = 40;
    /** A second, independent timing: what another variant of the same live run gets. */
    private static final long OTHER_TIMING = 1000;

    private static boolean withinTargets(Figures candidate, Figures one) {
        double tolerance = 1e-9;
        return candidate.maxOverMean() - one.maxOverMean() <= 0.02 + tolerance
                && candidate.stickiness() - one.stickiness() >= -0.01 - tolerance;
    }

    private record Comparison(double maxOverMeanDelta, double stickinessDelta, int withinTargets) {

        String row(String name) {
            return String.format(Locale.ROOT, "| %s | %+.3f | %+.3f | %d of %d |", name, maxOverMeanDelta, stickinessDelta,
                    withinTargets, TIMINGS);
        }
    }

    /** {@code replicas} sharing (0: one balancer alone) on timing {@code t + offset} against one balancer on timing t. */
    private static Comparison compare(int replicas, long offset, AdaptiveVirtualNodesConfig config) throws Exception {
        double mm = 0;
        double st = 0;
        int within = 0;
        for (long t = 1; t <= TIMINGS; t++) {
            Figures one = HotKeyReplay.run(1, null, t, config);
            Figures other = replicas == 0 ? HotKeyReplay.run(1, null, t + offset, config)
                    : HotKeyReplay.run(replicas, HotKeyReplay.Store.LOOPBACK, t + offset, config);
            mm += other.maxOverMean() - one.maxOverMean();
            st += other.stickiness() - one.stickiness();
            within += withinTargets(other, one) ? 1 : 0;
        }
        return new Comparison(mm / TIMINGS, st / TIMINGS, within);
    }

    @Test
    void replicasSharingLoseNothingOnAverageAndASingleRunIsDecidedByOneInstancesOwnSpread() throws Exception {
        AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();
        Comparison two = compare(2, 0, defaults);
        Comparison three = compare(3, 0, defaults);
        Comparison oneAgain = compare(0, OTHER_TIMING, defaults);
        Comparison twoLive = compare(2, OTHER_TIMING, defaults);
        Comparison threeLive = compare(3, OTHER_TIMING, defaults);
        AdaptiveVirtualNodesConfig requestsOnly = AdaptiveVirtualNodesConfig.custom().loadWeights(0, 0, 1).build();
        Comparison oneAgainRequestsOnly = compare(0, OTHER_TIMING, requestsOnly);
        Comparison twoLiveRequestsOnly = compare(2, OTHER_TIMING, requestsOnly);
        Comparison threeLiveRequestsOnly = compare(3, OTHER_TIMING, requestsOnly);
        System.out.println("| against one instance (timings 1..40) | max/mean | stickiness (others) | runs within targets |");
        System.out.println(two.row("two sharing, same timing"));
        System.out.println(three.row("three sharing, same timing"));
        System.out.println(oneAgain.row("one instance, another timing"));
        System.out.println(twoLive.row("two sharing, another timing"));
        System.out.println(threeLive.row("three sharing, another timing"));
        System.out.println(oneAgainRequestsOnly.row("request shares only: one instance, another timing"));
        System.out.println(twoLiveRequestsOnly.row("request shares only: two sharing, another timing"));
        System.out.println(threeLiveRequestsOnly.row("request shares only: three sharing, another timing"));

        // Sharing costs nothing systematic: on the same timing, within a hundredth on average.
        assertThat(two.maxOverMeanDelta()).isBetween(-0.01, 0.01);
        assertThat(two.stickinessDelta()).isBetween(-0.005, 0.01);
        assertThat(three.maxOverMeanDelta()).isBetween(-0.01, 0.01);
        assertThat(three.stickinessDelta()).isBetween(-0.005, 0.01);
        // A live run compares variants of independent timings: one instance against itself holds
        // the shared allocation's targets in 16 of 40, the replicas about as often.
        assertThat(oneAgain.withinTargets()).isEqualTo(16);
        assertThat(twoLive.withinTargets()).isEqualTo(15);
        assertThat(threeLive.withinTargets()).isEqualTo(21);
        // The spread comes from the CPU and memory reports: on request shares alone every timing
        // settles alike, and what sharing itself costs shows: the leader evaluates a history that
        // lacks the followers' unshared positions, at its own count (98, 294, 490 requests where
        // one instance has 100, 300, 500), and an evaluation's number of moves turns on that.
        assertThat(oneAgainRequestsOnly.withinTargets()).isEqualTo(TIMINGS);
        assertThat(twoLiveRequestsOnly.withinTargets()).isEqualTo(10);
        assertThat(twoLiveRequestsOnly.stickinessDelta()).isLessThan(-0.01);
        assertThat(threeLiveRequestsOnly.withinTargets()).isEqualTo(18);
        assertThat(threeLiveRequestsOnly.stickinessDelta()).isLessThan(-0.01);
    }

    /**
     * The allocation one balancer would reach: on request shares alone (no report noise) one
     * instance settles alike in every timing, so two and three sharing replicas are compared with
     * one instance of the same timing. The target is the scenario's (within 0.02 max/mean and 0.01
     * stickiness) in at least 36 of 40 timings; today 10 and 21 of 40, the stickiness 0.019 and
     * 0.016 below on average. Asserted as measured, so that a change to the sharing shows here:
     * the leader evaluating on one count of its own requests and the followers' taken positions
     * (fix tried, not kept: 6 and 3 of 40) does not reach it.
     */
    @Test
    void onRequestSharesAloneReplicasSharingMissOneBalancerOfTheSameTiming() throws Exception {
        AdaptiveVirtualNodesConfig requestsOnly = AdaptiveVirtualNodesConfig.custom().loadWeights(0, 0, 1).build();
        Comparison two = compare(2, 0, requestsOnly);
        Comparison three = compare(3, 0, requestsOnly);
        System.out.println(two.row("request shares only: two sharing, same timing"));
        System.out.println(three.row("request shares only: three sharing, same timing"));

        assertThat(two.withinTargets()).isEqualTo(10);
        assertThat(two.stickinessDelta()).isLessThan(-0.01);
        assertThat(three.withinTargets()).isEqualTo(21);
        assertThat(three.stickinessDelta()).isLessThan(-0.01);
    }

    /** The spread of one instance's figures over timings 1..40: how far apart its allocations end. */
    private record Spread(double maxOverMeanLow, double maxOverMeanHigh, double stickinessLow, double stickinessHigh,
            double meanMaxOverMean, double meanStickiness) {

        static Spread of(AdaptiveVirtualNodesConfig config) throws Exception {
            DoubleSummaryStatistics mm = new DoubleSummaryStatistics();
            DoubleSummaryStatistics st = new DoubleSummaryStatistics();
            for (int t = 1; t <= TIMINGS; t++) {
                Figures one = HotKeyReplay.run(1, null, t, config);
                mm.accept(one.maxOverMean());
                st.accept(one.stickiness());
            }
            return new Spread(mm.getMin(), mm.getMax(), st.getMin(), st.getMax(), mm.getAverage(), st.getAverage());
        }

        String row(String name) {
            return String.format(Locale.ROOT, "| %s | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) |", name, meanMaxOverMean,
                    maxOverMeanLow, maxOverMeanHigh, meanStickiness, stickinessLow, stickinessHigh);
        }
    }

    /**
     * The report noise taken out of the decision: the stub agents all report memory 0.2, so eq. (3)'s
     * memory term adds the same 8 points to every agent's load index and only compresses S; with its
     * weight on CPU and request share instead ({@code loadWeights(0.5, 0, 0.5)}) and a second
     * cooldown window (the smoothed CPU the next moving evaluation judges by then averages three
     * windows of the new ring instead of two), one instance settles within a narrow band of
     * allocations, and the replicas hold the targets against one instance of another timing (what a
     * live run compares) in 31 of 40 timings with two, 37 with three.
     */
    @Test
    void withoutTheUniformMemoryTermAndTwoCooldownWindowsOneInstanceSettlesAlike() throws Exception {
        AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();
        AdaptiveVirtualNodesConfig robust = defaults.toBuilder().loadWeights(0.5, 0, 0.5).cooldownWindows(2).build();
        Spread defaultSpread = Spread.of(defaults);
        Spread robustSpread = Spread.of(robust);
        Comparison oneAgain = compare(0, OTHER_TIMING, robust);
        Comparison twoLive = compare(2, OTHER_TIMING, robust);
        Comparison threeLive = compare(3, OTHER_TIMING, robust);
        Comparison two = compare(2, 0, robust);
        Comparison three = compare(3, 0, robust);
        System.out.println("| one instance, timings 1..40 | max/mean: mean (range) | stickiness (others): mean (range) |");
        System.out.println(defaultSpread.row("defaults"));
        System.out.println(robustSpread.row("loadWeights(0.5, 0, 0.5), cooldownWindows(2)"));
        System.out.println(oneAgain.row("robust: one instance, another timing"));
        System.out.println(twoLive.row("robust: two sharing, another timing"));
        System.out.println(threeLive.row("robust: three sharing, another timing"));
        System.out.println(two.row("robust: two sharing, same timing"));
        System.out.println(three.row("robust: three sharing, same timing"));

        // Defaults: one instance ends 0.087 apart in max/mean by the timing (1.044 or 1.131).
        assertThat(defaultSpread.maxOverMeanLow()).isCloseTo(1.044, within(0.001));
        assertThat(defaultSpread.maxOverMeanHigh()).isCloseTo(1.131, within(0.001));
        // Without the uniform term and with two cooldown windows: 0.012 apart, and better on both figures.
        assertThat(robustSpread.maxOverMeanLow()).isCloseTo(1.019, within(0.001));
        assertThat(robustSpread.maxOverMeanHigh()).isCloseTo(1.031, within(0.001));
        assertThat(robustSpread.meanMaxOverMean()).isCloseTo(1.024, within(0.001));
        assertThat(robustSpread.meanStickiness()).isCloseTo(0.942, within(0.001));
        assertThat(defaultSpread.meanMaxOverMean()).isCloseTo(1.080, within(0.001));
        assertThat(defaultSpread.meanStickiness()).isCloseTo(0.911, within(0.001));
        // The stickiness still spreads (0.905-0.955): what misses are its runs.
        assertThat(robustSpread.stickinessLow()).isCloseTo(0.905, within(0.001));
        assertThat(robustSpread.stickinessHigh()).isCloseTo(0.955, within(0.001));
        assertThat(oneAgain.withinTargets()).isEqualTo(27);
        assertThat(twoLive.withinTargets()).isEqualTo(31);
        assertThat(threeLive.withinTargets()).isEqualTo(37);
        assertThat(two.withinTargets()).isEqualTo(34);
        assertThat(three.withinTargets()).isEqualTo(37);
    }

    @Test
    void theReplayIsDeterministicAndOneInstanceSettlesInOneOfTwoAllocationsByTheTiming() throws Exception {
        assertThat(HotKeyReplay.run(2, HotKeyReplay.Store.LOOPBACK, 7)).isEqualTo(
                HotKeyReplay.run(2, HotKeyReplay.Store.LOOPBACK, 7));
        // Timing 1: the evaluation at 5 s moves 10 nodes off the hot agent; timing 4: 7.
        Figures timing1 = HotKeyReplay.run(1, null, 1);
        Figures timing4 = HotKeyReplay.run(1, null, 4);
        assertThat(timing1.virtualNodes()).containsExactlyEntriesOf(new java.util.TreeMap<>(
                java.util.Map.of("A1", 31, "A2", 56, "A3", 63)));
        assertThat(timing1.maxOverMean()).isCloseTo(1.044, within(0.001));
        assertThat(timing1.stickiness()).isCloseTo(0.890, within(0.001));
        assertThat(timing4.virtualNodes()).containsExactlyEntriesOf(new java.util.TreeMap<>(
                java.util.Map.of("A1", 34, "A2", 55, "A3", 61)));
        assertThat(timing4.maxOverMean()).isCloseTo(1.115, within(0.001));
        assertThat(timing4.stickiness()).isCloseTo(0.945, within(0.001));
    }
}
