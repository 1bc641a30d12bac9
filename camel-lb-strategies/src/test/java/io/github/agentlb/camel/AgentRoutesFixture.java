package io.github.agentlb.camel;

import java.net.ConnectException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.builder.RouteBuilder;

/** Three in-memory agents A1..A3 behind {@code direct:} endpoints, any of which can be marked down. */
final class AgentRoutesFixture {

    static final List<String> AGENTS = List.of("A1", "A2", "A3");

    final Set<String> down = ConcurrentHashMap.newKeySet();
    final Set<String> broken = ConcurrentHashMap.newKeySet();

    static String uri(String agent) {
        return "direct:" + agent.toLowerCase();
    }

    /** The agent id the balancer sees for an agent's child endpoint. */
    static String agentId(String agent) {
        return "direct://" + agent.toLowerCase();
    }

    /** YAML routes for {@code agents}, each answering its name as body, as {@link #uri(String)}. */
    static String yaml(List<String> agents) {
        StringBuilder yaml = new StringBuilder();
        for (String agent : agents) {
            yaml.append("""
                    - route:
                        from:
                          uri: %s
                          steps:
                            - setBody:
                                constant: %s
                    """.formatted(uri(agent), agent));
        }
        return yaml.toString();
    }

    RouteBuilder agents() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                errorHandler(noErrorHandler());
                for (String agent : AGENTS) {
                    from(uri(agent)).process(exchange -> {
                        if (down.contains(agent)) {
                            throw new ConnectException("Connection refused: " + agent);
                        }
                        if (broken.contains(agent)) {
                            throw new IllegalStateException("agent " + agent + " answered garbage");
                        }
                        exchange.getMessage().setBody(agent);
                    });
                }
            }
        };
    }

    static RouteBuilder balanced(String from, AgentLoadBalancerSupport balancer, List<String> agents) {
        return new RouteBuilder() {
            @Override
            public void configure() {
                errorHandler(noErrorHandler());
                var lb = from(from).loadBalance(balancer);
                for (String agent : agents) {
                    lb = lb.to(uri(agent));
                }
            }
        };
    }
}
