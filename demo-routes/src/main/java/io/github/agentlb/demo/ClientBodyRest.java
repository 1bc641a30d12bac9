package io.github.agentlb.demo;

import io.github.agentlb.agent.http.StreamedBody;
import io.github.agentlb.camel.http.BodyRest;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.FullHttpRequest;
import java.util.function.Consumer;

/**
 * The rest of a request body still arriving at the proxy's consumer ({@link StreamedBody}), as
 * the {@code agent:} endpoints take it ({@link BodyRest}). Confined to the client connection's
 * event loop, as both are.
 */
record ClientBodyRest(StreamedBody body) implements BodyRest {

    /** The rest of {@code request}'s body, or null when its content is the whole body. */
    static BodyRest of(FullHttpRequest request) {
        return request instanceof StreamedBody.Prefix prefix && prefix.rest() != null
                ? new ClientBodyRest(prefix.rest()) : null;
    }

    @Override
    public long length() {
        return body.length();
    }

    @Override
    public boolean started() {
        return body.started();
    }

    @Override
    public void pipe(Consumer<ByteBuf> part, Runnable end, Consumer<Throwable> failed) {
        body.pipe(part, end, failed);
    }

    @Override
    public void discard() {
        body.discard();
    }
}
