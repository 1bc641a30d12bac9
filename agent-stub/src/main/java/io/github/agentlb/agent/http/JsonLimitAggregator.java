package io.github.agentlb.agent.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Map;

/**
 * Netty's {@link HttpObjectAggregator} (a request body, chunked or not, gathered up to
 * {@code maxContentLength} bytes) whose answer to a larger body is the project's JSON error,
 * {@code 413 {"error":"content too large","detail":...}}, rather than an empty 413; the
 * connection is then closed, as the rest of the body would otherwise have to be read.
 */
final class JsonLimitAggregator extends HttpObjectAggregator {

    private final int maxContentLength;

    JsonLimitAggregator(int maxContentLength) {
        super(maxContentLength);
        this.maxContentLength = maxContentLength;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) throws Exception {
        if (!(oversized instanceof HttpRequest)) {
            super.handleOversizedMessage(ctx, oversized);
            return;
        }
        byte[] body = HttpReplies.errorJson("content too large",
                Map.of("detail", "the request body is over " + maxContentLength + " bytes"));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpReplies.APPLICATION_JSON);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
