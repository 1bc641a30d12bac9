package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Candidate orders: the first pick, then draws from the schedule, then the sweep; round-robin's rotation. */
class CandidatesTest {

    private static List<String> drain(Iterator<String> iterator) {
        List<String> out = new ArrayList<>();
        while (iterator.hasNext()) {
            out.add(iterator.next());
        }
        return out;
    }

    @Test
    void theFirstThenExactlyDrawsPicksThenTheSweep() {
        AtomicInteger picks = new AtomicInteger();
        Iterator<String> order = Candidates.drawing("b", () -> "d" + picks.incrementAndGet(), 2,
                List.of("a", "b", "c").iterator());
        assertThat(picks.get()).as("lazy").isZero();
        assertThat(drain(order)).containsExactly("b", "d1", "d2", "a", "b", "c");
        assertThat(picks.get()).isEqualTo(2);
        assertThat(order.hasNext()).isFalse();
        assertThatThrownBy(order::next).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void withNoDrawsAndAnEmptySweepOnlyTheFirstIsOffered() {
        Iterator<String> order = Candidates.drawing("a", () -> {
            throw new AssertionError("no draw expected");
        }, 0, List.<String>of().iterator());
        assertThat(order.hasNext()).isTrue();
        assertThat(order.next()).isEqualTo("a");
        assertThat(order.hasNext()).isFalse();
        assertThatThrownBy(order::next).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void roundRobinsFailoverOrderIsTheRotationFromTheChosenAgent() {
        List<String> agents = List.of("a", "b", "c");
        assertThat(drain(RoundRobinStrategy.rotationFrom(0, agents))).containsExactly("a", "b", "c");
        assertThat(drain(RoundRobinStrategy.rotationFrom(2, agents))).containsExactly("c", "a", "b");
        Iterator<String> one = RoundRobinStrategy.rotationFrom(0, List.of("a"));
        assertThat(one.next()).isEqualTo("a");
        assertThatThrownBy(one::next).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void aRoundRobinPickerOverNoAgentsOffersNone() {
        Picker picker = new RoundRobinStrategy().newPicker(BalancerState.EMPTY);
        assertThat(drain(picker.select(null).candidates())).isEmpty();
    }

    @Test
    void aSelectionHasATokenOnlyWhenThePickerGaveOne() {
        Iterator<String> none = java.util.Collections.emptyIterator();
        Selection withToken = new Selection(none, null, 0.5, 42);
        assertThat(withToken.hasToken()).isTrue();
        assertThat(withToken.token()).isEqualTo(42);
        assertThat(new Selection(none, null, 0.5).hasToken()).isFalse();
        assertThat(Selection.of(none).detail().get()).isEmpty();
    }

    @Test
    void keysNextToEachOtherOnTheRingRankApartWithinZeroToOne() {
        java.util.Set<Double> ranks = new java.util.HashSet<>();
        for (long position = 1; position <= 1000; position++) {
            double rank = Selection.rankOf(position);
            assertThat(rank).as("position %d", position).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
            ranks.add(rank);
        }
        assertThat(ranks).hasSize(1000);
        assertThat(ranks.stream().mapToDouble(Double::doubleValue).average().orElseThrow()).isBetween(0.4, 0.6);
    }
}
