package io.github.agentlb.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where A2A v1.0 (and v0.3) JSON-RPC requests and answers carry task ids, as the specifications' examples show them. */
class A2aTasksTest {

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aTaskCallCarriesItsTaskInParamsIdWhereverMethodStands() {
        assertThat(A2aTasks.call(bytes("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"GetTask\",\"params\":{\"id\":\"t-1\",\"historyLength\":10}}")))
                .isEqualTo(new A2aTasks.Call("GetTask", "t-1"));
        assertThat(A2aTasks.call(bytes("{\"params\":{\"id\":\"t-2\"},\"id\":\"x\",\"method\":\"CancelTask\"}")))
                .isEqualTo(new A2aTasks.Call("CancelTask", "t-2"));
        assertThat(A2aTasks.call(bytes("{\"method\":\"SubscribeToTask\",\"params\":{}}")))
                .isEqualTo(new A2aTasks.Call("SubscribeToTask", ""));
    }

    /**
     * A2A v0.3's method names, which its SDKs' clients send, carry their tasks where v1.0's do:
     * {@code tasks/get}, {@code tasks/cancel}, {@code tasks/resubscribe} in {@code params.id},
     * {@code message/send} and {@code message/stream} in {@code params.message.taskId}; a v0.3 answer's
     * task is its {@code result} itself ({@code "kind":"task"}), or an event's {@code taskId}.
     */
    @Test
    void a2aV03MethodNamesCarryTheirTasksAsV10s() {
        assertThat(A2aTasks.call(bytes("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/get\",\"params\":{\"id\":\"t-1\"}}")))
                .isEqualTo(new A2aTasks.Call("tasks/get", "t-1"));
        assertThat(A2aTasks.call(bytes("{\"method\":\"tasks/cancel\",\"params\":{\"id\":\"t-2\"}}")))
                .isEqualTo(new A2aTasks.Call("tasks/cancel", "t-2"));
        assertThat(A2aTasks.call(bytes("{\"method\":\"tasks/resubscribe\",\"params\":{\"id\":\"t-3\"}}")))
                .isEqualTo(new A2aTasks.Call("tasks/resubscribe", "t-3"));
        assertThat(A2aTasks.call(bytes("{\"method\":\"message/send\",\"params\":{\"message\":{\"kind\":\"message\","
                + "\"messageId\":\"m\",\"taskId\":\"t-4\"}}}"))).isEqualTo(new A2aTasks.Call("message/send", "t-4"));
        assertThat(A2aTasks.call(bytes("{\"method\":\"message/stream\",\"params\":{\"message\":{\"messageId\":\"m\"}}}")))
                .isEqualTo(new A2aTasks.Call("message/stream", null));
        assertThat(A2aTasks.leadingMethod(bytes("{\"method\":\"tasks/get\",\"params\":{\"id\":"), 64)).isEqualTo("tasks/get");
        String task = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"task\",\"id\":\"t-5\",\"contextId\":\"c\","
                + "\"status\":{\"state\":\"working\"}}}";
        assertThat(new String(A2aTasks.sealAnswer(bytes(task), id -> "S(" + id + ")"), StandardCharsets.UTF_8))
                .isEqualTo(task.replace("\"t-5\"", "\"S(t-5)\""));
        String update = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t-5\","
                + "\"contextId\":\"c\",\"final\":false}}";
        assertThat(new String(A2aTasks.sealAnswer(bytes(update), id -> "S(" + id + ")"), StandardCharsets.UTF_8))
                .isEqualTo(update.replace("\"t-5\"", "\"S(t-5)\""));
    }

    /** A body cut off inside its JSON object, as one held only in part is; one broken before its end, or whole, is not. */
    @Test
    void aBodyIsCutShortWhenItEndsInsideItsObject() {
        for (String cut : List.of("{", "{\"a\":", "{\"a\":1", "{\"a\":\"ab", "{\"a\":{\"b\":[1,2", "{\"method\":\"GetTask\",\"params\":{\"id\":\"x\"")) {
            assertThat(A2aTasks.cutShort(bytes(cut))).as(cut).isTrue();
        }
        for (String notCut : List.of("{}", "{\"a\":1}", "{\"a\":1} ", "[1,2", "\"x", "", "{\"a\":1,}", "{\"a\" 1", "{\"a\":1}}")) {
            assertThat(A2aTasks.cutShort(bytes(notCut))).as(notCut).isFalse();
        }
    }

