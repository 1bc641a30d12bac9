package io.github.agentlb.camel;

import java.net.ConnectException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
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
    static String yamlAgents(List<String> agents) {
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

    /** A YAML bean {@code lb} of class {@code type} with {@code properties}, each a {@code name: value} line. */
    static String yamlBalancer(String type, String... properties) {
        StringBuilder yaml = new StringBuilder("""
                - beans:
                    - name: lb
                      type: %s
                      properties:
                """.formatted(type));
        for (String property : properties) {
            yaml.append("        ").append(property).append('\n');
        }
        return yaml.toString();
    }

    /** A YAML route from {@code direct:start} balanced by the bean {@code lb} over {@code agents}. */
    static String yamlBalanced(List<String> agents) {
        StringBuilder yaml = new StringBuilder("""
                - route:
                    from:
                      uri: direct:start
                      steps:
                        - loadBalance:
                            customLoadBalancer:
                              ref: lb
                            steps:
                """);
        for (String agent : agents) {
            yaml.append("                  - to: ").append(uri(agent)).append('\n');
        }
        return yaml.toString();
    }

    /** What an agent's route does with a request: sets the answer on {@code exchange}, or throws. */
    @FunctionalInterface
    interface Answer {
        void answer(String agent, Exchange exchange) throws Exception;
    }

    /** A route at {@link #uri(String)} for each of {@code agents}, answering by {@code answer}, no error handler. */
    static RouteBuilder agents(List<String> agents, Answer answer) {
        return new RouteBuilder() {
            @Override
            public void configure() {
                errorHandler(noErrorHandler());
                for (String agent : agents) {
                    from(uri(agent)).process(exchange -> answer.answer(agent, exchange));
                }
            }
        };
    }

    RouteBuilder agents() {
        return agents(AGENTS, (agent, exchange) -> {
            if (down.contains(agent)) {
                throw new ConnectException("Connection refused: " + agent);
            }
            if (broken.contains(agent)) {
                throw new IllegalStateException("agent " + agent + " answered garbage");
            }
            exchange.getMessage().setBody(agent);
        });
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
