package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link SseRetryField}: a {@code retry:} line found whole or split over parts, and nothing else. */
class SseRetryFieldTest {

    private static boolean seen(String... parts) {
        SseRetryField watch = new SseRetryField();
        for (String part : parts) {
            ByteBuf buf = Unpooled.copiedBuffer(part, StandardCharsets.UTF_8);
            int reader = buf.readerIndex();
            watch.scan(buf);
            assertThat(buf.readerIndex()).isEqualTo(reader);
            buf.release();
        }
        return watch.seen();
    }

    @Test
    void aRetryLineIsSeenWholeOrSplit() {
        assertThat(seen("retry: 10\n\n")).isTrue();
        assertThat(seen("id: 1\nretry: 10\ndata: \n\n")).isTrue();
        assertThat(seen("id: 1\r\nret", "ry: 10\r\n")).isTrue();
        assertThat(seen("id: 1\n", "retry:", "5\n")).isTrue();
    }

    @Test
    void retryElsewhereThanAtALineStartIsNot() {
        assertThat(seen("data: retry: 10\n\n")).isFalse();
        assertThat(seen("data: x\n", " retry: 10\n")).isFalse();
        assertThat(seen("retr\n", "y: 10\n")).isFalse();
        assertThat(seen("id: 1\ndata: 2\n\n")).isFalse();
    }
}
