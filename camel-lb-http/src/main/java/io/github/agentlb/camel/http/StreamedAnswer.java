package io.github.agentlb.camel.http;

import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The body of an exchange whose answer went to the client ({@link NettyDownstream#answeredBody()}):
 * camel-netty-http's binding passes an {@code HttpResponse} body on as the consumer's reply, and
 * {@link ClientChannel} drops it, so nothing follows the streamed answer. Never written.
 */
final class StreamedAnswer extends DefaultHttpResponse {

    private final NettyDownstream downstream;

    StreamedAnswer(NettyDownstream downstream) {
        super(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        this.downstream = downstream;
    }

    /** The request whose answer was streamed. */
    NettyDownstream downstream() {
        return downstream;
    }

    @Override
    public String toString() {
        return "answer streamed to the client by an agent: " + downstream;
    }
}
