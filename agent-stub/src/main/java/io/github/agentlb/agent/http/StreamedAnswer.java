package io.github.agentlb.agent.http;

import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The reply a route leaves when it has written its own answer to the connection (a stream):
 * camel-netty-http writes it after the route, and {@link Http11ServerInitializer}'s last handler
 * drops it, so a streamed answer is not followed by another. Immutable.
 */
public final class StreamedAnswer extends DefaultHttpResponse {

    public StreamedAnswer() {
        super(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    }
}
