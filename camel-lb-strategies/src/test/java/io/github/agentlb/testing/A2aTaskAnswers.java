package io.github.agentlb.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;

/**
 * How a scripted A2A v1.0 agent (JSON-RPC) answers, for tests: a {@code SendMessage} without
 * {@code taskId} makes task {@code <name>-t<n>}; a call about a task it made answers that task;
 * any other task id gets JSON-RPC error -32001 (task not found). Shared with the demo's tests.
 */
public final class A2aTaskAnswers {

    private static final ObjectMapper JSON = new ObjectMapper();

    private A2aTaskAnswers() {
    }

    /** The task id a request names ({@code params.message.taskId} of a message, else {@code params.id}), null for a new task. */
    public static String taskId(JsonNode request) {
        JsonNode params = request.path("params");
        if (!request.path("method").asText().startsWith("Send")) {
            return params.path("id").asText(null);
        }
        String taskId = params.path("message").path("taskId").asText(null);
        return taskId == null || taskId.isEmpty() ? null : taskId; // "" is unset, as in protobuf's JSON (the A2A SDKs)
    }

    /**
     * The answer of agent {@code name} to {@code request}; a new task is added to {@code tasks}.
     * Not thread-safe for one {@code tasks}, unless it is.
     */
    public static ObjectNode answer(String name, Collection<String> tasks, JsonNode request) {
        String method = request.path("method").asText();
        String taskId = taskId(request);
        ObjectNode answer = JSON.createObjectNode().put("jsonrpc", "2.0").set("id", request.path("id"));
        if (taskId != null && !tasks.contains(taskId)) {
            answer.putObject("error").put("code", -32001).put("message", "Task not found: " + taskId);
            return answer;
        }
        if (taskId == null) {
            taskId = name + "-t" + (tasks.size() + 1);
            tasks.add(taskId);
        }
        ObjectNode task = method.startsWith("Send") ? answer.putObject("result").putObject("task") : answer.putObject("result");
        task.put("id", taskId).put("contextId", "c-" + name);
        task.putObject("status").put("state", method.equals("CancelTask") ? "TASK_STATE_CANCELED" : "TASK_STATE_WORKING")
                .putObject("message").put("messageId", "m-" + name).put("taskId", taskId);
        return answer;
    }
}
