package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * Netty's {@code HttpServerCodec} with one difference: a request with both
 * {@code Transfer-Encoding} and {@code Content-Length} is marked as not decodable (Netty's own
 * decoder drops the {@code Content-Length} and goes on), so that {@link Http1Only} answers it 400
 * and closes the connection, as RFC 9112 §6.1 wants of a server ("MUST close the connection after
 * responding"): such a request is the shape of request smuggling. So is a {@code Transfer-Encoding}
 * other than {@code chunked} alone (RFC 9112 §6.3: "the server MUST respond with the 400 (Bad
 * Request) status code and then close the connection"), which Netty would read as an empty body
 * followed by the next request. As in Netty's codec, the encoder
 * learns each request's method, so the answer to HEAD has no body. Not sharable.
 */
final class Http11ServerCodec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {

    /** The cause a request with both framings carries in its decoder result. */
    static final class AmbiguousLengthException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        AmbiguousLengthException() {
            super("Transfer-Encoding together with Content-Length (RFC 9112 section 6.1)");
        }
    }

    /** The cause a request whose Transfer-Encoding is not {@code chunked} alone carries in its decoder result. */
    static final class UnsupportedTransferCodingException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UnsupportedTransferCodingException(String codings) {
            super("Transfer-Encoding other than chunked alone: " + codings + " (RFC 9112 section 6.3)");
        }
    }

    private final Queue<HttpMethod> methods = new ArrayDeque<>();

    Http11ServerCodec(int maxInitialLineLength, int maxHeaderSize, int maxChunkSize) {
        init(new Decoder(maxInitialLineLength, maxHeaderSize, maxChunkSize), new Encoder());
    }

    private final class Decoder extends HttpRequestDecoder {
        Decoder(int maxInitialLineLength, int maxHeaderSize, int maxChunkSize) {
            super(maxInitialLineLength, maxHeaderSize, maxChunkSize);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            int before = out.size();
            super.decode(ctx, buffer, out);
            for (int i = before; i < out.size(); i++) {
                if (out.get(i) instanceof HttpRequest request) {
                    methods.add(request.method());
                    refuseUnlessChunkedAlone(request);
                }
            }
        }

        /**
         * A request with Transfer-Encoding gets a length the proxy can trust only from {@code chunked}
         * alone: any other coding, or chunked not last, leaves the body's end unknown (Netty reads
         * such a body as empty, and what follows as the next request), so it is marked not decodable.
         */
        private void refuseUnlessChunkedAlone(HttpRequest request) {
            List<String> values = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
            if (values.isEmpty() || request.decoderResult().isFailure()) {
                return;
            }
            String codings = String.join(", ", values);
            if (!(values.size() == 1 && codings.trim().equalsIgnoreCase(HttpHeaderValues.CHUNKED.toString()))) {
                request.setDecoderResult(DecoderResult.failure(new UnsupportedTransferCodingException(codings)));
            }
        }

        @Override
        protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
            super.handleTransferEncodingChunkedWithContentLength(message);
            message.setDecoderResult(DecoderResult.failure(new AmbiguousLengthException()));
        }
    }

    private final class Encoder extends HttpResponseEncoder {
        private HttpMethod method;

        @Override
        protected void sanitizeHeadersBeforeEncode(HttpResponse msg, boolean isAlwaysEmpty) {
            if (!isAlwaysEmpty && HttpMethod.CONNECT.equals(method)
                    && msg.status().codeClass() == io.netty.handler.codec.http.HttpStatusClass.SUCCESS) {
                msg.headers().remove(io.netty.handler.codec.http.HttpHeaderNames.TRANSFER_ENCODING);
                return;
            }
            super.sanitizeHeadersBeforeEncode(msg, isAlwaysEmpty);
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse msg) {
            // An interim answer (1xx but 101) is followed by the final one for the same request.
            if (msg.status().codeClass() != io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL
                    || msg.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                method = methods.poll();
            }
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
        }
    }
}
