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
 * same answer before sending it, and the connection is closed too. An expectation other than
 * {@code 100-continue} gets Netty's 417 as the same JSON ({@code "expectation failed"}), the
 * connection closed (RFC 9110 §10.1.1).
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
        if (answer instanceof HttpResponse response
                && response.status().code() == HttpResponseStatus.EXPECTATION_FAILED.code()) {
            ReferenceCountUtil.release(answer);
            return refusal(HttpResponseStatus.EXPECTATION_FAILED, "expectation failed",
                    "only Expect: 100-continue is supported");
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
        return refusal(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "content too large",
                "the request body is over " + maxContentLength + " bytes");
    }

    /** {@code status {"error":error,"detail":detail}} with {@code Connection: close}. */
    private static FullHttpResponse refusal(HttpResponseStatus status, String error, String detail) {
        byte[] body;
        try {
            body = HttpReplies.errorJson(error, Map.of("detail", detail));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("two strings are always JSON", e);
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpReplies.APPLICATION_JSON);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
