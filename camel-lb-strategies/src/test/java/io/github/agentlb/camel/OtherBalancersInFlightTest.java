package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.bounded.BoundedLoad;
import io.github.agentlb.core.orca.LoadReports;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The in-flight bound counts the requests of other balancers (replicas in front of the same
 * agents) that an agent's ORCA report shows beyond this balancer's own: running plus waiting less
 * its own requests there. Agents answer at once; the clock stands still, so every report is fresh.
 */
class OtherBalancersInFlightTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** Agent to the {@code num_requests_running} its answers report; no report when absent. */
    private final Map<String, Integer> running = new ConcurrentHashMap<>();

    private ScriptedChild agent(String name) {
        return ScriptedChild.answering(name, (attempt, now) -> {
            Integer count = running.get(name);
            if (count != null) {
                attempt.getMessage().setHeader(LoadReports.HEADER, "TEXT named_metrics.num_requests_running=" + count);
            }
            attempt.getMessage().setBody(name);
        });
    }

    private static String send(ConsistentHashLB balancer, String user) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader("user_id", user);
        balancer.process(exchange, sync -> { });
        return exchange.getMessage().getBody(String.class);
    }

    @Test
    void anAgentBusyWithAnotherBalancersRequestsPassesTheKeyOnWhileItsOwnCountIsZero() {
        ConsistentHashLB balancer = new ConsistentHashLB();
        balancer.setInFlightFactor(BoundedLoad.KUBEAI_IN_FLIGHT_FACTOR);
        ScriptedChild.startedAgents(balancer, CAMEL.get(), () -> 0L, this::agent, "A1", "A2", "A3");
        String home = send(balancer, "42");
        // Every agent reports only this balancer's one request (running 1, own 1): nothing beyond it.
        running.putAll(Map.of("A1", 1, "A2", 1, "A3", 1));
        assertThat(send(balancer, "42")).isEqualTo(home);
        assertThat(send(balancer, "42")).isEqualTo(home);
        // The home reports 4 running with this balancer's one: 3 of other balancers, in flight there.
        running.put(home, 4);
        assertThat(send(balancer, "42")).isEqualTo(home);
        // Total 3, capacity 1.25 x 4 / 3 = 1.67: the home's 3 + 1 does not fit, another agent takes it
        // (by this balancer's own counts alone, all 0, the home would have kept it).
        String elsewhere = send(balancer, "42");
        assertThat(elsewhere).isNotEqualTo(home).isIn("A1", "A2", "A3");
        // The home's last report stands (fresh on the still clock): passed on again.
        assertThat(send(balancer, "42")).isNotEqualTo(home);
        balancer.stop();
    }
}
