package io.github.agentlb.agent.http;

import static io.github.agentlb.agent.http.RequestFramingTest.answers;
import static io.github.agentlb.agent.http.RequestFramingTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A request refused behind one still being answered, on the same connection: the answers go in
 * request order (RFC 9112 §9.3.2), the first answer, then the refusal, then the connection closed;
 * on the server's pipeline on Netty's embedded channel.
 */
class PipelinedRefusalTest {

    private static final String BIG_HEADER = "a".repeat(9000);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "Content-Length with chunked|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 5\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n|400",
            "chunked, identity|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked, identity\\r\\n\\r\\n0\\r\\n\\r\\n|400",
            "chunk size -5|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n-5\\r\\nhello\\r\\n0\\r\\n\\r\\n|400",
            "chunk size over 32 bits|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n100000005\\r\\nhello\\r\\n0\\r\\n\\r\\n|400",
            "no Host|GET /p2 HTTP/1.1\\r\\n\\r\\n|400",
            "HTTP/2.0|GET /p2 HTTP/2.0\\r\\nHost: x\\r\\n\\r\\n|505",
            "FOO|FOO /p2 HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n|501",
            "headers too long|GET /p2 HTTP/1.1\\r\\nHost: x\\r\\nX: BIG\\r\\n\\r\\n|431",
            "two Content-Length|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\nab|400",
            "Content-Length 1, 1|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 1, 1\\r\\n\\r\\na|400",
            "Expect other than 100-continue|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 1\\r\\nExpect: foo\\r\\n\\r\\na|417",
            "body over the limit|POST /p2 HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 99999999999\\r\\n\\r\\na|413"})
    void theRefusalComesAfterTheAnswerBeforeItThenTheConnectionCloses(String name, String second, int status) {
        RequestFramingTest.HeldCamel camel = new RequestFramingTest.HeldCamel();
        EmbeddedChannel channel = RequestFramingTest.pipeline(camel, 60_000);
        send(channel, ("GET /p1 HTTP/1.1\r\nHost: x\r\n\r\n" + second).replace("\\r\\n", "\r\n").replace("BIG", BIG_HEADER));
        assertThat(channel.isOpen()).as("open while the first request is answered").isTrue();
        assertThat(answers(channel)).as("nothing before the first answer").isEmpty();
        camel.answer();
        channel.runPendingTasks();

        List<String> statuses = answers(channel).stream().map(a -> a.substring(0, 3)).collect(Collectors.toList());
        assertThat(statuses).containsExactly("200", String.valueOf(status));
        assertThat(camel.received).containsExactly("AggregatedFullHttpRequest");
        assertThat(channel.isOpen()).isFalse();
        channel.finishAndReleaseAll();
    }
}
