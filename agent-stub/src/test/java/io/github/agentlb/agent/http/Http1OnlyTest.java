package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link Http1Only} lets through to Camel, on Netty's embedded channel. */
class Http1OnlyTest {

    /** Stands for camel-netty-http: records what reaches it. */
    private static final class Camel extends ChannelInboundHandlerAdapter {
        final List<String> received = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received.add(msg.getClass().getSimpleName());
            ReferenceCountUtil.release(msg);
        }
    }

    /** The server's pipeline as {@code Http11ServerInitializer} builds it, {@code camel} in Camel's place, given {@code bytes}. */
    private static EmbeddedChannel received(Camel camel, String bytes) {
        EmbeddedChannel channel = new EmbeddedChannel(new Http11ServerCodec(4096, 8192, 8192), Http1Only.INSTANCE, camel);
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
        return channel;
    }

    private static String answer(EmbeddedChannel channel) {
        EmbeddedChannel client = new EmbeddedChannel(new HttpResponseDecoder(), new HttpObjectAggregator(1 << 16));
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            client.writeInbound(out);
        }
        FullHttpResponse response = client.readInbound();
        String text = response.status().code() + " " + response.content().toString(StandardCharsets.UTF_8);
        response.release();
        return text;
    }

    @Test
    void aTransferEncodingOtherThanChunkedAloneIsRefusedAndWhatFollowsDropped() {
        Camel camel = new Camel();
        EmbeddedChannel channel = received(camel, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                + "Transfer-Encoding: gzip\r\n\r\nGET /process/SMUGGLED HTTP/1.1\r\nHost: x\r\n\r\n");

        assertThat(answer(channel)).isEqualTo("400 {\"error\":\"bad request\",\"detail\":\"malformed request: "
                + "Transfer-Encoding other than chunked alone: gzip (RFC 9112 section 6.3)\"}");
        assertThat(camel.received).isEmpty();
        channel.finishAndReleaseAll();
    }

    @Test
    void theBodyOfARefusedRequestIsDroppedNotPassedOn() {
        Camel camel = new Camel();
        EmbeddedChannel channel = received(camel, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");

        assertThat(answer(channel)).isEqualTo("400 {\"error\":\"bad request\",\"detail\":\"malformed request: "
                + "Transfer-Encoding together with Content-Length (RFC 9112 section 6.1)\"}");
        assertThat(camel.received).isEmpty();
        channel.finishAndReleaseAll();
    }

    @Test
    void aWellFormedRequestAndItsBodyPass() {
        Camel camel = new Camel();
        EmbeddedChannel channel = received(camel, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                + "\r\n{}");

        assertThat(camel.received).containsExactly("DefaultHttpRequest", "DefaultLastHttpContent");
        channel.finishAndReleaseAll();
    }
}
