package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Round-robin's turns on failover, outside a route: an exchange that fails everywhere takes one turn per agent. */
class RoundRobinFailoverTest {

    private static CamelContext context;

    private final Set<String> down = ConcurrentHashMap.newKeySet();
    private final RoundRobinLB balancer = new RoundRobinLB();

    @BeforeAll
    static void startContext() {
        context = new DefaultCamelContext();
        context.start();
    }

    @AfterAll
    static void stopContext() {
        context.stop();
    }

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
        Exchange exchange = new DefaultExchange(context);
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        balancer.process(exchange, sync -> { });
        return exchange.getException() != null ? "failed" : exchange.getMessage().getBody(String.class);
    }

    @Test
    void anExchangeThatFailsEverywhereTakesOneTurnPerAgent() {
        balancer.setOutlierEjection(OutlierEjection.disabled());
        ScriptedChild.started(balancer, context, agent("a"), agent("b"), agent("c"));
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
