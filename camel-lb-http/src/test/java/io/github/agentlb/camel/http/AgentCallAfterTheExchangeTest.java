package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AttemptHooks;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/**
 * A call that starts after its exchange ended (the losing leg of a hedged request, its hedge fired or
 * its connection made after the winner's answer): it sends nothing, touches no released body, and ends
 * cancelled, never as a failure of its agent.
 */
class AgentCallAfterTheExchangeTest {

    @Test
    void aCallStartedAfterItsExchangeEndedSendsNothingAndEndsCancelled() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            AgentEndpoint endpoint = camel.getEndpoint("agent:http://127.0.0.1:9", AgentEndpoint.class);
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/process/r1",
                    Unpooled.copiedBuffer("", StandardCharsets.UTF_8));
            NettyDownstream down = ClientChannel.on(new EmbeddedChannel()).open(request, request, "/process/r1", null);
            request.release();
            down.release(); // the exchange ended: the winning leg answered
            Exchange exchange = new DefaultExchange(camel);
            AtomicInteger done = new AtomicInteger();

            new AgentCall(endpoint, exchange, sync -> done.incrementAndGet(), down, AttemptHooks.NONE).start();

            assertThat(done).hasValue(1);
            assertThat(exchange.getException()).isInstanceOf(AgentCallCancelledException.class)
                    .hasMessage("the exchange ended before agent http://127.0.0.1:9 was called");
            assertThat(down.released()).isTrue();
        }
    }
}
