package io.github.agentlb.camel.http;

import io.github.agentlb.camel.AttemptHooks;
import io.netty.channel.EventLoop;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultAsyncProducer;

/**
 * The child an {@code agent:} endpoint puts in a route: each exchange is one call to the agent
 * ({@link AgentCall}), run on the client connection's event loop; the callback runs when the
 * answer has ended, so a balancer's in-flight count, attempt time and load report cover the whole
 * stream. No thread is held per call.
 *
 * <p>The exchange must come from a camel-netty-http consumer, or carry a {@link Downstream} (property
 * {@value Downstream#PROPERTY}); else the call fails at once with an {@link IllegalStateException}.
 * What the child asks of a balancer comes from the attempt's {@link AttemptHooks} (property
 * {@value AttemptHooks#PROPERTY}), {@link AttemptHooks#NONE} without one. Each call sets property
 * {@value #AGENT_ADDRESS_PROPERTY} to the agent's address, for routes whose balancer does not say
 * which child it chose (Camel's own).
 *
 * <p>Each producer counts as a user of its endpoint's connections from its start to its stop: when
 * the last one stops (the balancer stopped the child of an agent that left, or the routes that call
 * the agent stopped), the endpoint closes its idle connections to the agent
 * ({@link AgentEndpoint#producerStopped()}). Camel creates one per child: a {@code SendProcessor}
 * stops and shuts down its producer, never the endpoint, which other children may share.
 *
 * <p>Thread-safe.
 */
public class AgentProducer extends DefaultAsyncProducer {

    /** Exchange property set to the agent's address ({@code http://host:port}) by each call. */
    public static final String AGENT_ADDRESS_PROPERTY = "agentlb.agentAddress";

    private final AgentEndpoint endpoint;
    /** Whether this producer counts among its endpoint's users. */
    private final AtomicBoolean counted = new AtomicBoolean();

    AgentProducer(AgentEndpoint endpoint) {
        super(endpoint);
        this.endpoint = endpoint;
    }

    @Override
    public AgentEndpoint getEndpoint() {
        return endpoint;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        endpoint.stats().bindOnce(endpoint.getComponent());
        exchange.setProperty(AGENT_ADDRESS_PROPERTY, endpoint.getAddress());
        Downstream down;
        try {
            down = NettyDownstream.of(exchange);
        } catch (IllegalStateException e) {
            exchange.setException(new IllegalStateException("agent " + endpoint.getAddress() + ": " + e.getMessage(), e));
            callback.done(true);
            return true;
        }
        if (down == null) {
            exchange.setException(new IllegalStateException("agent " + endpoint.getAddress() + ": the exchange comes from"
                    + " no camel-netty-http consumer (or the route gave it a message without the consumer's Camel headers)"
                    + " and carries no " + Downstream.class.getSimpleName() + " (property " + Downstream.PROPERTY + ")"));
            callback.done(true);
            return true;
        }
        AttemptHooks hooks = exchange.getProperty(AttemptHooks.PROPERTY, AttemptHooks.NONE, AttemptHooks.class);
        AgentCall call = new AgentCall(endpoint, exchange, callback, down, hooks);
        EventLoop loop = down.eventLoop();
        if (loop.inEventLoop()) {
            call.start();
        } else {
            loop.execute(call::start);
        }
        return false;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        if (counted.compareAndSet(false, true)) {
            endpoint.producerStarted();
        }
    }

    @Override
    protected void doStop() throws Exception {
        if (counted.compareAndSet(true, false)) {
            endpoint.producerStopped();
        }
        super.doStop();
    }

    @Override
    public String toString() {
        return "AgentProducer[" + endpoint.getAddress() + "]";
    }
}
