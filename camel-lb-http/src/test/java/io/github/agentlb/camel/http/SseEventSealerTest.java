package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.AttemptHooks;
import io.github.agentlb.core.session.A2aTasks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SseEventSealer}: every event's task ids sealed however the stream is cut into parts, each
 * event given on as soon as its blank line is read, every other line as it came.
 */
class SseEventSealerTest {

    /** Hooks that seal as the balancer does, with {@code S(<id>)} for the seal. */
    private static final AttemptHooks HOOKS = new AttemptHooks() {
        @Override
        public java.util.Collection<String> requestHeaders() {
            return List.of();
        }

        @Override
        public boolean isBusy(int status, String retryAfter) {
            return false;
        }

        @Override
        public String clientValue(String header, String value) {
            return value;
        }

        @Override
        public boolean rewritesJsonAnswer() {
            return true;
        }

        @Override
        public byte[] clientAnswer(byte[] body) {
            return A2aTasks.sealAnswer(body, id -> "S(" + id + ")");
        }
    };

    /** An A2A v1.0 JSON-RPC stream (specification 9.4.2 and 3.2.3): a task, updates, keep-alives, other fields. */
    private static final String STREAM = ": connected\n\n"
            + "id: 1\nevent: message\n"
            + "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t-7\",\"contextId\":\"c-1\","
            + "\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}}\n\n"
            + ": keep-alive\n\n"
            + "retry: 5000\r\n"
            + "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t-7\",\"contextId\":\"c-1\","
            + "\"status\":{\"state\":\"TASK_STATE_WORKING\",\"message\":{\"messageId\":\"m-1\",\"taskId\":\"t-7\"}}}}}\r\n\r\n"
            + "data:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"artifactUpdate\":{\"taskId\":\"t-7\",\"artifact\":"
            + "{\"artifactId\":\"a-1\",\"parts\":[{\"text\":\"data: not a field\\n\\n\"}]}}}}\r\r"
            + "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"message\":{\"messageId\":\"m-2\",\"taskId\":\"t-7\"}}}\n"
            + "id: 2\n\n"
            + "data: [DONE]\n\n";

    private static final String SEALED = ": connected\n\n"
            + "id: 1\nevent: message\n"
            + "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"S(t-7)\",\"contextId\":\"c-1\","
            + "\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}}\n\n"
            + ": keep-alive\n\n"
            + "retry: 5000\r\n"
            + "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"S(t-7)\",\"contextId\":\"c-1\","
            + "\"status\":{\"state\":\"TASK_STATE_WORKING\",\"message\":{\"messageId\":\"m-1\",\"taskId\":\"S(t-7)\"}}}}}\r\n\r\n"
            + "data:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"artifactUpdate\":{\"taskId\":\"S(t-7)\",\"artifact\":"
            + "{\"artifactId\":\"a-1\",\"parts\":[{\"text\":\"data: not a field\\n\\n\"}]}}}}\r\r"
            + "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"message\":{\"messageId\":\"m-2\",\"taskId\":\"S(t-7)\"}}}\n"
            + "id: 2\n\n"
            + "data: [DONE]\n\n";

    private static ByteBuf buf(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
    }

