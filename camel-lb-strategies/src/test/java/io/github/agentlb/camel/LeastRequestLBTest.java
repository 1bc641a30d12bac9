package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
        assertThatThrownBy(() -> lr.setActiveRequestBias(-1))
                .hasMessage("activeRequestBias must be finite and >= 0, was -1.0");
    }
}
