package io.github.agentlb.agent.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * Netty's {@code HttpServerCodec} with stricter framing: a request with both
 * {@code Transfer-Encoding} and {@code Content-Length} is marked as not decodable (Netty's own
 * decoder drops the {@code Content-Length} and goes on), so that {@link Http1Only} answers it 400
 * and closes the connection, as RFC 9112 §6.1 wants of a server ("MUST close the connection after
 * responding"): such a request is the shape of request smuggling. So is a {@code Transfer-Encoding}
 * other than {@code chunked} alone (RFC 9112 §6.3: "the server MUST respond with the 400 (Bad
 * Request) status code and then close the connection"), which Netty would read as an empty body
 * followed by the next request, and an HTTP/1.0 request with {@code Transfer-Encoding} (RFC 9112
 * §6.1). A chunked body whose chunk size does not fit ({@link ChunkSizeGuard}: more than 8 hex
 * digits after leading zeros, or over {@link Integer#MAX_VALUE}; Netty's decoder would wrap it
 * round) ends in a last part marked not decodable, and the connection's later bytes are dropped,
 * so that {@link Http1Only} answers 400 and closes. As in Netty's codec, the encoder learns each
 * request's method, so the answer to HEAD has no body. Not sharable.
 */
final class Http11ServerCodec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {

    /**
     * The cause a request whose framing the proxy does not trust carries in its decoder result; its
     * message is the 400's detail ({@link Http1Only}).
     */
    static final class UntrustedFramingException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UntrustedFramingException(String detail) {
            super(detail);
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

        /** Bytes of the connection Netty's decoder has read. */
        private long consumed;
        private final ChunkSizeGuard chunkSizes = new ChunkSizeGuard();
        /** A chunk size was refused: the rest of the connection's bytes are dropped. */
        private boolean broken;

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            if (broken) {
                buffer.skipBytes(buffer.readableBytes());
                return;
            }
            ChunkSizeGuard.ChunkSizeTooLargeException refused = chunkSizes.read(buffer, consumed);
            if (refused != null) {
                // As Netty's decoder marks a chunk it cannot read: an empty last part that failed.
                broken = true;
                consumed += buffer.readableBytes();
                buffer.skipBytes(buffer.readableBytes());
                LastHttpContent last = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
                last.setDecoderResult(DecoderResult.failure(refused));
                out.add(last);
                return;
            }
            int before = out.size();
            int from = buffer.readerIndex();
            super.decode(ctx, buffer, out);
            consumed += buffer.readerIndex() - from;
            for (int i = before; i < out.size(); i++) {
                if (out.get(i) instanceof HttpRequest request) {
                    methods.add(request.method());
                    refuseUntrustedFraming(request);
                    if (request.decoderResult().isSuccess() && HttpUtil.isTransferEncodingChunked(request)) {
                        // Netty's decoder returns right after a chunked request's head: its body starts here.
                        chunkSizes.start(consumed);
                    }
                } else if (out.get(i) instanceof HttpContent content
                        && content.decoderResult().cause() instanceof TooLongHttpLineException) {
                    // A chunk-size line over the line limit: the request line was fine, so not a 414.
                    content.setDecoderResult(DecoderResult.failure(
                            new UntrustedFramingException("a chunk-size line is too long")));
                }
            }
        }

        /**
         * A request with Transfer-Encoding gets a length the proxy can trust only from {@code chunked}
         * alone: any other coding, or chunked not last, leaves the body's end unknown (Netty reads
         * such a body as empty, and what follows as the next request), so it is marked not decodable.
         * So is an HTTP/1.0 request with Transfer-Encoding, which an HTTP/1.0 recipient would frame
         * by its Content-Length or the connection's end (RFC 9112 §6.1: "MUST treat the message as
         * if the framing is faulty"; nginx answers 400 since 1.21.1).
         */
        private void refuseUntrustedFraming(HttpRequest request) {
            List<String> values = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
            if (values.isEmpty() || request.decoderResult().isFailure()) {
                return;
            }
            String codings = String.join(", ", values);
            if (request.protocolVersion().majorVersion() == 1 && request.protocolVersion().minorVersion() == 0) {
                request.setDecoderResult(DecoderResult.failure(
                        new UntrustedFramingException("Transfer-Encoding in an HTTP/1.0 request (RFC 9112 section 6.1)")));
            } else if (!(values.size() == 1 && codings.trim().equalsIgnoreCase(HttpHeaderValues.CHUNKED.toString()))) {
                request.setDecoderResult(DecoderResult.failure(new UntrustedFramingException(
                        "Transfer-Encoding other than chunked alone: " + codings + " (RFC 9112 section 6.3)")));
            }
        }

        @Override
        protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
            super.handleTransferEncodingChunkedWithContentLength(message);
            message.setDecoderResult(DecoderResult.failure(new UntrustedFramingException(
                    "Transfer-Encoding together with Content-Length (RFC 9112 section 6.1)")));
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
