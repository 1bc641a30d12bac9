package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests whose framing a recipient could read otherwise than this server (request smuggling),
 * on the server's pipeline as {@link Http11ServerInitializer} builds it, on Netty's embedded
 * channel: each is answered 400 with the JSON error, the connection closed, nothing passed on.
 */
class RequestFramingTest {

    /** Stands for camel-netty-http: records each request's method, URI and body, answers 200 at once. */
    static class Camel extends ChannelInboundHandlerAdapter {
        final List<String> received = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof FullHttpRequest request) {
                received.add(request.method() + " " + request.uri() + " " + request.content().toString(StandardCharsets.US_ASCII));
                FullHttpResponse answer = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                answer.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
                ctx.writeAndFlush(answer);
            } else {
                received.add(msg.getClass().getSimpleName());
            }
            ReferenceCountUtil.release(msg);
        }
    }

    /** Stands for camel-netty-http answering only when the test says: keeps the request's context. */
    static final class HeldCamel extends Camel {
        private ChannelHandlerContext ctx;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            this.ctx = ctx;
            received.add(msg.getClass().getSimpleName());
            ReferenceCountUtil.release(msg);
        }

        /** Writes a whole empty 200. */
        void answer() {
            FullHttpResponse answer = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            answer.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
            ctx.writeAndFlush(answer);
        }

        /** Writes a streamed answer's head, no body yet. */
        void head() {
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked");
            ctx.writeAndFlush(head);
        }

        /** Ends the streamed answer. */
        void end() {
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    /** The server's pipeline (bodies counted, as the demo proxy's are), {@code camel} in Camel's place. */
    static EmbeddedChannel pipeline(Camel camel, long timeoutMs) {
        return new EmbeddedChannel(handlers(camel, timeoutMs));
    }

    /** The handlers of {@link #pipeline}. */
    static ChannelHandler[] handlers(Camel camel, long timeoutMs) {
        RequestReadTimeout timeout = new RequestReadTimeout(timeoutMs);
        HeldBodies held = new HeldBodies(0, 0, 0, 1 << 20, (head, prefix) -> true);
        return new ChannelHandler[] {timeout.bytes(), new Http11ServerCodec(4096, 8192, 8192),
            new JsonLimitAggregator(1 << 16, held), timeout.requests(), new OneRequestAtATime(), Http1Only.INSTANCE, camel};
    }

    static void send(EmbeddedChannel channel, String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
    }

    /** The answers written, each as status and body. */
    static List<String> answers(EmbeddedChannel channel) {
        EmbeddedChannel client = new EmbeddedChannel(new HttpResponseDecoder(), new HttpObjectAggregator(1 << 16));
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            client.writeInbound(out);
        }
        List<String> answers = new ArrayList<>();
        for (FullHttpResponse response = client.readInbound(); response != null; response = client.readInbound()) {
            answers.add(response.status().code() + " " + response.content().toString(StandardCharsets.UTF_8));
            response.release();
        }
        return answers;
    }

    private static String badRequest(String reason) {
        return "400 {\"error\":\"bad request\",\"detail\":\"malformed request: " + reason + "\"}";
    }

    /** Sends {@code bytes}, checks the one answer is the 400 for {@code reason}, nothing passed on, the connection closed. */
    private static void refused(String bytes, String reason) {
        Camel camel = new Camel();
        EmbeddedChannel channel = pipeline(camel, 60_000);
        send(channel, bytes);

        assertThat(answers(channel)).containsExactly(badRequest(reason));
        assertThat(camel.received).isEmpty();
        assertThat(channel.isOpen()).isFalse();
        channel.checkException();
        channel.finishAndReleaseAll();
    }

    private static final String CHUNKED_HEAD = "POST /process/first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
    private static final String SMUGGLED = "GET /process/SMUGGLED HTTP/1.1\r\nHost: x\r\n\r\n";

    @ParameterizedTest(name = "chunk size {0}")
    @CsvSource({
            "100000005, 100000005",  // read as 5 (mod 2^32) before
            "100000000, 100000000",  // read as 0, the last chunk, before
            "80000000, 80000000",    // 8 digits, over Integer.MAX_VALUE
            "00000000100000005, 100000005",
            "ffffffffffffffff0, ffffffff"})
    void aChunkSizeThatDoesNotFitIsRefusedAndWhatFollowsDropped(String size, String quoted) {
        refused(CHUNKED_HEAD + size + "\r\nhello\r\n0\r\n\r\n" + SMUGGLED,
                "chunk size " + quoted + " does not fit (RFC 9112 section 7.1)");
    }

    /** Found by a second trial: 9,000 zeros before the size, or a 9,000-byte extension, were answered 414 "uri too long". */
    @Test
    void aChunkSizeLineOverTheLineLimitIsABadRequestNotAnOverlongUri() {
        refused(CHUNKED_HEAD + "0".repeat(9000) + "5\r\nhello\r\n0\r\n\r\n" + SMUGGLED, "a chunk-size line is too long");
        refused(CHUNKED_HEAD + "5;" + "e".repeat(9000) + "\r\nhello\r\n0\r\n\r\n" + SMUGGLED, "a chunk-size line is too long");
    }

    @Test
    void aChunkSizeThatDoesNotFitIsRefusedWhenItsDigitsComeInTwoReadsAfterAWholeChunk() {
        Camel camel = new Camel();
        EmbeddedChannel channel = pipeline(camel, 60_000);
        send(channel, CHUNKED_HEAD + "5;ext=1\r\nhello\r\n1000");
        send(channel, "00005\r\nhello\r\n0\r\n\r\n" + SMUGGLED);

        assertThat(answers(channel)).containsExactly(badRequest("chunk size 100000005 does not fit (RFC 9112 section 7.1)"));
        assertThat(camel.received).isEmpty();
        assertThat(channel.isOpen()).isFalse();
        channel.finishAndReleaseAll();
    }

    @Test
    void aChunkSizeThatDoesNotFitInTheSecondOfTwoPipelinedChunkedRequestsIsRefusedAfterTheFirstIsAnswered() {
        Camel camel = new Camel();
        EmbeddedChannel channel = pipeline(camel, 60_000);
        send(channel, CHUNKED_HEAD + "7\r\n1234567\r\n0\r\nTrailer: 100000005\r\n\r\n"
                + CHUNKED_HEAD + "000000005\r\nhello\r\n100000000\r\n\r\n" + SMUGGLED);

        assertThat(answers(channel)).containsExactly("200 ",
                badRequest("chunk size 100000000 does not fit (RFC 9112 section 7.1)"));
        assertThat(camel.received).containsExactly("POST /process/first 1234567");
        assertThat(channel.isOpen()).isFalse();
        channel.finishAndReleaseAll();
    }

    @Test
    void chunkSizesWithLeadingZerosAndExtensionsThatFitPass() {
        Camel camel = new Camel();
        EmbeddedChannel channel = pipeline(camel, 60_000);
        send(channel, CHUNKED_HEAD + "0000000000000005;a=ffffffffff\r\nhello\r\n000\r\n\r\n" + SMUGGLED);

        assertThat(answers(channel)).containsExactly("200 ", "200 ");
        assertThat(camel.received).containsExactly("POST /process/first hello", "GET /process/SMUGGLED ");
        assertThat(channel.isOpen()).isTrue();
        channel.finishAndReleaseAll();
    }

    @Test
    void anHttp10RequestWithTransferEncodingIsRefusedAndWhatFollowsDropped() {
        refused("POST /process/h10te HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5\r\nhello\r\n0\r\n\r\nGET /process/SMUGGLED HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 section 6.1)");
    }

    @ParameterizedTest(name = "Content-Length: {0}")
    @CsvSource(delimiter = '|', value = {
            "5, 5|Multiple Content-Length values found: [5, 5]",
            "0x5|Content-Length value is not a number: 0x5",
            "5 0|Content-Length value is not a number: 5 0",
            "+5|Content-Length value is not a number: +5",
            "99999999999999999999|Content-Length value is not a number: 99999999999999999999"})
    void aContentLengthThatIsNotOneNumberIsRefusedWithoutAnException(String length, String reason) {
        refused("POST /process/a HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\nhello" + SMUGGLED, reason);
    }
}
