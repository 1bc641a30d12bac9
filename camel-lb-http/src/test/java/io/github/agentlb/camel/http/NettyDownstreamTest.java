package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The request body's references: what a key reads is a view, what is sent is retained; all released at the end. */
class NettyDownstreamTest {

    @Test
    void aViewForKeysTakesNoReferenceAndEverySentCopyIsReleased() {
        ByteBuf content = Unpooled.copiedBuffer("{\"messages\":[]}", StandardCharsets.UTF_8);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions",
                content);
        NettyDownstream down = ClientChannel.on(new EmbeddedChannel()).open(request, request, "/v1/chat/completions", null);
        request.release(); // the consumer's reference, released when its exchange is done
        assertThat(content.refCnt()).isEqualTo(1);

        ByteBuf view = down.bodyView();
        assertThat(view.toString(StandardCharsets.UTF_8)).isEqualTo("{\"messages\":[]}");
        assertThat(content.refCnt()).isEqualTo(1);
        ByteBuf sent = down.body();
        assertThat(content.refCnt()).isEqualTo(2);
        sent.release(); // the write to the agent releases it

        down.release();
        assertThat(content.refCnt()).isZero();
    }
}