    /** What the client gets of each part in turn; every buffer released after. */
    private static List<String> feed(List<String> parts) {
        SseEventSealer sealer = new SseEventSealer(HOOKS, ByteBufAllocator.DEFAULT);
        List<String> outs = new ArrayList<>();
        List<ByteBuf> ins = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            ByteBuf in = buf(parts.get(i));
            ins.add(in);
            ByteBuf out = i == parts.size() - 1 ? sealer.last(in) : sealer.next(in);
            outs.add(out.toString(StandardCharsets.UTF_8));
            out.release();
        }
        sealer.release();
        assertThat(ins).allSatisfy(in -> assertThat(in.refCnt()).isZero());
        return outs;
    }

    private static String whole(List<String> parts) {
        return String.join("", feed(parts));
    }

    @Test
    void everyEventOfAWholeStreamIsSealedAndEveryOtherLinePassesAsItCame() {
        assertThat(whole(List.of(STREAM))).isEqualTo(SEALED);
    }

    @Test
    void theStreamCutAnywhereInTwoOrThreeGivesTheSameBytes() {
        for (int cut = 0; cut <= STREAM.length(); cut++) {
            assertThat(whole(List.of(STREAM.substring(0, cut), STREAM.substring(cut)))).as("cut at %d", cut).isEqualTo(SEALED);
        }
        for (int cut = 0; cut + 7 <= STREAM.length(); cut += 3) {
            assertThat(whole(List.of(STREAM.substring(0, cut), STREAM.substring(cut, cut + 7), STREAM.substring(cut + 7))))
                    .as("cuts at %d, %d", cut, cut + 7).isEqualTo(SEALED);
        }
    }

    @Test
    void theStreamByteByByteGivesTheSameBytes() {
        List<String> bytes = new ArrayList<>();
        for (int i = 0; i < STREAM.length(); i++) {
            bytes.add(STREAM.substring(i, i + 1));
        }
        assertThat(whole(bytes)).isEqualTo(SEALED);
    }

    @Test
    void anEventGoesOnWhenItsBlankLineIsReadAndOtherLinesAtOnce() {
        String task = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t-1\"}}}";
        String update = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t-1\"}}}";
        assertThat(feed(List.of(
                ": ping\nid: 3\nda",
                "ta: " + task.substring(0, 20),
                task.substring(20) + "\n",
                "\nd",
                "ata: " + update + "\n\n: ping\n",
                "event: x\n",
                "")))
                .containsExactly(
                        ": ping\nid: 3\n",
                        "",
                        "",
                        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"S(t-1)\"}}}\n\n",
                        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"S(t-1)\"}}}\n\n: ping\n",
                        "event: x\n",
                        "");
    }

    @Test
    void aLineThatOnlyBeginsLikeDataPassesOnceItIsKnown() {
        assertThat(feed(List.of("dat", "um: 1\n", "dat", "\n\n", ""))).containsExactly("", "datum: 1\n", "", "dat\n\n", "");
    }

    @Test
    void dataOverSeveralLinesIsJoinedAndSentAsOneLine() {
        String event = "id: 9\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\n: note\ndata:\"result\":{\"task\":{\"id\":\"t-2\"}}}\ndata\nevent: e\n\n";
        assertThat(whole(List.of(event.substring(0, 30), event.substring(30))))
                .isEqualTo("id: 9\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"S(t-2)\"}}}\n: note\nevent: e\n\n");
    }

    /** The rewritten data goes on one data line with its value unchanged: line ends between tokens dropped, one in a string escaped. */
    @Test
    void theSealedDataIsOneLineWithTheSameValue() {
        byte[] json = "{\"a\":1,\r\n\"b\":\"x\ny \\\" \\\\\",\n\"c\":\"\\n\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(new String(SseEventSealer.oneLine(json), StandardCharsets.UTF_8))
                .isEqualTo("{\"a\":1,\"b\":\"x\\ny \\\" \\\\\",\"c\":\"\\n\"}");
        byte[] flat = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        assertThat(SseEventSealer.oneLine(flat)).isSameAs(flat);
    }

    @Test
    void anEventWithoutTaskIdsOrNotJsonPassesAsItCame() {
        String stream = "data: { \"jsonrpc\": \"2.0\", \"id\": 1, \"error\": {\"code\": -32001} }\n\ndata: hello\ndata: world\n\n";
        assertThat(whole(List.of(stream))).isEqualTo(stream);
    }

    @Test
    void anEventOverTheCapPassesAsItCameAndTheNextIsSealedAgain() {
        String big = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t-3\",\"pad\":\""
                + "x".repeat(SseEventSealer.MAX_EVENT_BYTES) + "\"}}}\n\n";
        String next = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t-3\"}}}\n\n";
        int half = big.length() / 2;
        List<String> outs = feed(List.of(big.substring(0, half), big.substring(half, big.length() - 20),
                big.substring(big.length() - 20) + next, ""));
        assertThat(outs.get(0)).isEmpty();
        assertThat(outs.get(1)).isEqualTo(big.substring(0, big.length() - 20));
        assertThat(outs.get(2)).isEqualTo(big.substring(big.length() - 20)
                + "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"S(t-3)\"}}}\n\n");
        assertThat(outs.get(3)).isEmpty();
    }

    @Test
    void anEventCutShortByTheStreamsEndPassesAsItCame() {
        assertThat(feed(List.of("id: 1\n", "data: {\"jsonrpc\":\"2.0\",\"result\":{\"task\":{\"id\":\"t-4\"}}}\n")))
                .containsExactly("id: 1\n", "data: {\"jsonrpc\":\"2.0\",\"result\":{\"task\":{\"id\":\"t-4\"}}}\n");
        assertThat(feed(List.of("da", ""))).containsExactly("", "da");
    }

    @Test
    void eventStreamTypes() {
        assertThat(SseEventSealer.isEventStream("text/event-stream")).isTrue();
        assertThat(SseEventSealer.isEventStream("Text/Event-Stream; charset=utf-8")).isTrue();
        assertThat(SseEventSealer.isEventStream("text/event-streams")).isFalse();
        assertThat(SseEventSealer.isEventStream("application/json")).isFalse();
        assertThat(SseEventSealer.isEventStream(null)).isFalse();
    }
}