    @Test
    void aMessageContinuesATaskOnlyWithItsTaskId() {
        assertThat(A2aTasks.call(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"messageId\":\"m\",\"taskId\":\"t-3\","
                + "\"parts\":[{\"text\":\"{\\\"taskId\\\":\\\"no\\\"}\"}]}}}")))
                .isEqualTo(new A2aTasks.Call("SendMessage", "t-3"));
        assertThat(A2aTasks.call(bytes("{\"method\":\"SendStreamingMessage\",\"params\":{\"message\":{\"messageId\":\"m\"}}}")))
                .isEqualTo(new A2aTasks.Call("SendStreamingMessage", null));
    }

    /**
     * An empty {@code taskId} is an unset field (A2A v1.0's JSON is protobuf's, where "" is the
     * default): the official A2A Java SDK client writes {@code "taskId":"","contextId":""} on every
     * message that starts a task (before: a 400 "bad task id", no task could be started). An
     * answer's empty {@code taskId} is likewise none: left as it is, not sealed into an id.
     */
    @Test
    void anEmptyTaskIdIsUnsetAsInProtobufJsonAndIsNeverSealed() {
        assertThat(A2aTasks.call(bytes("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"SendMessage\",\"params\":{\"message\":"
                + "{\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}],\"messageId\":\"m\",\"contextId\":\"\",\"taskId\":\"\"}}}")))
                .isEqualTo(new A2aTasks.Call("SendMessage", null));
        assertThat(A2aTasks.call(bytes("{\"method\":\"SendStreamingMessage\",\"params\":{\"message\":{\"taskId\":\"\"}}}")))
                .isEqualTo(new A2aTasks.Call("SendStreamingMessage", null));
        // A task call's own id is never optional: empty, it is no task id this balancer gave.
        assertThat(A2aTasks.call(bytes("{\"method\":\"GetTask\",\"params\":{\"id\":\"\"}}")))
                .isEqualTo(new A2aTasks.Call("GetTask", ""));
        byte[] message = bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"message\":{\"messageId\":\"m\",\"taskId\":\"\","
                + "\"contextId\":\"\"}}}");
        assertThat(A2aTasks.sealAnswer(message, id -> "S(" + id + ")")).isSameAs(message);
        String task = "{\"result\":{\"task\":{\"id\":\"t-1\",\"status\":{\"message\":{\"taskId\":\"\"}}}}}";
        assertThat(new String(A2aTasks.sealAnswer(bytes(task), id -> "S(" + id + ")"), StandardCharsets.UTF_8))
                .isEqualTo(task.replace("\"t-1\"", "\"S(t-1)\""));
    }

    /** The first bytes of a message too long to read whole: whether they carry a task id that is set. */
    @Test
    void theFirstBytesOfALongMessageSayWhetherItContinuesATask() {
        String cut = "x".repeat(100);
        assertThat(A2aTasks.leadingTaskId(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"parts\":[]},"
                + "\"metadata\":{\"pad\":\"" + cut), 1 << 20)).isFalse();
        assertThat(A2aTasks.leadingTaskId(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"taskId\":\"t\","
                + "\"parts\":[{\"text\":\"" + cut), 1 << 20)).isTrue();
        assertThat(A2aTasks.leadingTaskId(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"taskId\":{},"
                + "\"parts\":[{\"text\":\"" + cut), 1 << 20)).as("not a string: some id all the same").isTrue();
        for (String unset : List.of("\"\"", "null")) {
            assertThat(A2aTasks.leadingTaskId(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"taskId\":"
                    + unset + ",\"parts\":[{\"text\":\"" + cut), 1 << 20)).isFalse();
        }
        byte[] whole = bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"parts\":[{\"text\":\"" + cut
                + "\"}],\"taskId\":\"t\"}}}");
        assertThat(A2aTasks.leadingTaskId(whole, 60)).as("cut inside a part, before the id").isFalse();
        assertThat(A2aTasks.leadingTaskId(whole, whole.length)).isTrue();
        assertThat(A2aTasks.leadingTaskId(bytes("{\"params\":{\"id\":\"t\",\"taskId\":\"t\"}}"), 100)).isFalse();
        assertThat(A2aTasks.leadingTaskId(bytes("[1]"), 10)).isFalse();
    }

    /**
     * A task call that an agent's JSON parser could read past what the balancer checks (an id that
     * is not a string, more after the object, which parsers with Jackson's defaults ignore) carries
     * no task id this balancer can accept: "" (a 400), never null (the strategy's pick, unchecked).
     */
    @Test
    void anIdThatIsNotAStringOrMoreAfterTheObjectIsNoTaskId() {
        assertThat(A2aTasks.call(bytes("{\"method\":\"GetTask\",\"params\":{\"id\":\"t-1\"}} x")))
                .isEqualTo(new A2aTasks.Call("GetTask", ""));
        assertThat(A2aTasks.call(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{}}}{\"a\":1}")))
                .isEqualTo(new A2aTasks.Call("SendMessage", ""));
        assertThat(A2aTasks.call(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"taskId\":5}}}")))
                .isEqualTo(new A2aTasks.Call("SendMessage", ""));
        assertThat(A2aTasks.call(bytes("{\"method\":\"GetTask\",\"params\":{\"id\":{\"x\":\"t-1\"}}}")))
                .isEqualTo(new A2aTasks.Call("GetTask", ""));
        // A null taskId is none (a new task), and white space after the object is nothing more.
        assertThat(A2aTasks.call(bytes("{\"method\":\"SendMessage\",\"params\":{\"message\":{\"taskId\":null}}}\r\n ")))
                .isEqualTo(new A2aTasks.Call("SendMessage", null));
        assertThat(A2aTasks.call(bytes("{\"method\":\"ListTasks\"} x"))).isNull();
        // "method" twice: a parser keeping the first key would read the other method.
        assertThat(A2aTasks.call(bytes("{\"method\":\"GetTask\",\"method\":\"Other\",\"params\":{\"id\":\"t-1\"}}")))
                .isEqualTo(new A2aTasks.Call("GetTask", ""));
        assertThat(A2aTasks.call(bytes("{\"method\":\"Other\",\"method\":\"SendMessage\",\"params\":{}}")))
                .isEqualTo(new A2aTasks.Call("SendMessage", ""));
        assertThat(A2aTasks.call(bytes("{\"method\":\"A\",\"method\":\"B\"}"))).isNull();
    }

    @Test
    void anythingElseIsNoTaskCall() {
        assertThat(A2aTasks.call(bytes("{\"method\":\"ListTasks\",\"params\":{\"id\":\"t\"}}"))).isNull();
        assertThat(A2aTasks.call(bytes("{\"model\":\"m\",\"messages\":[]}"))).isNull();
        assertThat(A2aTasks.call(bytes("[{\"method\":\"GetTask\",\"params\":{\"id\":\"t\"}}]"))).isNull();
        assertThat(A2aTasks.call(bytes("data: {\"method\":\"GetTask\"}"))).isNull();
        assertThat(A2aTasks.call(bytes("{\"method\":\"GetTask\",\"params\":{\"id\":\"t\""))).isNull();
        assertThat(A2aTasks.call(new byte[0])).isNull();
    }

    @Test
    void theTaskIdIsReplacedAndEveryOtherTokenKept() {
        String request = "{\"jsonrpc\":\"2.0\",\"id\":\"t-9\",\"method\":\"GetTask\",\"params\":{\"id\":\"sealed\",\"n\":1.5,\"x\":[null,true]}}";
        assertThat(new String(A2aTasks.withTaskId(bytes(request), "t-9"), StandardCharsets.UTF_8))
                .isEqualTo(request.replace("\"sealed\"", "\"t-9\""));
        assertThatThrownBy(() -> A2aTasks.withTaskId(bytes("not json"), "t")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anAnswerHasItsTaskIdsSealedAndNothingElse() {
        String answer = "{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"result\":{\"task\":{\"id\":\"t-1\",\"contextId\":\"c\","
                + "\"status\":{\"state\":\"TASK_STATE_WORKING\",\"message\":{\"messageId\":\"m\",\"taskId\":\"t-1\"}},"
                + "\"history\":[{\"messageId\":\"m0\",\"taskId\":\"t-1\",\"parts\":[{\"text\":\"t-1\"}]}]}}}";
        String sealed = new String(A2aTasks.sealAnswer(bytes(answer), id -> "S(" + id + ")"), StandardCharsets.UTF_8);
        assertThat(sealed).isEqualTo(answer.replace("\"id\":\"t-1\",\"contextId\"", "\"id\":\"S(t-1)\",\"contextId\"")
                .replace("\"taskId\":\"t-1\"", "\"taskId\":\"S(t-1)\""));
        String task = "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"id\":\"t-2\",\"status\":{\"state\":\"TASK_STATE_CANCELED\"}}}";
        assertThat(new String(A2aTasks.sealAnswer(bytes(task), id -> "S"), StandardCharsets.UTF_8))
                .isEqualTo(task.replace("t-2", "S"));
        byte[] events = bytes("data: {\"result\":{\"task\":{\"id\":\"t\"}}}\n\n");
        assertThat(A2aTasks.sealAnswer(events, id -> "S")).isSameAs(events);
        byte[] noIds = bytes("{ \"jsonrpc\": \"2.0\", \"id\": 5, \"error\": {\"code\": -32001} }");
        assertThat(A2aTasks.sealAnswer(noIds, id -> "S")).isSameAs(noIds);
        byte[] sealedAlready = bytes("{ \"result\": {\"task\": {\"id\": \"S\"}} }");
        assertThat(A2aTasks.sealAnswer(sealedAlready, id -> "S")).isSameAs(sealedAlready);
    }

    /**
     * Every byte but the task ids' stays as the agent wrote it: numbers of any precision or range,
     * white space, escapes, a raw control character in a string (before: re-written by Jackson,
     * 1.10 -> 1.1, 1e400 -> "Infinity", -0 -> 0, pi cut to a double, and the NUL answer passed unsealed).
     */
    @Test
    void aSealedAnswerKeepsEveryOtherByteAsTheAgentWroteIt() {
        String rest = "\"dec\":1.10,\"pi\":3.141592653589793238462643383279,\"tiny\":1e-400,"
                + "\"price\":0.1000000000000000055511151231257827,\"exp\":1e2,\"negzero\":-0,\"huge\":1e400,"
                + " \"text\" : \"caf\\u00e9 \\\"q\\\"\",\"list\":[ 1 ,2 ]";
        String answer = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"id\":\"t-1\"," + rest + ",\"status\":{\"taskId\":\"t-1\"}}}";

        String sealed = new String(A2aTasks.sealAnswer(bytes(answer), id -> "S(" + id + ")\""), StandardCharsets.UTF_8);

        assertThat(sealed).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"id\":\"S(t-1)\\\"\"," + rest
                + ",\"status\":{\"taskId\":\"S(t-1)\\\"\"}}}");
        String nul = "{\"result\":{\"id\":\"t-2\",\"note\":\"a\u0000b\"}}";
        assertThat(new String(A2aTasks.sealAnswer(bytes(nul), id -> "S"), StandardCharsets.UTF_8))
                .isEqualTo(nul.replace("t-2", "S"));
        assertThat(new String(A2aTasks.withTaskId(bytes("{\"params\":{\"id\":\"S\"},\"n\":1.10}"), "t-3"),
                StandardCharsets.UTF_8)).isEqualTo("{\"params\":{\"id\":\"t-3\"},\"n\":1.10}");
    }

    /**
     * An answer with bytes that are not UTF-8 in another string (an agent's bug) still has its task
     * ids sealed, those bytes kept as they came (before: passed unsealed, so the client held a raw id
     * that every later call was refused with).
     */
    @Test
    void anAnswerWithBytesThatAreNotUtf8ElsewhereIsStillSealed() {
        byte[] head = bytes("{\"result\":{\"id\":\"t-9\",\"note\":\"");
        byte[] bad = {(byte) 0xff, (byte) 0xc3};
        byte[] tail = bytes("\",\"status\":{\"taskId\":\"t-9\"}}}");
        byte[] answer = concat(head, bad, tail);

        byte[] sealed = A2aTasks.sealAnswer(answer, id -> "S(" + id + ")");

        assertThat(sealed).isEqualTo(concat(bytes("{\"result\":{\"id\":\"S(t-9)\",\"note\":\""), bad,
                bytes("\",\"status\":{\"taskId\":\"S(t-9)\"}}}")));
        byte[] accented = concat(bytes("{\"result\":{\"id\":\"t\u00e2che\",\"e\":\"\\u00e9\",\"note\":\""), bad,
                bytes("\",\"status\":{\"taskId\":\"\\u0074-1\"}}}"));
        assertThat(new String(A2aTasks.sealAnswer(accented, id -> "S(" + id + ")"), StandardCharsets.ISO_8859_1))
                .isEqualTo(new String(concat(bytes("{\"result\":{\"id\":\"S(t\u00e2che)\",\"e\":\"\\u00e9\",\"note\":\""), bad,
                        bytes("\",\"status\":{\"taskId\":\"S(t-1)\"}}}")), StandardCharsets.ISO_8859_1));
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
