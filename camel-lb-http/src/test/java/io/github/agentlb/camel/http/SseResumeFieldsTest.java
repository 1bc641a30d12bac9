package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link SseResumeFields}: a {@code retry:} or {@code id:} line found whole or split over parts, and nothing else. */
class SseResumeFieldsTest {

    private static boolean seen(String... parts) {
        return scanned(parts).retrySeen();
    }

    private static boolean idSeen(String... parts) {
        return scanned(parts).idSeen();
    }

    private static SseResumeFields scanned(String... parts) {
        SseResumeFields watch = new SseResumeFields();
        for (String part : parts) {
            ByteBuf buf = Unpooled.copiedBuffer(part, StandardCharsets.UTF_8);
            int reader = buf.readerIndex();
            watch.scan(buf);
            assertThat(buf.readerIndex()).isEqualTo(reader);
            buf.release();
        }
        return watch;
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

    @Test
    void anIdLineWithAValueIsSeenWholeOrSplit() {
        assertThat(idSeen("id: 1\ndata: x\n\n")).isTrue();
        assertThat(idSeen("data: x\r\nid:7\r\n\r\n")).isTrue();
        assertThat(idSeen("retry: 10\ni", "d", ": ", "s-1/0\n")).isTrue();
        assertThat(idSeen("data: x\n", "id: a\n", "retry: 5\n")).isTrue();
    }

    @Test
    void anEmptyIdOrIdElsewhereThanAtALineStartIsNot() {
        assertThat(idSeen("id:\ndata: x\n\n")).isFalse();
        assertThat(idSeen("id: \r\ndata: x\n\n")).isFalse();
        assertThat(idSeen("data: id: 1\n\n")).isFalse();
        assertThat(idSeen(" id: 1\n")).isFalse();
        assertThat(idSeen("idle: 1\n", "i\nd: 2\n")).isFalse();
        assertThat(idSeen("data: {\"id\": 1}\n\n")).isFalse();
    }
}
