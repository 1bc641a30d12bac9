package io.github.agentlb.core.health;

import static io.github.agentlb.core.health.OutlierDetector.Admission.AVAILABLE;
import static io.github.agentlb.core.health.OutlierDetector.Admission.EJECTED;
import static io.github.agentlb.core.health.OutlierDetector.Admission.TRIAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OutlierDetectorTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);

    private OutlierDetector detector(OutlierEjection config, String... agents) {
        OutlierDetector detector = new OutlierDetector(config, clock::get);
        detector.setAgents(List.of(agents));
        return detector;
    }

    @Test
    void fiveErrorAnswersInARowEjectAndAnAnswerSentBeforeTheEjectionDoesNotReadmit() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2", "A3");
        for (int i = 0; i < 4; i++) {
            assertThat(d.onErrorAnswer("A1")).isNull();
        }
        assertThat(d.onSuccess("A1", false)).as("a success resets the count").isFalse();
        for (int i = 0; i < 4; i++) {
            assertThat(d.onErrorAnswer("A1")).isNull();
        }
        assertThat(d.onErrorAnswer("A1")).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.ejected()).containsExactly("A1");
        assertThat(d.onSuccess("A1", false)).as("a slow answer to a request sent before the ejection").isFalse();
        assertThat(d.ejected()).containsExactly("A1");
        clock.addAndGet(10 * SECOND);
        assertThat(d.admit("A1")).isEqualTo(OutlierDetector.Admission.TRIAL);
        assertThat(d.onErrorAnswer("A1")).as("an error answer on trial ejects again, doubled").isEqualTo(Duration.ofSeconds(20));
        clock.addAndGet(20 * SECOND);
        assertThat(d.admit("A1")).isEqualTo(OutlierDetector.Admission.TRIAL);
        assertThat(d.onSuccess("A1", true)).isTrue();
        assertThat(d.ejected()).isEmpty();
        OutlierDetector off = detector(OutlierEjection.custom().consecutiveErrorAnswers(0).build(), "A1", "A2");
        for (int i = 0; i < 10; i++) {
            assertThat(off.onErrorAnswer("A1")).isNull();
        }
    }

    @Test
    void threeHedgedRacesLostInARowEjectAnAnswerInBetweenResetsTheCountAndOneLostOnTrialEjectsAgain() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2", "A3");
        assertThat(d.onHedgeLost("A1", 3)).isNull();
        assertThat(d.onHedgeLost("A1", 3)).isNull();
        assertThat(d.onSuccess("A1", false)).as("an answer resets the count").isFalse();
        assertThat(d.onHedgeLost("A1", 3)).isNull();
        assertThat(d.onHedgeLost("A1", 3)).isNull();
        assertThat(d.onFailure("A2")).as("counted apart from failures").isEqualTo(Duration.ofSeconds(10));
        assertThat(d.onHedgeLost("A1", 3)).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.ejected()).containsExactly("A1", "A2");
        clock.addAndGet(10 * SECOND);
        assertThat(d.admit("A1")).isEqualTo(TRIAL);
        assertThat(d.onHedgeLost("A1", 3)).as("one lost on trial ejects again, doubled").isEqualTo(Duration.ofSeconds(20));
        assertThat(detector(OutlierEjection.disabled(), "A1", "A2").onHedgeLost("A1", 1)).as("ejection off").isNull();
    }

    @Test
    void oneFailureEjectsForTenSecondsByDefaultThenOneTrialReadmits() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2", "A3");
        assertThat(d.hasEjections()).isFalse();

        assertThat(d.onFailure("A1")).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.hasEjections()).isTrue();
        assertThat(d.ejected()).containsExactly("A1");
        assertThat(d.admit("A1")).isEqualTo(EJECTED);
        assertThat(d.admit("A2")).isEqualTo(AVAILABLE);
        assertThat(d.remainingNanos("A1")).isEqualTo(10 * SECOND);

        clock.addAndGet(10 * SECOND - 1);
        assertThat(d.admit("A1")).isEqualTo(EJECTED);
        clock.addAndGet(1);
        assertThat(d.admit("A1")).isEqualTo(TRIAL);
        assertThat(d.admit("A1")).as("one trial at a time").isEqualTo(EJECTED);
        assertThat(d.onSuccess("A1")).isTrue();
        assertThat(d.hasEjections()).isFalse();
        assertThat(d.admit("A1")).isEqualTo(AVAILABLE);
    }

    @Test
    void hasAnAgentToTryUntilEveryAgentIsFailingAndAgainOnceABaseEjectionTimeHasPassed() {
        OutlierDetector none = detector(OutlierEjection.ofDefaults());
        assertThat(none.hasAgentToTry()).as("no agent").isFalse();

        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2", "A3");
        assertThat(d.hasAgentToTry()).isTrue();
        d.onFailure("A1");
        d.onFailure("A2");
        assertThat(d.hasAgentToTry()).as("A3 is healthy").isTrue();
        clock.addAndGet(2 * SECOND);
        // The cap keeps A3 in: it is not ejected, but it is failing.
        assertThat(d.onFailure("A3")).isNull();
        assertThat(d.ejected()).containsExactly("A1", "A2");
        assertThat(d.hasAgentToTry()).isFalse();

        // A1 and A2 were ejected for 10 s two seconds before A3's failure: their time is up first.
        clock.addAndGet(8 * SECOND - 1);
        assertThat(d.hasAgentToTry()).isFalse();
        clock.addAndGet(1);
        assertThat(d.hasAgentToTry()).isTrue();
        assertThat(d.admit("A1")).isEqualTo(TRIAL);
        assertThat(d.hasAgentToTry()).as("A1 on trial").isTrue();
        d.onFailure("A1");
        d.onFailure("A2");
        assertThat(d.admit("A2")).isEqualTo(TRIAL);
        d.onFailure("A2");
        assertThat(d.hasAgentToTry()).as("A1 and A2 ejected again, A3 failed 8 s ago").isFalse();

        // A3, never ejected, counts again one base ejection time after its last failure.
        clock.addAndGet(2 * SECOND - 1);
        assertThat(d.hasAgentToTry()).isFalse();
        clock.addAndGet(1);
        assertThat(d.hasAgentToTry()).isTrue();
    }

    @Test
    void aSingleAgentIsNeverEjectedButCountsAsFailingForABaseEjectionTime() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1");
        assertThat(d.onFailure("A1")).isNull();
        assertThat(d.ejected()).isEmpty();
        assertThat(d.hasAgentToTry()).isFalse();
        clock.addAndGet(10 * SECOND);
        assertThat(d.hasAgentToTry()).isTrue();
        d.onFailure("A1");
        assertThat(d.hasAgentToTry()).isFalse();
        d.onSuccess("A1");
        assertThat(d.hasAgentToTry()).as("an answer clears it at once").isTrue();

        OutlierDetector disabled = detector(OutlierEjection.disabled(), "A1");
        disabled.onFailure("A1");
        assertThat(disabled.hasAgentToTry()).as("ejection disabled: no signal").isTrue();
    }

    @Test
    void aFailedTrialDoublesTheEjectionUpToTheCap() {
        OutlierDetector d = detector(OutlierEjection.custom().baseEjectionTime(Duration.ofSeconds(10))
                .maxEjectionTime(Duration.ofSeconds(35)).build(), "A1", "A2");
        assertThat(d.onFailure("A1")).isEqualTo(Duration.ofSeconds(10));
        long[] expected = {20, 35, 35};
        for (long seconds : expected) {
            clock.addAndGet(d.remainingNanos("A1"));
            assertThat(d.admit("A1")).isEqualTo(TRIAL);
            assertThat(d.onFailure("A1")).isEqualTo(Duration.ofSeconds(seconds));
        }
    }

    @Test
    void consecutiveFailuresCountAndASuccessResetsThem() {
        OutlierDetector d = detector(OutlierEjection.custom().consecutiveFailures(3).build(), "A1", "A2");
        assertThat(d.onFailure("A1")).isNull();
        assertThat(d.onFailure("A1")).isNull();
        assertThat(d.onSuccess("A1")).isFalse();
        assertThat(d.onFailure("A1")).isNull();
        assertThat(d.onFailure("A1")).isNull();
        assertThat(d.onFailure("A1")).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void healthyTimeForgetsOneDoublingPerBaseEjectionTime() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2");
        d.onFailure("A1");
        clock.addAndGet(10 * SECOND);
        d.admit("A1");
        d.onFailure("A1"); // 20 s
        clock.addAndGet(20 * SECOND);
        d.admit("A1");
        d.onSuccess("A1"); // level 2 kept
        clock.addAndGet(10 * SECOND); // forgets one level
        assertThat(d.onFailure("A1")).isEqualTo(Duration.ofSeconds(20));
        clock.addAndGet(20 * SECOND);
        d.admit("A1");
        d.onSuccess("A1");
        clock.addAndGet(100 * SECOND); // forgets everything
        assertThat(d.onFailure("A1")).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void neverEjectsTheLastAgentNorMoreThanTheShare() {
        OutlierDetector all = detector(OutlierEjection.ofDefaults(), "A1", "A2", "A3");
        assertThat(all.onFailure("A1")).isNotNull();
        assertThat(all.onFailure("A2")).isNotNull();
        assertThat(all.onFailure("A3")).as("the last agent").isNull();
        assertThat(all.ejected()).containsExactly("A1", "A2");

        OutlierDetector half = detector(OutlierEjection.custom().maxEjectedShare(0.5).build(), "A1", "A2", "A3", "A4");
        assertThat(half.onFailure("A1")).isNotNull();
        assertThat(half.onFailure("A2")).isNotNull();
        assertThat(half.onFailure("A3")).isNull();
        assertThat(half.ejected()).containsExactly("A1", "A2");

        OutlierDetector single = detector(OutlierEjection.ofDefaults(), "A1");
        assertThat(single.onFailure("A1")).isNull();

        OutlierDetector off = detector(OutlierEjection.disabled(), "A1", "A2");
        assertThat(off.onFailure("A1")).isNull();
        assertThat(off.hasEjections()).isFalse();
    }

    @Test
    void anAnswerFromAnEjectedAgentTriedAsLastResortReadmitsIt() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2");
        d.onFailure("A1");
        assertThat(d.onFailure("A1")).as("already ejected").isNull();
        assertThat(d.onSuccess("A1")).isTrue();
        assertThat(d.ejected()).isEmpty();
    }

    @Test
    void aTrialWhoseOutcomeNeverCameIsHandedOutAgainAfterOneBaseTime() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2");
        d.onFailure("A1");
        clock.addAndGet(10 * SECOND);
        assertThat(d.admit("A1")).isEqualTo(TRIAL);
        clock.addAndGet(10 * SECOND - 1);
        assertThat(d.admit("A1")).isEqualTo(EJECTED);
        clock.addAndGet(1);
        assertThat(d.admit("A1")).isEqualTo(TRIAL);
    }

    @Test
    void membershipChangesKeepSurvivorsStateAndForgetTheRemoved() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2", "A3");
        d.onFailure("A1");
        d.setAgents(List.of("A1", "A3", "A4"));
        assertThat(d.ejected()).containsExactly("A1");
        d.setAgents(List.of("A3", "A4"));
        assertThat(d.hasEjections()).isFalse();
        assertThat(d.onFailure("A1")).as("unknown agent").isNull();
        assertThat(d.admit("A1")).isEqualTo(AVAILABLE);
    }

    @Test
    void configurationIsValidatedNamingFieldAndValue() {
        assertThatThrownBy(() -> OutlierEjection.custom().consecutiveFailures(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("consecutiveFailures must be >= 1, was 0");
        assertThatThrownBy(() -> OutlierEjection.custom().baseEjectionTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("baseEjectionTime must be > 0, was PT0S");
        assertThatThrownBy(() -> OutlierEjection.custom().maxEjectedShare(1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxEjectedShare must be in 0..1, was 1.5");
        assertThatThrownBy(() -> OutlierEjection.custom().baseEjectionTime(Duration.ofSeconds(20))
                .maxEjectionTime(Duration.ofSeconds(10)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEjectionTime must be >= baseEjectionTime (PT20S), was PT10S");
        assertThat(OutlierEjection.ofDefaults().toBuilder().build()).isEqualTo(OutlierEjection.ofDefaults());
        assertThat(OutlierEjection.ofDefaults().maxEjected(3)).isEqualTo(2);
        assertThat(OutlierEjection.custom().maxEjectedShare(0.1).build().maxEjected(30)).isEqualTo(3);
    }

    @Test
    void anEjectionWhoseDoublingOverflowsLastsTheLongestEjectionTime() {
        // base 2^34 ns: the 30th doubling shifts every bit out, the 29th into the sign bit.
        Duration base = Duration.ofNanos(1L << 34);
        Duration longest = Duration.ofNanos(1L << 40);
        OutlierDetector d = detector(OutlierEjection.custom().baseEjectionTime(base).maxEjectionTime(longest).build(),
                "A1", "A2");
        assertThat(d.onFailure("A1")).isEqualTo(base);
        for (int level = 1; level <= 35; level++) {
            clock.addAndGet(d.remainingNanos("A1"));
            assertThat(d.admit("A1")).isEqualTo(TRIAL);
            Duration expected = level < 6 ? Duration.ofNanos(1L << (34 + level)) : longest;
            assertThat(d.onFailure("A1")).as("ejection %d", level + 1).isEqualTo(expected);
        }
    }

    @Test
    void anAgentMarkedDownIsEjectedWithoutTrialOrCapUntilMarkedUpWhichAlsoEndsAPassiveEjection() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2");
        assertThat(d.markDown("A1", true)).isTrue();
        assertThat(d.markDown("A1", true)).as("the same mark").isFalse();
        assertThat(d.markDown("A2", true)).as("no cap: the last agent too").isTrue();
        assertThat(d.hasEjections()).isTrue();
        assertThat(d.ejected()).containsExactly("A1", "A2");
        clock.addAndGet(3_600 * SECOND);
        assertThat(d.admit("A1")).as("no trial while marked down").isEqualTo(EJECTED);
        assertThat(d.isMarkedDown("A1")).isTrue();
        assertThat(d.hasAgentToTry()).isFalse();
        d.setAgents(List.of("A1", "A2", "A3"));
        assertThat(d.isMarkedDown("A1")).as("kept across member changes").isTrue();
        assertThat(d.onFailure("A2")).as("a passive ejection besides the mark").isNotNull();
        assertThat(d.markDown("A2", false)).isTrue();
        assertThat(d.admit("A2")).isEqualTo(AVAILABLE);
        assertThat(d.ejected()).containsExactly("A1");
        assertThat(d.markDown("A1", false)).isTrue();
        assertThat(d.hasEjections()).isFalse();
        assertThat(d.markDown("unknown", true)).isFalse();
    }

    /**
     * A call that fails or answers an error after its agent was ejected, re-admitted, marked down or up
     * since it was sent says nothing of the agent now (as an answer sent before an ejection does not
     * re-admit): a hung spell's calls timing out after the agent came back leave it in, and a stale
     * failure during a trial neither ends the trial nor ejects; a call sent since counts as before.
     */
    @Test
    void aCallSentBeforeItsAgentsLastChangeOfStandingNeitherEjectsNorEndsATrial() {
        OutlierDetector d = detector(OutlierEjection.ofDefaults(), "A1", "A2", "A3");
        long hungSpell = d.generation();
        assertThat(d.onFailure("A1", hungSpell)).isEqualTo(Duration.ofSeconds(10));
        clock.addAndGet(10 * SECOND);
        assertThat(d.admit("A1")).isEqualTo(TRIAL);
        assertThat(d.onFailure("A1", hungSpell)).as("a call of the hung spell times out during the trial").isNull();
        assertThat(d.ejected()).containsExactly("A1");
        assertThat(d.admit("A1")).as("the trial is still out").isEqualTo(EJECTED);
        long duringTrial = d.generation();
        assertThat(d.onSuccess("A1", true)).isTrue();
        assertThat(d.onFailure("A1", hungSpell)).as("after the re-admission").isNull();
        assertThat(d.onFailure("A1", duringTrial)).as("sent during the trial").isNull();
        assertThat(d.ejected()).isEmpty();
        assertThat(d.hasAgentToTry()).isTrue();

        long beforeMarks = d.generation();
        assertThat(d.markDown("A2", true)).isTrue();
        long whileDown = d.generation();
        assertThat(d.markDown("A2", false)).isTrue();
        assertThat(d.onFailure("A2", beforeMarks)).as("sent before the mark-down").isNull();
        assertThat(d.onFailure("A2", whileDown)).as("sent while marked down").isNull();
        for (int i = 0; i < 5; i++) {
            assertThat(d.onErrorAnswer("A2", beforeMarks)).isNull();
        }
        assertThat(d.ejected()).isEmpty();
        assertThat(d.onFailure("A2", d.generation())).as("sent since").isEqualTo(Duration.ofSeconds(10));
        assertThat(d.onFailure("A3")).as("without a generation: sent now").isEqualTo(Duration.ofSeconds(10));
        assertThat(d.ejected()).containsExactly("A2", "A3");
    }
}
