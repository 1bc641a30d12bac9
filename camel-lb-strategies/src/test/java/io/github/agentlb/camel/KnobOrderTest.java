package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A YAML bean's or {@code camel.beans.*} properties are bound in an order of Camel's choosing (by
 * name), not the file's: what a balancer ends up with must not depend on the order its knobs are
 * set in. A feature switched off by name ({@code hedgingEnabled: false}, {@code balanceFactor: 0})
 * stays off whichever of its value knobs comes after; a preset ({@code paperRule}) leaves the knobs
 * set by name as they were set.
 */
class KnobOrderTest {

    /** Every order of {@code knobs} on a new balancer of {@code type}, each then read by {@code read}. */
    @SafeVarargs
    private static <B extends AgentLoadBalancerSupport> List<Object> inEveryOrder(java.util.function.Supplier<B> type,
            java.util.function.Function<B, Object> read, Consumer<B>... knobs) {
        List<Object> results = new java.util.ArrayList<>();
        for (List<Consumer<B>> order : permutations(List.of(knobs))) {
            B lb = type.get();
            order.forEach(k -> k.accept(lb));
            lb.checkSettings();
            results.add(read.apply(lb));
        }
        return results;
    }

    private static <T> List<List<T>> permutations(List<T> items) {
        if (items.size() <= 1) {
            return List.of(items);
        }
        List<List<T>> all = new java.util.ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            List<T> rest = new java.util.ArrayList<>(items);
            T first = rest.remove(i);
            for (List<T> tail : permutations(rest)) {
                List<T> one = new java.util.ArrayList<>();
                one.add(first);
                one.addAll(tail);
                all.add(one);
            }
        }
        return all;
    }

    @Test
    void hedgingSwitchedOffByNameStaysOffWhateverItsOtherKnobs() {
        assertThat(inEveryOrder(RoundRobinLB::new, RoundRobinLB::isHedgingEnabled, lb -> lb.setHedgingEnabled(false),
                lb -> lb.setMaxHedges(2), lb -> lb.setHedgeDelay(Duration.ofMillis(200)))).containsOnly(false);
        assertThat(inEveryOrder(RoundRobinLB::new, RoundRobinLB::getMaxHedges, lb -> lb.setHedgingEnabled(false),
                lb -> lb.setMaxHedges(2))).containsOnly(2);
        assertThat(inEveryOrder(RoundRobinLB::new, RoundRobinLB::isHedgingEnabled,
                lb -> lb.setMaxHedges(2))).as("a value knob alone turns it on").containsOnly(true);
    }

    @Test
    void theRetryBudgetSwitchedOffByNameStaysOff() {
        assertThat(inEveryOrder(RoundRobinLB::new, RoundRobinLB::isRetryBudgetEnabled, lb -> lb.setRetryBudgetEnabled(false),
                lb -> lb.setRetryBudgetShare(0.5), lb -> lb.setRetryBudgetMinRetries(5))).containsOnly(false);
    }

    @Test
    void theRetryBackoffSwitchedOffByNameStaysOff() {
        assertThat(inEveryOrder(RoundRobinLB::new, RoundRobinLB::isRetryBackoffEnabled, lb -> lb.setRetryBackoffEnabled(false),
                lb -> lb.setRetryBackoffMaxInterval(Duration.ofSeconds(1)),
                lb -> lb.setRetryBackoffBaseInterval(Duration.ofMillis(50)))).containsOnly(false);
    }

    @Test
    void boundedLoadsSwitchedOffByABalanceFactorOf0StayOff() {
        assertThat(inEveryOrder(ConsistentHashLB::new, lb -> lb.getBoundedLoad().isEnabled(), lb -> lb.setBalanceFactor(0),
                lb -> lb.setInFlightFactor(1.5))).containsOnly(false);
        assertThat(inEveryOrder(ConsistentHashLB::new, ConsistentHashLB::getInFlightFactor,
                lb -> lb.setInFlightFactor(1.5))).as("the in-flight factor alone turns them on").containsOnly(1.5);
    }

    @Test
    void thePaperRuleLeavesTheKnobsSetByNameAsSet() {
        AdaptiveVirtualNodesConfig paper = AdaptiveVirtualNodesConfig.custom().paperRule().build();
        assertThat(inEveryOrder(AdaptiveVirtualNodeLB::new, AdaptiveVirtualNodeLB::getSettleThreshold,
                lb -> lb.setPaperRule(true), lb -> lb.setSettleThreshold(0.05))).containsOnly(0.05);
        assertThat(inEveryOrder(AdaptiveVirtualNodeLB::new, AdaptiveVirtualNodeLB::getCooldownWindows,
                lb -> lb.setPaperRule(true), lb -> lb.setCooldownWindows(3))).containsOnly(3);
        assertThat(inEveryOrder(AdaptiveVirtualNodeLB::new, AdaptiveVirtualNodeLB::getCooldownWindows,
                lb -> lb.setPaperRule(true), lb -> lb.setSettleThreshold(0.05))).containsOnly(paper.cooldownWindows());
    }

    @Test
    void thePaperRuleSwitchedOffAfterItWasOnGivesTheDefaultsBack() {
        AdaptiveVirtualNodesConfig defaults = AdaptiveVirtualNodesConfig.ofDefaults();
        AdaptiveVirtualNodeLB lb = new AdaptiveVirtualNodeLB();
        lb.setPaperRule(true);
        lb.setPaperRule(false);

        assertThat(lb.getSettleThreshold()).isEqualTo(defaults.settleThreshold());
        assertThat(lb.getCooldownWindows()).isEqualTo(defaults.cooldownWindows());
        assertThat(lb.getUtilizationSmoothing()).isEqualTo(defaults.utilizationSmoothing());
        assertThat(lb.getMaxMovesPerEvaluation()).isEqualTo(defaults.maxMovesPerEvaluation());
    }

    /** {@code keyHeader} and {@code keys} name the one key two ways: set both, whichever came last would win by its name. */
    @Test
    void keyHeaderAndKeysSetTogetherAreRefusedNamingBoth() {
        ConsistentHashLB headerFirst = new ConsistentHashLB();
        headerFirst.setKeyHeader("tenant");
        assertThatThrownBy(() -> headerFirst.setKeys("session,prompt")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys 'session,prompt' and keyHeader 'tenant' both name the key: set one");
        ConsistentHashLB keysFirst = new ConsistentHashLB();
        keysFirst.setKeys("session,prompt");
        assertThatThrownBy(() -> keysFirst.setKeyHeader("tenant")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys 'session,prompt' and keyHeader 'tenant' both name the key: set one");
        assertThat(keysFirst.getKeys()).isEqualTo("session,prompt");
        keysFirst.setKeys("session");
        assertThat(keysFirst.getKeys()).as("set again by the same name").isEqualTo("session");
    }

    /** A period that drives a timer: under a millisecond it would run back to back (a core spent on an idle route). */
    @Test
    void aTimersPeriodIsAtLeastAMillisecond() {
        assertThatThrownBy(() -> new PidWeightedLB().setControlPeriod("PT0.000000001S"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("controlPeriod must be at least 1ms, was PT0.000000001S");
        assertThatThrownBy(() -> new RoundRobinLB().setHealthCheckInterval("PT0.000001S"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("healthCheckInterval must be at least 1ms, was PT0.000001S");
        PidWeightedLB pid = new PidWeightedLB();
        pid.setControlPeriod("1ms");
        assertThat(pid.getControlPeriod()).isEqualTo(Duration.ofMillis(1));
    }


    /** A knob refused is not set by name (its switch does not count); one refused after it was set still is. */
    @Test
    void aKnobRefusedIsNotSetByName() {
        RoundRobinLB lb = new RoundRobinLB();
        assertThatThrownBy(() -> lb.setRetryBudgetShare(5.0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(lb.wasSet("retryBudgetShare")).isFalse();

        lb.setRetryBudgetShare(0.5);
        assertThatThrownBy(() -> lb.setRetryBudgetShare(5.0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(lb.wasSet("retryBudgetShare")).isTrue();
        assertThat(lb.getRetryBudgetShare()).isEqualTo(0.5);
    }
}
