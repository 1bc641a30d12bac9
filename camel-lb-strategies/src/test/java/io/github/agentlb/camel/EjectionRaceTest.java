package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * New ejection rules and a new agent at the same time: the rules are replaced and the agent added
 * under the writer's one lock, each in one publication, so the detector published last always
 * knows the new agent. Before the one writer, the balancer read its members for the new detector
 * under another lock, and an agent added meanwhile was never ejected (this test, with the pause
 * where the old code read the members, failed: no agent ejected).
 */
class EjectionRaceTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    @Test
    @Timeout(30)
    void anAgentAddedWhileTheEjectionRulesAreReplacedIsEjectedWhenItFails() throws Exception {
        CountDownLatch replacing = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        RoundRobinLB rr = ScriptedChild.started(new RoundRobinLB(), CAMEL.get(), ScriptedChild.ok("A1"),
                ScriptedChild.ok("A2"));
        OutlierEjection rules = OutlierEjection.custom().consecutiveFailures(1).build();
        // The rules' knob, paused while it builds the new configuration, as the old code paused reading members.
        Thread replace = new Thread(() -> rr.configure("outlierEjection", rules, draft -> {
            replacing.countDown();
            await(proceed);
            draft.ejection(rules);
        }));
        replace.start();
        assertThat(replacing.await(10, TimeUnit.SECONDS)).isTrue();
        Thread add = new Thread(() -> rr.addAgent("A3", ScriptedChild.answering("A3", (exchange, now) -> {
            throw new ConnectException("Connection refused");
        }), 1.0));
        add.start();
        // The agent's change waits for the writer's lock, which the rules' change holds (else @Timeout).
        while (add.getState() != Thread.State.BLOCKED) {
            Thread.onSpinWait();
        }
        proceed.countDown();
        replace.join(10_000);
        add.join(10_000);

        assertThat(rr.getAgentIds()).containsExactly("A1", "A2", "A3");
        assertThat(rr.getOutlierEjection()).isEqualTo(rules);
        for (int i = 0; i < 3; i++) {
            rr.process(new DefaultExchange(CAMEL.get()), sync -> { });
        }
        assertThat(rr.getEjectedAgents()).as("A3 failed once with consecutiveFailures 1").containsExactly("A3");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
