package io.github.agentlb.camel.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/1.1 on one agent connection: Netty's {@code HttpClientCodec} (an answer to {@code HEAD}, or
 * {@code 200} to {@code CONNECT}, has no body), and a connection that carries only the answer to
 * the request sent on it. A byte that comes while no answer is awaited closes the connection,
 * never to be used again: bytes past the end of an answer (its {@code Content-Length}, or its
 * terminating chunk), whether they come with its body or later while the connection is idle in the
 * pool, and anything before the first request. The answer that ended stays whole. nginx does the
 * same: "upstream sent more data than specified in Content-Length header", no keep-alive; its
 * cache of idle upstream connections closes one that becomes readable. An answer with both
 * {@code Transfer-Encoding: chunked} and {@code Content-Length} (RFC 9112 §6.3 item 3: "ought to be
 * handled as an error", a sign of request smuggling or response splitting) is passed on, framed by
 * its chunks, its {@code Content-Length} removed, and its connection closed after it, never reused.
 * An answer whose status is not three digits from 100 to 999, or whose {@code Transfer-Encoding} is other than
 * {@code chunked} alone, is marked a decoder failure: its call takes it as an agent's failure.
 *
 * <p>Confined to the connection's event loop.
 */
final class AgentCodec extends CombinedChannelDuplexHandler<AgentCodec.Answers, AgentCodec.Requests> {

    private static final Logger LOG = LoggerFactory.getLogger(AgentProducer.class);

    AgentCodec(String agent) {
        Answers answers = new Answers(agent);
        init(answers, new Requests(answers));
    }

    /** Decodes answers; closes the connection at a byte that comes while none is awaited. */
    static final class Answers extends HttpResponseDecoder {
        private final String agent;
        /** The method of the request whose answer is awaited; null while none is. */
        private HttpMethod awaited;
        /** Whether the answer being decoded is an interim one (1xx but 101): the final one follows. */
        private boolean interim;
        /** Whether bytes came while no answer was awaited: the connection is closed. */
        private boolean overrun;

        Answers(String agent) {
            this.agent = agent;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            if (awaited == null || overrun) {
                overrun(ctx, buffer);
                return;
            }
            int from = out.size();
            super.decode(ctx, buffer, out);
            for (int i = from; i < out.size(); i++) {
                Object decoded = out.get(i);
                if (decoded instanceof HttpResponse response) {
                    String malformed = response.decoderResult().isFailure() ? null : malformed(response);
                    if (malformed != null) {
                        response.setDecoderResult(DecoderResult.failure(new IllegalArgumentException(malformed)));
                    }
                    int status = response.status().code();
                    interim = malformed == null && status < 200 && status != 101;
                }
                if (decoded instanceof LastHttpContent && !interim) {
                    awaited = null; // the answer ended: whatever follows is over it
                }
            }
            if (awaited == null && buffer.isReadable()) {
                overrun(ctx, buffer);
            }
        }

        /**
         * A status line whose status is not three digits from 100 to 999 (RFC 9110 section 15; Netty
         * would take {@code 0200}, {@code +200} or {@code 2000} as a number) is not HTTP: the decoder
         * marks the answer failed.
         */
        @Override
        protected HttpMessage createMessage(String[] initialLine) {
            String status = initialLine[1];
            if (!(status.length() == 3 && status.charAt(0) != '0' && status.chars().allMatch(c -> c >= '0' && c <= '9'))) {
                throw new IllegalArgumentException("status " + status + " is not three digits from 100 to 999"
                        + " (RFC 9110 section 15)");
            }
            return super.createMessage(initialLine);
        }

        /**
         * Why an answer's head is not one to pass on, or null: a {@code Transfer-Encoding} other than {@code chunked} alone, whose
         * body the client could not be given as the agent framed it (RFC 9112 sections 6.1 and 6.3;
         * nginx: "upstream sent unknown Transfer-Encoding"). The call takes it as a failed agent.
         */
        private static String malformed(HttpResponse response) {
            List<String> codings = response.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
            if (!codings.isEmpty() && !(codings.size() == 1 && codings.get(0).trim().equalsIgnoreCase("chunked"))) {
                return "Transfer-Encoding other than chunked alone: " + String.join(", ", codings) + " (RFC 9112 section 6.1)";
            }
            return null;
        }

        /**
         * Bytes no request asked for: dropped, and the connection closed. Any answer decoded before
         * them still reaches its call, which ends it before the close is seen.
         */
        private void overrun(ChannelHandlerContext ctx, ByteBuf buffer) {
            int bytes = buffer.readableBytes();
            buffer.skipBytes(bytes);
            if (overrun || bytes == 0) {
                return;
            }
            overrun = true;
            LOG.debug("agent {} sent {} bytes after the end of its answer (past its Content-Length or last chunk,"
                    + " or while the connection was idle): connection closed, not reused", agent, bytes);
            ctx.close();
        }

        /**
         * Both {@code Transfer-Encoding: chunked} and {@code Content-Length}: Netty drops the latter and
         * reads the chunks; the answer is marked not kept alive, so its call closes the connection after
         * it rather than give it back to the pool (the agent's framing may be out of step with ours).
         * {@code Connection} is hop-by-hop: the close does not reach the client.
         */
        @Override
        protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
            super.handleTransferEncodingChunkedWithContentLength(message);
            HttpUtil.setKeepAlive(message, false);
            LOG.debug("agent {} answered with both Transfer-Encoding: chunked and Content-Length (RFC 9112 §6.3):"
                    + " passed on as chunked, connection closed after it, not reused", agent);
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpMessage msg) {
            int status = ((HttpResponse) msg).status().code();
            if (status >= 200 && (HttpMethod.HEAD.equals(awaited) || status == 200 && HttpMethod.CONNECT.equals(awaited))) {
                return true;
            }
            return super.isContentAlwaysEmpty(msg);
        }
    }

    /** Encodes requests; each one's answer is then awaited. */
    static final class Requests extends HttpRequestEncoder {
        private final Answers answers;

        Requests(Answers answers) {
            this.answers = answers;
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, Object msg, List<Object> out) throws Exception {
            if (msg instanceof HttpRequest request) {
                answers.awaited = request.method();
            }
            super.encode(ctx, msg, out);
        }
    }
}
