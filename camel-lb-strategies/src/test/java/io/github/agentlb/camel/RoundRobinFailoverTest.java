package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Round-robin's turns on failover, outside a route: an exchange that fails everywhere takes one turn per agent. */
class RoundRobinFailoverTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private final Set<String> down = ConcurrentHashMap.newKeySet();
    private final RoundRobinLB balancer = new RoundRobinLB();


    private ScriptedChild agent(String id) {
        return ScriptedChild.answering(id, (exchange, now) -> {
            if (down.contains(id)) {
                exchange.setException(new ConnectException("Connection refused"));
            } else {
                exchange.getMessage().setBody(id);
            }
        });
    }

    private String send() {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        balancer.process(exchange, sync -> { });
        return exchange.getException() != null ? "failed" : exchange.getMessage().getBody(String.class);
    }

    @Test
    void anExchangeThatFailsEverywhereTakesOneTurnPerAgent() {
        balancer.setOutlierEjection(OutlierEjection.disabled());
        ScriptedChild.started(balancer, CAMEL.get(), agent("a"), agent("b"), agent("c"));
        down.addAll(List.of("a", "b", "c"));
        List<String> answers = new ArrayList<>();
        answers.add(send());
        down.clear();
        for (int i = 0; i < 3; i++) {
            answers.add(send());
        }
        // Turns 1-3 went to a, b, c; the rotation goes on at a, not further on.
        assertThat(answers).containsExactly("failed", "a", "b", "c");
    }
}
