package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Fan-out to every listener, in the order added, past a listener that throws. */
class ListenersTest {

    private final Listeners listeners = new Listeners();
    private final List<String> heard = new CopyOnWriteArrayList<>();

    private HealthListener health(String name) {
        return new HealthListener() {
            @Override
            public void agentEjected(String agentId, Duration ejectionTime) {
                heard.add(name + " ejected " + agentId + " " + ejectionTime.toMillis());
            }

            @Override
            public void agentReadmitted(String agentId) {
                heard.add(name + " readmitted " + agentId);
            }
        };
    }

    private static HealthListener brokenHealth() {
        return new HealthListener() {
            @Override
            public void agentEjected(String agentId, Duration ejectionTime) {
                throw new IllegalStateException("broken");
            }

            @Override
            public void agentReadmitted(String agentId) {
                throw new IllegalStateException("broken");
            }
        };
    }

    @Test
    void everyAttemptListenerHearsTheOutcomePastOneThatThrows() {
        listeners.add((strategy, agent, outcome, elapsed) -> {
            throw new IllegalStateException("broken");
        });
        listeners.add((strategy, agent, outcome, elapsed) -> heard.add(strategy + " " + agent + " " + outcome + " " + elapsed));
        listeners.attempt("rr", "A1", AttemptOutcome.FAILED_BEFORE_SEND, 1234L);
        assertThat(heard).containsExactly("rr A1 FAILED_BEFORE_SEND 1234");
    }

    @Test
    void ejectionsAreCountedLoggedAndHeardByEveryHealthListener() {
        listeners.add(brokenHealth());
        listeners.add(health("h"));
        AgentFailure refused = AgentFailure.of("A2", new ConnectException("Connection refused"));
        try (CapturedLog log = new CapturedLog("io.github.agentlb.health")) {
            listeners.ejected("pid", refused, Duration.ofSeconds(20));
            listeners.ejected("pid", refused, Duration.ofSeconds(40));
            listeners.readmitted("pid", "A2");
            assertThat(log.lines()).containsExactly(
                    "INFO strategy=pid agent=A2 ejected for 20000 ms after connection refused",
                    "INFO strategy=pid agent=A2 ejected for 40000 ms after connection refused",
                    "INFO strategy=pid agent=A2 re-admitted");
        }
        assertThat(heard).containsExactly("h ejected A2 20000", "h ejected A2 40000", "h readmitted A2");
        assertThat(listeners.ejections()).isEqualTo(2);
    }

    @Test
    void everyMembershipListenerHearsTheAgentsPastOneThatThrows() {
        listeners.add((MembershipListener) ids -> {
            throw new IllegalStateException("broken");
        });
        listeners.add((MembershipListener) ids -> heard.add("m " + ids));
        listeners.agentsChanged(List.of("A1", "A2"));
        Listeners.notify(ids -> heard.add("n " + ids), List.of("A3"));
        Listeners.notify(ids -> {
            throw new IllegalStateException("broken");
        }, List.of("A3"));
        assertThat(heard).containsExactly("m [A1, A2]", "n [A3]");
    }

    @Test
    void aNullListenerIsRejected() {
        assertThatThrownBy(() -> listeners.add((AttemptListener) null))
                .isInstanceOf(NullPointerException.class).hasMessage("listener");
        assertThatThrownBy(() -> listeners.add((HealthListener) null))
                .isInstanceOf(NullPointerException.class).hasMessage("listener");
        assertThatThrownBy(() -> listeners.add((MembershipListener) null))
                .isInstanceOf(NullPointerException.class).hasMessage("listener");
        assertThat(listeners.ejections()).isZero();
    }
}
