package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Power of two choices over requests in flight, seeded. */
class LeastRequestLBTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();


    private static LeastRequestLB started(ScriptedChild... agents) {
        return ScriptedChild.started(new LeastRequestLB(), CAMEL.get(), agents);
    }

    private static ScriptedChild[] agents(String... names) {
        ScriptedChild[] out = new ScriptedChild[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = ScriptedChild.naming(names[i]);
        }
        return out;
    }

    private static String send(LeastRequestLB lr) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        lr.process(exchange, sync -> { });
        return exchange.getMessage().getBody(String.class);
    }

    private static Map<String, Integer> counts(LeastRequestLB lr, int requests) {
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < requests; i++) {
            counts.merge(send(lr), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void theSameSeedMakesTheSameDecisions() {
        List<String> first = new ArrayList<>();
        List<String> second = new ArrayList<>();
        LeastRequestLB a = started(agents("A1", "A2", "A3"));
        LeastRequestLB b = started(agents("A1", "A2", "A3"));
        for (int i = 0; i < 100; i++) {
            first.add(send(a));
            second.add(send(b));
        }
        assertThat(first).isEqualTo(second).containsOnly("A1", "A2", "A3");
        b.setSeed(7);
        List<String> other = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            other.add(send(b));
        }
        assertThat(other).isNotEqualTo(first);
    }

    @Test
    void idleAgentsShareEquallyAndABusyOneIsPassedOverWheneverItIsDrawn() {
        ScriptedChild[] agents = agents("A1", "A2", "A3");
        LeastRequestLB lr = started(agents);
        Map<String, Integer> idle = counts(lr, 3000);
        assertThat(idle.values()).allSatisfy(count -> assertThat(count).isBetween(900, 1100));
        assertThat(idle).as("the default seed's draws, pinned").isEqualTo(Map.of("A1", 993, "A2", 984, "A3", 1023));

        agents[0].hold();
        for (int i = 0; i < 10 && agents[0].heldAnswers() == 0; i++) {
            send(lr);
        }
        assertThat(lr.getInFlight()).containsEntry("A1", 1);
        assertThat(counts(lr, 300)).doesNotContainKey("A1");
        agents[0].release();
        assertThat(lr.getInFlight()).isEqualTo(Map.of("A1", 0, "A2", 0, "A3", 0));
    }

    @Test
    void aHeavierAgentWinsEveryPairItIsDrawnInWhileAllAreIdle() {
        LeastRequestLB lr = started(agents("A1", "A2", "A3"));
        lr.setAgentWeight("A1", 3);
        Map<String, Integer> counts = counts(lr, 3000);
        // A1 is in 2 of the 3 possible pairs: two thirds of the requests.
        assertThat(counts.get("A1")).isBetween(1900, 2100);
        assertThat(counts).as("the default seed's draws, pinned").isEqualTo(Map.of("A1", 2022, "A2", 477, "A3", 501));
        assertThatThrownBy(() -> lr.setActiveRequestBias(-1))
                .hasMessage("activeRequestBias must be finite and >= 0, was -1.0");
    }

    /**
     * The first decisions of the default seed among three idle agents, the same on every run: the
     * first draws, agent fmix64(seed + i x 0x9E3779B97F4A7C15) mod 3 (computed apart from the code).
     */
    private static final List<String> DEFAULT_SEED_DECISIONS =
            List.of("A3", "A1", "A2", "A3", "A2", "A3", "A2", "A3", "A2", "A2", "A2", "A3");

    private static List<String> decisions(LeastRequestLB lr, int requests) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            out.add(send(lr));
        }
        return out;
    }

    @Test
    void theDefaultSeedsDecisionsArePinnedAndTiesGoToTheFirstDraw() {
        LeastRequestLB lr = started(agents("A1", "A2", "A3"));
        assertThat(decisions(lr, DEFAULT_SEED_DECISIONS.size())).isEqualTo(DEFAULT_SEED_DECISIONS);

        LeastRequestLB biased = started(agents("A1", "A2", "A3"));
        biased.setActiveRequestBias(2.0);
        assertThat(decisions(biased, DEFAULT_SEED_DECISIONS.size()))
                .as("equal weights, all idle: every pair is a tie whatever the bias").isEqualTo(DEFAULT_SEED_DECISIONS);
    }

    @Test
    void settingTheSeedRestartsItsSequence() {
        LeastRequestLB lr = started(agents("A1", "A2", "A3"));
        decisions(lr, 7);
        lr.setSeed(LeastRequestLB.DEFAULT_SEED);
        assertThat(decisions(lr, DEFAULT_SEED_DECISIONS.size())).isEqualTo(DEFAULT_SEED_DECISIONS);
    }

    @Test
    void afterTheChosenAgentFailsTheOtherDrawnAgentTakesTheExchangeEitherOneAlike() {
        ScriptedChild refusing = ScriptedChild.answering("A1", (attempt, now) -> {
            throw new ConnectException("Connection refused");
        });
        LeastRequestLB lr = started(refusing, ScriptedChild.naming("A2"), ScriptedChild.naming("A3"));
        lr.setOutlierEjection(OutlierEjection.disabled());
        Map<String, Integer> afterA1 = new TreeMap<>();
        for (int i = 0; i < 600; i++) {
            int before = refusing.requests().size();
            String agent = send(lr);
            if (refusing.requests().size() > before) {
                afterA1.merge(agent, 1, Integer::sum);
            }
        }
        // A1 is the first draw of about a third of the exchanges; the second draw is A2 or A3 alike.
        assertThat(afterA1.keySet()).containsExactly("A2", "A3");
        assertThat(afterA1.values()).allSatisfy(count -> assertThat(count).isBetween(70, 130));
        assertThat(afterA1).as("the default seed's draws, pinned").isEqualTo(Map.of("A2", 89, "A3", 100));
    }

    @Test
    void weightsCountWhenNoAgentHasTheWeightOne() {
        LeastRequestLB lr = started(agents("A1", "A2"));
        lr.setAgentWeight("A1", 3);
        lr.setAgentWeight("A2", 2);
        assertThat(decisions(lr, 20)).as("3 beats 2 in every pair while both are idle").containsOnly("A1");
    }

    @Test
    void requestsInFlightDivideTheWeightAndABiasOfZeroSetWhileRunningIgnoresThemAtOnce() {
        ScriptedChild[] agents = agents("A1", "A2");
        LeastRequestLB lr = started(agents);
        lr.setAgentWeight("A1", 3);
        lr.setAgentWeight("A2", 2);
        agents[0].hold();
        send(lr);
        assertThat(lr.getInFlight()).isEqualTo(Map.of("A1", 1, "A2", 0));
        assertThat(lr.agentMetrics()).isEqualTo(Map.of("in.flight", Map.of("A1", 1.0, "A2", 0.0),
                "weight", Map.of("A1", 3.0, "A2", 2.0)));
        assertThat(decisions(lr, 10)).as("3 / (1 + 1) is below 2 / (0 + 1)").containsOnly("A2");

        lr.setActiveRequestBias(0);
        decisions(lr, 5);
        assertThat(agents[0].heldAnswers()).as("weighted random: 3 beats 2 whatever A1 holds").isEqualTo(6);
        agents[0].release();
        assertThat(lr.getInFlight()).isEqualTo(Map.of("A1", 0, "A2", 0));
    }

    @Test
    void aHeavierAgentThatFailsHandsEachExchangeToTheOtherChoice() {
        ScriptedChild refusing = ScriptedChild.answering("A1", (attempt, now) -> {
            throw new ConnectException("Connection refused");
        });
        LeastRequestLB lr = started(refusing, ScriptedChild.naming("A2"));
        lr.setOutlierEjection(OutlierEjection.disabled());
        lr.setAgentWeight("A1", 3);
        assertThat(decisions(lr, 20)).containsOnly("A2");
        assertThat(refusing.requests()).hasSize(20);
    }

    @Test
    void aSingleAgentTakesEveryExchangeAndWithoutAgentsThePickerOffersNone() {
        LeastRequestLB one = started(agents("A1"));
        Exchange exchange = new DefaultExchange(CAMEL.get());
        one.process(exchange, sync -> { });
        assertThat(exchange.getMessage().getBody(String.class)).isEqualTo("A1");
        assertThat(exchange.getProperty(AgentLb.STRATEGY_PROPERTY)).isEqualTo("lr");
        assertThat(decisions(one, 3)).containsExactly("A1", "A1", "A1");

        LeastRequestLB none = started();
        Exchange nowhere = new DefaultExchange(CAMEL.get());
        assertThat(none.balancerState().picker().select(nowhere).candidates()).isExhausted();
        none.process(nowhere, sync -> { });
        assertThat(nowhere.getException()).isInstanceOf(NoAgentAvailableException.class)
                .hasMessageStartingWith("No agent available: the lr balancer has no agents");
    }

    @Test
    void whenBothDrawnAgentsFailTheRestAreTriedByFewestRequestsInFlight() {
        AtomicLong sequence = new AtomicLong();
        ScriptedChild busy = ScriptedChild.answering("A1", sequence::incrementAndGet, (attempt, now) -> { });
        busy.hold();
        List<ScriptedChild> children = new ArrayList<>(List.of(busy));
        for (String name : List.of("A2", "A3", "A4")) {
            children.add(ScriptedChild.answering(name, sequence::incrementAndGet, (attempt, now) -> {
                throw new ConnectException("Connection refused");
            }));
        }
        LeastRequestLB lr = started(children.toArray(ScriptedChild[]::new));
        lr.setOutlierEjection(OutlierEjection.disabled());
        send(lr);
        assertThat(lr.getInFlight()).containsEntry("A1", 1);
        Map<Integer, Integer> triesBeforeA1 = new TreeMap<>();
        for (int i = 0; i < 40; i++) {
            long before = sequence.get();
            send(lr);
            long a1 = busy.requests().get(busy.requests().size() - 1);
            assertThat(a1).as("every exchange reaches A1, the only agent that answers").isGreaterThan(before);
            triesBeforeA1.merge((int) (a1 - before - 1), 1, Integer::sum);
        }
        // A1 holds more in flight than any other agent: drawn, it loses its pair and is tried second;
        // not drawn, it is the last of the rest.
        assertThat(triesBeforeA1.keySet()).containsExactly(1, 3);
        assertThat(lr.getInFlight()).containsEntry("A1", 41);
        busy.release();
        assertThat(lr.getInFlight()).isEqualTo(Map.of("A1", 0, "A2", 0, "A3", 0, "A4", 0));
    }

    @Test
    void whenEveryAgentFailsEachIsTriedOnce() {
        ScriptedChild[] refusing = new ScriptedChild[4];
        for (int i = 0; i < 4; i++) {
            refusing[i] = ScriptedChild.answering("A" + (i + 1), (attempt, now) -> {
                throw new ConnectException("Connection refused");
            });
        }
        LeastRequestLB lr = started(refusing);
        lr.setOutlierEjection(OutlierEjection.disabled());
        for (int i = 0; i < 10; i++) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            lr.process(exchange, sync -> { });
            assertThat(exchange.getException()).isInstanceOf(NoAgentAvailableException.class)
                    .hasMessageStartingWith("No agent available: 4 of 4 agents tried");
        }
        for (ScriptedChild agent : refusing) {
            assertThat(agent.requests()).hasSize(10);
        }
    }

    @Test
    void aBiasOfZeroWithoutWeightsIsPlainRandomEvenForABusyAgent() {
        ScriptedChild[] agents = agents("A1", "A2");
        LeastRequestLB lr = started(agents);
        lr.setActiveRequestBias(0);
        agents[0].hold();
        decisions(lr, 40);
        // Every pair is a tie: the first draw takes it, whatever A1 holds; about half of the 40.
        assertThat(agents[0].heldAnswers()).isBetween(12, 28);
        assertThat(agents[0].heldAnswers()).as("the default seed's draws, pinned").isEqualTo(15);
        agents[0].release();
    }

    /** An ejected agent, tried after the other failed, counts its request in flight while it runs, and no longer after. */
    @Test
    void anEjectedAgentTriedAfterTheOtherFailedCountsItsRequestInFlightOnce() {
        ScriptedChild a1 = ScriptedChild.naming("A1");
        ScriptedChild a2 = ScriptedChild.answering("A2", (attempt, now) -> {
            throw new ConnectException("Connection refused");
        });
        LeastRequestLB lr = started(a1, a2);
        assertThat(lr.balancerState().detector.onFailure("A1")).as("A1 ejected").isNotNull();
        a1.hold();

        send(lr);

        assertThat(a2.requests()).hasSize(1);
        assertThat(a1.heldAnswers()).isEqualTo(1);
        assertThat(lr.getInFlight()).isEqualTo(Map.of("A1", 1, "A2", 0));
        a1.release();
        assertThat(lr.getInFlight()).isEqualTo(Map.of("A1", 0, "A2", 0));
    }
}
