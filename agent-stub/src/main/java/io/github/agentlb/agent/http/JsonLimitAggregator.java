package io.github.agentlb.agent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.util.Map;

/**
 * Netty's {@link HttpObjectAggregator} (a request body, chunked or not, gathered up to
 * {@code maxContentLength} bytes) whose answer to a larger body is the project's JSON error,
 * {@code 413 {"error":"content too large","detail":...}}, rather than an empty 413; the
 * connection is then closed, as the rest of the body would otherwise have to be read. A request
 * that announces such a body and asks {@code Expect: 100-continue} (curl does above 1 MiB) gets the
 * same answer before sending it, and the connection is closed too.
 */
final class JsonLimitAggregator extends HttpObjectAggregator {

    private final int maxContentLength;

    JsonLimitAggregator(int maxContentLength) {
        super(maxContentLength, true);
        this.maxContentLength = maxContentLength;
    }

    /** Netty's answer to {@code Expect: 100-continue}, its empty 413 replaced by the JSON one. */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
        if (answer instanceof HttpResponse response
                && response.status().code() == HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code()) {
            ReferenceCountUtil.release(answer);
            return tooLarge();
        }
        return answer;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) throws Exception {
        if (!(oversized instanceof HttpRequest)) {
            super.handleOversizedMessage(ctx, oversized);
            return;
        }
        ctx.writeAndFlush(tooLarge()).addListener(ChannelFutureListener.CLOSE);
    }

    /** {@code 413 {"error":"content too large",...}} with {@code Connection: close}. */
    private FullHttpResponse tooLarge() {
        byte[] body;
        try {
            body = HttpReplies.errorJson("content too large",
                    Map.of("detail", "the request body is over " + maxContentLength + " bytes"));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("two strings are always JSON", e);
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpReplies.APPLICATION_JSON);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
