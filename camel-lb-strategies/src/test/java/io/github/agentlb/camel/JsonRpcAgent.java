package io.github.agentlb.camel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.core.session.LearnedSessions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * A scripted JSON-RPC agent for the balancer's tests, a child that answers at once: reads the
 * request's body, records what {@link #received} says of it, answers 200 with {@link #answer} (of a
 * missing node when the body is no JSON).
 * Not thread-safe: the tests call it from one thread.
 */
abstract class JsonRpcAgent extends AsyncProcessorSupport {

    static final ObjectMapper JSON = new ObjectMapper();

    final String name;
    /** One line per call, as {@link #received} wrote it. */
    final List<String> received = new ArrayList<>();
    /** When set, each call fails with it once recorded, as a call cut after it was sent. */
    Exception failure;

    JsonRpcAgent(String name) {
        this.name = name;
    }

    /** What the test records of a call: one line. */
    abstract String received(Exchange exchange, JsonNode request);

    /** The JSON-RPC answer to {@code request}. */
    abstract JsonNode answer(JsonNode request);

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        JsonNode request;
        try {
            request = JSON.readTree(exchange.getIn().getBody(String.class));
        } catch (IOException e) {
            request = com.fasterxml.jackson.databind.node.MissingNode.getInstance(); // no JSON: answer() says so
        }
        received.add(received(exchange, request));
        if (failure != null) {
            exchange.setException(failure);
            callback.done(true);
            return true;
        }
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        exchange.getMessage().setBody(answer(request).toString());
        callback.done(true);
        return true;
    }

    /** A started round-robin balancer over {@code agents}, its learned sessions {@code sessions}. */
    static RoundRobinLB replica(CamelContext camel, LearnedSessions sessions, JsonRpcAgent... agents) {
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(camel);
        balancer.setLearnedSessions(sessions);
        for (JsonRpcAgent agent : agents) {
            balancer.addAgent(agent.name, agent, 1.0);
        }
        balancer.start();
        return balancer;
    }

    static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
