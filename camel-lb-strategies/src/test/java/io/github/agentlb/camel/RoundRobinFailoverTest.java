package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.AsyncProcessorSupport;
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

    private final class Agent extends AsyncProcessorSupport implements IdAware {
        private final String id;

        Agent(String id) {
            this.id = id;
        }

        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            if (down.contains(id)) {
                exchange.setException(new ConnectException("Connection refused"));
            } else {
                exchange.getMessage().setBody(id);
            }
            callback.done(true);
            return true;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public void setId(String ignored) {
        }
    }

    private String send() {
        Exchange exchange = new DefaultExchange(context);
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        balancer.process(exchange, sync -> { });
        return exchange.getException() != null ? "failed" : exchange.getMessage().getBody(String.class);
    }

    @Test
    void anExchangeThatFailsEverywhereTakesOneTurnPerAgent() {
        balancer.setCamelContext(context);
        balancer.setOutlierEjection(OutlierEjection.disabled());
        List.of("a", "b", "c").forEach(id -> balancer.addProcessor(new Agent(id)));
        balancer.start();
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
