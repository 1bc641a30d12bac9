package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamedBodies} with {@link HeldBodies}: a request is handed on once the bytes held are
 * enough, asked at the least held and at each doubling, and at the most held whatever the check;
 * all bodies held, streamed or gathered whole, stay within the most for all connections.
 */
class StreamedBodiesTest {

    private final List<Integer> asked = new ArrayList<>();

    /** Sends a head announcing 2,000 bytes, then parts of 100 until one is handed on; returns the bytes it held. */
    private int heldWhenHandedOn(HeldBodies held) {
        EmbeddedChannel channel = new EmbeddedChannel(new StreamedBodies(held, 1 << 20));
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions");
        head.headers().set(HttpHeaderNames.CONTENT_LENGTH, 2_000);
        channel.writeInbound(head);
        for (int sent = 0; sent < 2_000; sent += 100) {
            channel.writeInbound(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[100])));
            Object out = channel.readInbound();
            if (out instanceof StreamedBody.Prefix prefix) {
                int bytes = prefix.content().readableBytes();
                prefix.release();
                channel.finishAndReleaseAll();
                return bytes;
            }
            assertThat(out).as("nothing handed on before").isNull();
        }
        throw new AssertionError("never handed on");
    }

    private BiPredicate<HttpRequest, ByteBuf> enoughFrom(int bytes) {
        return (head, prefix) -> {
            asked.add(prefix.readableBytes());
            assertThat(prefix.isReadOnly()).isTrue();
            return prefix.readableBytes() >= bytes;
        };
    }

    @Test
    void heldUntilTheCheckSaysEnoughAskedAtEachDoubling() {
        assertThat(heldWhenHandedOn(new HeldBodies(64, 1024, 1 << 20, enoughFrom(300)))).isEqualTo(300);
        assertThat(asked).containsExactly(100, 200, 300);
    }

    @Test
    void handedOnAtTheMostHeldWhateverTheCheck() {
        assertThat(heldWhenHandedOn(new HeldBodies(64, 1024, 1 << 20, enoughFrom(Integer.MAX_VALUE)))).isEqualTo(1100);
        assertThat(asked).containsExactly(100, 200, 300, 600);
    }

    @Test
    void enoughAtOnceIsTheLeastHeld() {
        assertThat(heldWhenHandedOn(HeldBodies.of(64))).isEqualTo(100);
        assertThat(heldWhenHandedOn(new HeldBodies(64, 1024, 1 << 20, enoughFrom(0)))).isEqualTo(100);
        assertThat(asked).containsExactly(100);
    }

    /**
     * All connections together hold at most {@code maxExtraBytes} beyond their least: one that would
     * pass it is handed on with what it has, and what was held is given back once handed on.
     */
    @Test
    void connectionsTogetherHoldNoMoreThanTheExtraBytes() {
        HeldBodies held = new HeldBodies(64, 1024, 250, enoughFrom(Integer.MAX_VALUE));
        EmbeddedChannel a = new EmbeddedChannel(new StreamedBodies(held, 1 << 20));
        EmbeddedChannel b = new EmbeddedChannel(new StreamedBodies(held, 1 << 20));
        for (EmbeddedChannel channel : List.of(a, b)) {
            HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions");
            head.headers().set(HttpHeaderNames.CONTENT_LENGTH, 2_000);
            channel.writeInbound(head);
        }
        a.writeInbound(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[100])));
        a.writeInbound(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[100])));
        assertThat((Object) a.readInbound()).as("a holds 200: 136 beyond the least").isNull();
        assertThat(held.extraHeld()).isEqualTo(136);
        b.writeInbound(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[100])));
        assertThat((Object) b.readInbound()).as("b: 36 more fit").isNull();
        assertThat(held.extraHeld()).isEqualTo(172);
        b.writeInbound(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[100])));
        Object handed = b.readInbound();
        assertThat(handed).as("b would pass 250: handed on with its 200").isInstanceOf(StreamedBody.Prefix.class);
        assertThat(((StreamedBody.Prefix) handed).content().readableBytes()).isEqualTo(200);
        ((StreamedBody.Prefix) handed).release();
        assertThat(held.extraHeld()).as("b's given back").isEqualTo(136);
        a.writeInbound(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[100])));
        assertThat((Object) a.readInbound()).as("a: 236 fits now").isNull();
        a.close();
        assertThat(held.extraHeld()).as("a's given back when its connection closed").isZero();
        b.finishAndReleaseAll();
        a.finishAndReleaseAll();
    }

    private static EmbeddedChannel streaming(HeldBodies held) {
        return new EmbeddedChannel(new StreamedBodies(held, 1 << 20));
    }

    private static EmbeddedChannel gathering(HeldBodies held) {
        return new EmbeddedChannel(new JsonLimitAggregator(1 << 20, held));
    }

    private static void head(EmbeddedChannel channel, long length) {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/chat/completions");
        if (length < 0) {
            HttpUtil.setTransferEncodingChunked(head, true);
        } else {
            head.headers().set(HttpHeaderNames.CONTENT_LENGTH, length);
        }
        channel.writeInbound(head);
    }

    private static void part(EmbeddedChannel channel, int bytes) {
        channel.writeInbound(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[bytes])));
    }

    /**
     * All connections together hold at most {@code maxBytes} of bodies still arriving: a body
     * begins only once its least held fits, so that every body begun can be handed on (else each
     * would wait for the others), its connection unread until then; a prefix handed on counts until
     * its request is freed; a read already made is held and counted.
     */
    @Test
    void aBodyWhoseLeastHeldDoesNotFitWaitsUnreadUntilBytesAreGivenBack() {
        HeldBodies held = new HeldBodies(300, 300, 0, 500, (h, b) -> true);
        EmbeddedChannel a = streaming(held);
        EmbeddedChannel b = streaming(held);
        head(a, 2_000);
        assertThat(held.bytesHeld()).as("a's least reserved").isEqualTo(300);
        head(b, 2_000);
        assertThat(b.config().isAutoRead()).as("300 more would pass 500: b is not read").isFalse();
        assertThat(held.connectionsWaiting()).isEqualTo(1);
        part(b, 100);
        assertThat(held.bytesHeld()).as("b's read made is held").isEqualTo(400);
        part(a, 100);
        part(a, 100);
        part(a, 100);
        StreamedBody.Prefix prefix = a.readInbound();
        assertThat(prefix.content().readableBytes()).isEqualTo(300);
        assertThat(held.bytesHeld()).as("a's prefix handed on still counts").isEqualTo(400);
        b.runPendingTasks();
        assertThat(b.config().isAutoRead()).isFalse();

        prefix.release();
        assertThat(held.bytesHeld()).as("a's freed").isEqualTo(100);
        b.runPendingTasks();
        assertThat(b.config().isAutoRead()).as("b's least fits now").isTrue();
        assertThat(held.bytesHeld()).isEqualTo(300);
        assertThat(held.connectionsWaiting()).isZero();
        part(b, 100);
        part(b, 100);
        StreamedBody.Prefix second = b.readInbound();
        assertThat(second.content().readableBytes()).isEqualTo(300);
        second.release();
        assertThat(held.bytesHeld()).isZero();
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
    }

    /** A connection that closes gives back what its body held, whether it waited or not. */
    @Test
    void aConnectionThatClosesGivesBackItsBodysBytes() {
        HeldBodies held = new HeldBodies(300, 300, 0, 500, (h, b) -> true);
        EmbeddedChannel a = streaming(held);
        EmbeddedChannel b = streaming(held);
        head(a, 2_000);
        part(a, 200);
        head(b, 2_000);
        part(b, 100);
        assertThat(held.bytesHeld()).isEqualTo(400);
        b.close();
        assertThat(held.bytesHeld()).isEqualTo(300);
        a.close();
        assertThat(held.bytesHeld()).isZero();
        assertThat(held.connectionsWaiting()).as("b's wait dropped").isZero();
        EmbeddedChannel c = streaming(held);
        head(c, 2_000);
        assertThat(c.config().isAutoRead()).isTrue();
        c.close();
        assertThat(held.bytesHeld()).isZero();
    }

    /** The rest of a body handed on, while nobody sends it on, counts too: past the most its client is not read. */
    @Test
    void theRestHeldUntilItIsSentCountsAndItsClientWaitsPastTheMost() {
        HeldBodies held = new HeldBodies(100, 100, 0, 400, (h, b) -> true);
        EmbeddedChannel a = streaming(held);
        head(a, 2_000);
        part(a, 100);
        StreamedBody.Prefix prefix = a.readInbound();
        part(a, 100);
        part(a, 100);
        part(a, 100);
        assertThat(held.bytesHeld()).isEqualTo(400);
        assertThat(a.config().isAutoRead()).isTrue();
        part(a, 100);
        assertThat(held.bytesHeld()).isEqualTo(500);
        assertThat(a.config().isAutoRead()).as("past 400: not read").isFalse();
        List<Integer> sent = new ArrayList<>();
        prefix.rest().pipe(part -> {
            sent.add(part.readableBytes());
            part.release();
        }, () -> { }, failure -> { });
        assertThat(sent).containsExactly(100, 100, 100, 100);
        assertThat(held.bytesHeld()).as("the prefix only").isEqualTo(100);
        assertThat(a.config().isAutoRead()).as("sent on: read again").isTrue();
        prefix.release();
        assertThat(held.bytesHeld()).isZero();
        a.finishAndReleaseAll();
    }

    /**
     * A body gathered whole counts while it arrives: one announced over 16 KiB begins once all of it
     * fits, a chunked one is read until it passes the most; a small one is neither counted nor kept
     * waiting.
     */
    @Test
    void aBodyGatheredWholeCountsWhileItArrivesAndASmallOneNever() {
        HeldBodies held = new HeldBodies(0, 0, 0, 40_000, (h, b) -> true);
        EmbeddedChannel c = gathering(held);
        EmbeddedChannel d = gathering(held);
        EmbeddedChannel chunked = gathering(held);
        EmbeddedChannel small = gathering(held);
        head(c, 30_000);
        assertThat(held.bytesHeld()).isEqualTo(30_000);
        head(d, 20_000);
        assertThat(d.config().isAutoRead()).as("20,000 more would pass 40,000").isFalse();
        head(small, 16_384);
        part(small, 8_192);
        small.writeInbound(new DefaultLastHttpContent(Unpooled.wrappedBuffer(new byte[8_192])));
        assertThat(small.config().isAutoRead()).isTrue();
        assertThat((Object) small.readInbound()).isInstanceOf(FullHttpRequest.class);
        assertThat(held.bytesHeld()).as("the small body never counted").isEqualTo(30_000);
        head(chunked, -1);
        part(chunked, 8_000);
        assertThat(chunked.config().isAutoRead()).isTrue();
        part(chunked, 8_000);
        assertThat(held.bytesHeld()).isEqualTo(46_000);
        assertThat(chunked.config().isAutoRead()).as("past 40,000").isFalse();

        for (int sent = 0; sent < 24_000; sent += 8_000) {
            part(c, 8_000);
        }
        c.writeInbound(new DefaultLastHttpContent(Unpooled.wrappedBuffer(new byte[6_000])));
        FullHttpRequest whole = c.readInbound();
        assertThat(whole.content().readableBytes()).isEqualTo(30_000);
        assertThat(held.bytesHeld()).as("c's given back once whole").isEqualTo(16_000);
        d.runPendingTasks();
        chunked.runPendingTasks();
        assertThat(d.config().isAutoRead()).as("d's 20,000 fit now").isTrue();
        assertThat(held.bytesHeld()).isEqualTo(36_000);
        assertThat(chunked.config().isAutoRead()).as("a read more does not fit").isFalse();
        for (int sent = 0; sent < 20_000; sent += 10_000) {
            part(d, 10_000);
        }
        d.writeInbound(new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER));
        ((FullHttpRequest) d.readInbound()).release();
        assertThat(held.bytesHeld()).isEqualTo(16_000);
        chunked.runPendingTasks();
        assertThat(chunked.config().isAutoRead()).as("the first waiting is woken whatever it needs").isTrue();
        whole.release();
        chunked.writeInbound(new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER));
        assertThat(held.bytesHeld()).isZero();
        for (EmbeddedChannel channel : List.of(c, d, chunked, small)) {
            channel.finishAndReleaseAll();
        }
    }

    /**
     * A chunked body's size is not known before its end: past the small size it reserves the most a
     * body may be, so that every chunked body that goes on can end. Before, slow chunked bodies that
     * together passed the most all waited, none could end, and each got its 408.
     */
    @Test
    void aChunkedBodyPastTheSmallSizeReservesTheLargestBodySoThatEveryOneGoingOnCanEnd() {
        HeldBodies held = new HeldBodies(0, 0, 0, 2_500_000, (h, b) -> true);
        EmbeddedChannel a = gathering(held);
        EmbeddedChannel b = gathering(held);
        EmbeddedChannel c = gathering(held);
        for (EmbeddedChannel channel : List.of(a, b, c)) {
            head(channel, -1);
            part(channel, 20_000);
        }
        assertThat(held.bytesHeld()).as("a and b reserve 1 MiB each, c its 20,000 read").isEqualTo(2 * (1 << 20) + 20_000);
        assertThat(c.config().isAutoRead()).as("c's 1 MiB does not fit").isFalse();
        for (int sent = 20_000; sent < 900_000; sent += 20_000) {
            part(a, 20_000);
            part(b, 20_000);
        }
        assertThat(a.config().isAutoRead()).as("a within its reservation").isTrue();
        assertThat(b.config().isAutoRead()).as("b within its reservation").isTrue();
        a.writeInbound(new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER));
        FullHttpRequest whole = a.readInbound();
        assertThat(whole.content().readableBytes()).isEqualTo(900_000);
        whole.release();
        c.runPendingTasks();
        assertThat(c.config().isAutoRead()).as("c goes on once a's reservation is given back").isTrue();
        assertThat(held.bytesHeld()).isEqualTo(2 * (1 << 20));
        for (EmbeddedChannel channel : List.of(b, c)) {
            channel.writeInbound(new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER));
            ((FullHttpRequest) channel.readInbound()).release();
        }
        assertThat(held.bytesHeld()).isZero();
        for (EmbeddedChannel channel : List.of(a, b, c)) {
            channel.finishAndReleaseAll();
        }
    }

    /** A chunked body broken off by a malformed chunk stays broken when counted (its parts copied): the request is a failure, not a shorter body. */
    @Test
    void aCountedChunkedBodyBrokenByAMalformedChunkStaysBroken() {
        HeldBodies held = new HeldBodies(0, 0, 0, 1 << 20, (h, b) -> true);
        EmbeddedChannel channel = new EmbeddedChannel(new HttpRequestDecoder(), new JsonLimitAggregator(1 << 20, held));
        channel.writeInbound(Unpooled.copiedBuffer("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZZ\r\n", StandardCharsets.US_ASCII));
        FullHttpRequest request = channel.readInbound();

        assertThat(request.decoderResult().isFailure()).isTrue();
        request.release();
        channel.finishAndReleaseAll();
        assertThat(held.bytesHeld()).isZero();
    }

    @Test
    void heldBodiesNameTheirFieldAndValue() {
        assertThatThrownBy(() -> HeldBodies.of(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heldBytes must be >= 0, was -1");
        assertThatThrownBy(() -> new HeldBodies(64, 63, 0, (h, b) -> true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxHeldBytes must be >= heldBytes (64), was 63");
        assertThatThrownBy(() -> new HeldBodies(64, 64, -1, (h, b) -> true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxExtraBytes must be >= 0, was -1");
        assertThatThrownBy(() -> new HeldBodies(64, 64, 0, 0, (h, b) -> true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBytes must be >= 1, was 0");
        assertThatThrownBy(() -> new Http11Component(1_000, -1)).hasMessage("heldBodyBytes must be >= 0, was -1");
    }
}
