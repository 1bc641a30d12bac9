package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A run's changes by request count: a fault switched at a third and at two thirds, a fleet changed at each quarter. */
class ChangesTest {

    private final AtomicLong clock = new AtomicLong();
    private final List<String> calls = new ArrayList<>();
    private int started;

    /** Records the call with the request count it came at; takes 7 ns on the clock; the phase begins after it. */
    private Changes.Change change(String label, int atRequest) {
        return new Changes.Change(label, atRequest, false, () -> {
            calls.add(label + " at " + started);
            return clock.addAndGet(7);
        });
    }

    private void start(Changes changes, int from, int to, long nanosPerRequest) {
        for (started = from; started <= to; started++) {
            clock.set(started * nanosPerRequest);
            changes.accept(started);
        }
    }

    @Test
    void theChangesComeJustBeforeRequestsAThirdOrAQuarterIn() {
        assertThat(Changes.atRequest(0, 4, 1200)).isEqualTo(1);
        assertThat(Changes.atRequest(1, 4, 1200)).isEqualTo(301);
        assertThat(Changes.atRequest(2, 4, 1200)).isEqualTo(601);
        assertThat(Changes.atRequest(3, 4, 1200)).isEqualTo(901);
        assertThat(Changes.atRequest(3, 4, 7)).isEqualTo(6); // 3 * 7 / 4 + 1
        assertThat(Changes.atRequest(1, 3, 9)).isEqualTo(4);
        assertThatThrownBy(() -> Changes.atRequest(1, 4, 3)).hasMessage("requests must be >= 4 for 4 phases, was 3");
        assertThatThrownBy(() -> Changes.atRequest(1, 3, 2)).hasMessage("requests must be >= 3 for 3 phases, was 2");
    }

    @Test
    void aSwitchTurnsA1BadAtAThirdAndBackAtTwoThirdsStampedOnTheRunsClock() throws Exception {
        try (Changes changes = new Changes(List.of(change("on", Changes.atRequest(1, 3, 9)),
                change("off", Changes.atRequest(2, 3, 9))), clock::get)) {
            assertThatThrownBy(changes::await).hasMessageContaining("request 4");
            start(changes, 1, 9, 10);
            assertThat(calls).containsExactly("on at 4", "off at 7");
            assertThat(changes.await()).containsExactly(new Changes.Made(40, 47), new Changes.Made(70, 77));
        }
    }

    @Test
    void eachFleetChangeIsMadeOnceJustBeforeItsRequestAndStampedAroundTheCall() throws Exception {
        try (Changes changes = new Changes(List.of(change("join", 301), change("drain", 601),
                change("return", 901)), clock::get)) {
            start(changes, 1, 1200, 1_000);
            assertThat(calls).containsExactly("join at 301", "drain at 601", "return at 901");
            assertThat(changes.await().get(0)).isEqualTo(new Changes.Made(301_000L, 301_007L));
            assertThat(changes.await().get(2)).isEqualTo(new Changes.Made(901_000L, 901_007L));
        }
    }

    @Test
    void aRunThatEndsBeforeEveryChangeIsAnError() {
        try (Changes changes = new Changes(List.of(change("join", 301), change("return", 901)),
                clock::get)) {
            start(changes, 1, 700, 1_000);
            assertThatThrownBy(changes::await).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the run ended before request 901");
        }
    }

    @Test
    void aRejectedChangeIsRethrownLaterNotIntoTheLoad() {
        try (Changes changes = new Changes(List.of(new Changes.Change("join", 3, false, () -> {
            throw new IllegalArgumentException("agent 'A4' is already a member");
        })), clock::get)) {
            start(changes, 1, 8, 1);
            assertThatThrownBy(changes::await).hasMessage("agent 'A4' is already a member");
        }
    }

    @Test
    void aChangeOnTheControllerThreadDoesNotHoldTheLoad() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Changes changes = new Changes(List.of(new Changes.Change("kill", 2, true, () -> {
            release.await();
            return 5;
        })), clock::get)) {
            start(changes, 1, 3, 0);
            release.countDown();
            assertThat(changes.await()).containsExactly(new Changes.Made(0, 5));
        }
    }

    @Test
    void theFaultIsStampedBeforeA1AnswersItAndItsEndAfterA1AnswersNormally() throws Exception {
        // Each switch takes 5 ns of the run's clock: A1's first fault answer can come at once.
        try (Changes changes = new Changes(List.of(
                new Changes.Change("A1 429", 4, false, Changes.before(clock::get, () -> clock.addAndGet(5))),
                new Changes.Change("A1 normal", 7, false, Changes.now(clock::get, () -> clock.addAndGet(5)))),
                clock::get)) {
            start(changes, 1, 9, 10);

            assertThat(changes.await()).extracting(Changes.Made::startNanos)
                    .as("read before A1 answers its fault, after A1 answers normally again").containsExactly(40L, 75L);
        }
    }
}
