package io.github.agentlb.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamedBodies} with {@link HeldBodies}: a request is handed on once the bytes held are
 * enough, asked at the least held and at each doubling, and at the most held whatever the check.
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

    @Test
    void heldBodiesNameTheirFieldAndValue() {
        assertThatThrownBy(() -> HeldBodies.of(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heldBytes must be >= 0, was -1");
        assertThatThrownBy(() -> new HeldBodies(64, 63, 0, (h, b) -> true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxHeldBytes must be >= heldBytes (64), was 63");
        assertThatThrownBy(() -> new HeldBodies(64, 64, -1, (h, b) -> true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxExtraBytes must be >= 0, was -1");
        assertThatThrownBy(() -> new Http11Component(1_000, -1)).hasMessage("heldBodyBytes must be >= 0, was -1");
    }
}
