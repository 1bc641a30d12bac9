package io.github.agentlb.agent.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Drops the answer camel-netty-http writes after a route that wrote its own answer (a stream) to
 * the connection: that route leaves a {@link StreamedAnswer} as the reply, which
 * ends here, written to nobody. Stateless and sharable; the last handler of the pipeline.
 */
@ChannelHandler.Sharable
final class DropStreamedAnswer extends ChannelOutboundHandlerAdapter {

    static final DropStreamedAnswer INSTANCE = new DropStreamedAnswer();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof StreamedAnswer) {
            promise.trySuccess();
            return;
        }
        super.write(ctx, msg, promise);
    }
}
