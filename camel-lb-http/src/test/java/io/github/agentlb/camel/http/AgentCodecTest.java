package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Answer heads an agent connection takes, on Netty's embedded channel. Found by a trial with a raw
 * agent: status {@code 2000} was passed on as {@code HTTP/1.1 2000 OK}; {@code Transfer-Encoding:
 * gzip} was passed on re-chunked with its coding dropped (gzip bytes labelled plain), and
 * {@code chunked, identity} read as chunked, where RFC 9112 section 6.3 reads such a body to the
 * connection's close. Each is now a failed agent (the call's JSON 502 or 503, the connection
 * closed), as nginx answers "upstream sent unknown Transfer-Encoding".
 */
class AgentCodecTest {

    /** The head {@code answer} decodes to after a GET was sent on the connection. */
    private static HttpResponse head(String answer) {
        EmbeddedChannel channel = new EmbeddedChannel(new AgentCodec("A1"));
        channel.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/x"));
        for (Object sent = channel.readOutbound(); sent != null; sent = channel.readOutbound()) {
            ReferenceCountUtil.release(sent);
        }
        ByteBuf bytes = Unpooled.copiedBuffer(answer, StandardCharsets.US_ASCII);
        channel.writeInbound(bytes);
        HttpResponse head = null;
        for (HttpObject read = channel.readInbound(); read != null; read = channel.readInbound()) {
            if (head == null && read instanceof HttpResponse response) {
                head = response;
            }
            ReferenceCountUtil.release(read);
        }
        channel.finishAndReleaseAll();
        return head;
    }

    private static String failure(String answer) {
        HttpResponse head = head(answer);
        assertThat(head).as(answer).isNotNull();
        return head.decoderResult().isFailure() ? head.decoderResult().cause().getMessage() : null;
    }

    @Test
    void aStatusOfOtherThanThreeDigitsIsAFailedAnswer() {
        // 0200, 000000200 and +200 found by a second trial: Netty reads them as the number 200.
        for (String status : new String[] {"2000", "99", "099", "0200", "000000200", "+200", "-20", "2O0"}) {
            assertThat(failure("HTTP/1.1 " + status + " OK\r\nContent-Length: 2\r\n\r\nok")).as(status)
                    .isEqualTo("status " + status + " is not three digits from 100 to 999 (RFC 9110 section 15)");
        }
        assertThat(failure("HTTP/1.1 599 Odd\r\nContent-Length: 2\r\n\r\nok")).isNull();
        assertThat(failure("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")).isNull();
    }

    @Test
    void aTransferEncodingOtherThanChunkedAloneIsAFailedAnswer() {
        assertThat(failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc"))
                .isEqualTo("Transfer-Encoding other than chunked alone: gzip (RFC 9112 section 6.1)");
        assertThat(failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n2\r\nok\r\n0\r\n\r\n"))
                .isEqualTo("Transfer-Encoding other than chunked alone: chunked, identity (RFC 9112 section 6.1)");
        assertThat(failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
                .isEqualTo("Transfer-Encoding other than chunked alone: gzip, chunked (RFC 9112 section 6.1)");
        assertThat(failure("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")).isNull();
    }
}
