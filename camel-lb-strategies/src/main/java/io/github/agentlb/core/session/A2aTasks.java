package io.github.agentlb.core.session;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The task ids of A2A v1.0 JSON-RPC messages (a2aproject/A2A {@code docs/specification.md}
 * section 9.4), and of v0.3's, whose method names differ ({@code tasks/get}, {@code tasks/cancel},
 * {@code tasks/resubscribe}, {@code message/send}, {@code message/stream}) and whose task is an
 * answer's {@code result} itself: where a request carries the task it is about, and where an answer
 * names a task.
 *
 * <ul>
 *   <li>Requests: {@code GetTask}, {@code CancelTask}, {@code SubscribeToTask} carry it in
 *       {@code params.id}; {@code SendMessage} and {@code SendStreamingMessage} continuing a task in
 *       {@code params.message.taskId} (without it, or with {@code null} or {@code ""}, the unset
 *       value of A2A's protobuf-based JSON, the message starts a new task).</li>
 *   <li>Answers ({@code result} of a single JSON-RPC response): {@code result.task.id} (a
 *       {@code SendMessage} that made a task), {@code result.id} (the task {@code GetTask} and
 *       {@code CancelTask} return) and every {@code taskId} field under {@code result}, but an
 *       empty one (unset).</li>
 * </ul>
 *
 * <p>Bodies are read with Jackson's streaming parser; a task id replaced is spliced into the body's
 * bytes, every other byte kept as it was ({@link JsonSplice}). A body that is not a single JSON
 * object (a batch, Server-Sent Events, not JSON) is not an A2A message here. Stateless and thread-safe.
 */
public final class A2aTasks {

    /** Methods whose {@code params.id} is a task id: A2A v1.0's, and v0.3's names of the same calls. */
    public static final Set<String> TASK_METHODS = Set.of("GetTask", "CancelTask", "SubscribeToTask",
            "tasks/get", "tasks/cancel", "tasks/resubscribe");
    /** Methods whose {@code params.message.taskId}, when present, is a task id: A2A v1.0's and v0.3's. */
    public static final Set<String> MESSAGE_METHODS = Set.of("SendMessage", "SendStreamingMessage", "message/send",
            "message/stream");

    private static final JsonFactory JSON = new JsonFactory();
    private static final List<String> PARAMS_ID = List.of("params", "id");
    private static final List<String> MESSAGE_TASK_ID = List.of("params", "message", "taskId");
    private static final List<String> RESULT_ID = List.of("result", "id");
    private static final List<String> RESULT_TASK_ID = List.of("result", "task", "id");

    private A2aTasks() {
    }

    /**
     * The A2A task a JSON-RPC request is about.
     *
     * @param method the request's method, e.g. {@code GetTask}
     * @param taskId the task id it carries, null for a message that starts a new task
     */
    public record Call(String method, String taskId) {
    }

    /**
     * Reads a request body.
     *
     * @return the method and task id of an A2A request of {@link #TASK_METHODS} or
     *     {@link #MESSAGE_METHODS}; null for any other body (another method, not one JSON object)
     */
    public static Call call(byte[] body) {
        String method = null;
        String paramsId = null;
        String messageTaskId = null;
        int methods = 0;
        String taskLike = null;
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                if (token == JsonToken.END_OBJECT && parser.getParsingContext().inRoot()) {
                    // More after the object (parsers with Jackson's defaults ignore it): no id can be trusted.
                    if (JsonSplice.more(parser)) {
                        paramsId = "";
                        messageTaskId = "";
                    }
                    break;
                }
                if (token == JsonToken.VALUE_NULL || token.isStructEnd() || token == JsonToken.FIELD_NAME) {
                    continue;
                }
                JsonStreamContext at = token.isStructStart() ? parser.getParsingContext().getParent() : parser.getParsingContext();
                List<String> path = JsonSplice.path(at);
                // A task id that is not a string (a number, an object) is none this balancer gave: "".
                String text = token == JsonToken.VALUE_STRING ? parser.getText() : "";
                if (path.equals(List.of("method"))) {
                    method = token == JsonToken.VALUE_STRING ? text : null;
                    methods++;
                    taskLike = taskLike != null ? taskLike : taskLike(method);
                } else if (path.equals(PARAMS_ID)) {
                    paramsId = text;
                } else if (path.equals(MESSAGE_TASK_ID)) {
                    // "" is unset in A2A's JSON, protobuf's (the A2A SDKs' clients write it on a new task's message).
                    messageTaskId = token == JsonToken.VALUE_STRING && text.isEmpty() ? null : text;
                }
            }
        } catch (IOException e) {
            return null;
        }
        if (methods > 1) {
            // A parser that keeps the first of repeated keys reads another method: no task id is trusted.
            return taskLike == null ? null : new Call(taskLike, "");
        }
        if (method == null) {
            return null;
        }
        if (TASK_METHODS.contains(method)) {
            return new Call(method, paramsId == null ? "" : paramsId);
        }
        return MESSAGE_METHODS.contains(method) ? new Call(method, messageTaskId) : null;
    }

    /**
     * The A2A method of a body too long to read whole, or of only its first part: the top-level
     * {@code method} read within the first {@code limit} bytes (JSON-RPC clients write it before
     * {@code params}), when it is one of {@link #TASK_METHODS} or {@link #MESSAGE_METHODS}; else null.
     * Reads at most {@code limit} bytes.
     */
    public static String leadingMethod(byte[] body, int limit) {
        try (JsonParser parser = JSON.createParser(body, 0, Math.min(body.length, limit))) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (name.equals("method")) {
                    String method = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                    return TASK_METHODS.contains(method) || MESSAGE_METHODS.contains(method) ? method : null;
                }
                parser.skipChildren();
            }
            return null;
        } catch (IOException e) {
            return null; // the first part ended before the method
        }
    }

    /**
     * Whether {@code body} is the beginning of a JSON object cut off by its end, as a body held only
     * in part is: it ends inside the object, where JSON's rules held up to its last byte. A body that
     * breaks them before its end, or holds a whole value, is not.
     */
    public static boolean cutShort(byte[] body) {
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (parser.nextToken() != null) {
                parser.skipChildren();
            }
            return false; // the object ended
        } catch (com.fasterxml.jackson.core.io.JsonEOFException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Whether the first {@code limit} bytes of a {@link #MESSAGE_METHODS} body carry a
     * {@code params.message.taskId} that is set (not null, not {@code ""}), as {@link #call} reads a
     * whole body's: a message too long to read whole that continues a task. Reads at most {@code limit} bytes.
     */
    public static boolean leadingTaskId(byte[] body, int limit) {
        try (JsonParser parser = JSON.createParser(body, 0, Math.min(body.length, limit))) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            for (JsonToken token; (token = parser.nextToken()) != null; ) {
                if (token == JsonToken.FIELD_NAME || token.isStructEnd() || token == JsonToken.VALUE_NULL
                        || token == JsonToken.VALUE_STRING && parser.getText().isEmpty()) {
                    continue;
                }
                JsonStreamContext at = token.isStructStart() ? parser.getParsingContext().getParent() : parser.getParsingContext();
                if (JsonSplice.path(at).equals(MESSAGE_TASK_ID)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false; // the bytes read ended inside a token
        }
    }

    /**
     * The request body with the task id of {@link #call} replaced by {@code taskId}, every other
     * token as it was.
     *
     * @throws IllegalArgumentException when {@code body} is not one JSON object
     */
    public static byte[] withTaskId(byte[] body, String taskId) {
        return JsonSplice.rewrite(body, A2aTasks::isIdName,
                (path, id) -> path.equals(PARAMS_ID) || path.equals(MESSAGE_TASK_ID) ? taskId : id);
    }

    /**
     * An answer body with every task id of the answer (see the class comment) replaced by
     * {@code seal} of it; {@code body} itself when it is not one JSON object or {@code seal}
     * changes none of its ids (so an answer without task ids keeps its bytes).
     */
    public static byte[] sealAnswer(byte[] body, UnaryOperator<String> seal) {
        try {
            return JsonSplice.rewrite(body, A2aTasks::isIdName, (path, id) -> path.size() > 1 && path.get(0).equals("result")
                    && (path.equals(RESULT_ID) || path.equals(RESULT_TASK_ID) || path.get(path.size() - 1).equals("taskId"))
                    && !id.isEmpty() ? seal.apply(id) : id); // "" is an unset id (protobuf's JSON), no task's
        } catch (IllegalArgumentException e) {
            return body;
        }
    }

    /** {@code method} when it is one of {@link #TASK_METHODS} or {@link #MESSAGE_METHODS}, else null. */
    private static String taskLike(String method) {
        return method != null && (TASK_METHODS.contains(method) || MESSAGE_METHODS.contains(method)) ? method : null;
    }



    /** Only the paths of fields named {@code id} or {@code taskId} are built and tested: other tokens cost no allocation. */
    private static boolean isIdName(String name) {
        return "id".equals(name) || "taskId".equals(name);
    }
}
