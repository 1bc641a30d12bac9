package io.github.agentlb.camel;

import static io.github.agentlb.camel.JsonRpcAgent.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.core.session.SessionIds;
import io.github.agentlb.testing.A2aTaskAnswers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A2A task affinity: a task an agent made (A2A v1.0 JSON-RPC {@code SendMessage}) is sealed with the
 * agent's name, and every later call about it ({@code GetTask}, {@code CancelTask},
 * {@code SubscribeToTask}, a {@code SendMessage} continuing it) reaches that agent, with its own id,
 * through any replica that shares the secret; a forged id reaches no agent.
 */
class A2aTaskAffinityTest {

    private static final String SECRET = "replicas share this secret";
    private static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** A scripted A2A agent: makes task {@code <name>-t<n>} for a new message, knows only its own tasks. */
    private static final class TaskAgent extends JsonRpcAgent {
        final List<String> tasks = new ArrayList<>();

        TaskAgent(String name) {
            super(name);
        }

        @Override
        String received(Exchange exchange, JsonNode request) {
            return request.path("method").asText() + " " + A2aTaskAnswers.taskId(request);
        }

        @Override
        JsonNode answer(JsonNode request) {
            return A2aTaskAnswers.answer(name, tasks, request);
        }
    }

    private static RoundRobinLB replica(JsonRpcAgent... agents) {
        return JsonRpcAgent.replica(CAMEL.get(), LearnedSessions.custom().secret(SECRET).a2aTasks(true).build(), agents);
    }

    private static Exchange call(AgentLoadBalancerSupport balancer, String method, String taskId) {
        ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 7).put("method", method);
        ObjectNode params = request.putObject("params");
        if (method.startsWith("Send")) {
            ObjectNode message = params.putObject("message").put("role", "ROLE_USER").put("messageId", "u1");
            message.putArray("parts").addObject().put("text", "hello");
            if (taskId != null) {
                message.put("taskId", taskId);
            }
        } else {
            params.put("id", taskId);
        }
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setHeader(Exchange.CONTENT_LENGTH, request.toString().length());
        exchange.getIn().setBody(request.toString());
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static JsonNode answer(Exchange exchange) {
        return read(exchange.getMessage().getBody(String.class));
    }

    @Test
    void everyTaskCallThroughEitherReplicaReachesTheAgentThatMadeTheTask() {
        TaskAgent a1 = new TaskAgent("A1");
        TaskAgent a2 = new TaskAgent("A2");
        TaskAgent a3 = new TaskAgent("A3");
        List<TaskAgent> agents = List.of(a1, a2, a3);
        RoundRobinLB first = replica(a1, a2, a3);
        RoundRobinLB second = replica(a3, a1, a2); // another order: nothing is shared but the secret
        List<String> sealed = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            JsonNode task = answer(call(i % 2 == 0 ? first : second, "SendMessage", null)).path("result").path("task");
            String id = task.path("id").asText();
            assertThat(id).startsWith("a1.").doesNotContain("-t");
            assertThat(task.path("status").path("message").path("taskId").asText()).isEqualTo(id);
            sealed.add(id);
        }
        int[] before = agents.stream().mapToInt(a -> a.received.size()).toArray();
        assertThat(before).containsExactly(2, 2, 2);
        for (int i = 0; i < sealed.size(); i++) {
            for (String method : List.of("GetTask", "SubscribeToTask", "SendMessage", "CancelTask")) {
                for (RoundRobinLB replica : List.of(first, second)) {
                    Exchange exchange = call(replica, method, sealed.get(i));
                    JsonNode answer = answer(exchange);
                    assertThat(answer.has("error")).as(method + " " + answer).isFalse();
                    JsonNode task = method.equals("SendMessage") ? answer.path("result").path("task") : answer.path("result");
                    assertThat(task.path("id").asText()).isEqualTo(sealed.get(i));
                }
            }
        }
        // 6 tasks x 4 methods x 2 replicas = 48 task calls, each on the agent that made the task.
        for (TaskAgent agent : agents) {
            assertThat(agent.received).hasSize(2 + 2 * 4 * 2);
            assertThat(agent.received.subList(2, agent.received.size()))
                    .allSatisfy(r -> assertThat(r.substring(r.indexOf(' ') + 1)).isIn(agent.tasks));
        }
        first.stop();
        second.stop();
    }

    /**
     * A body whose task id cannot be trusted although it is one the balancer sealed ({@code method}
     * twice: a parser may keep either) got the 400 of a forged id, its detail naming only damage or
     * forgery; the detail names the body's causes too.
     */
    /**
     * The official A2A Java SDK client starts a task with {@code "taskId":"","contextId":""}: an
     * empty id is unset (protobuf's JSON), so the message goes to the strategy's pick and makes a
     * task there, sealed, whose later calls reach that agent (before: 400 "bad task id", no agent called).
     */
    @Test
    void aTaskCallThatFailedAfterItWasSentLeavesTheClientsBodyNotTheAgentsOnTheExchange() {
        TaskAgent a1 = new TaskAgent("A1");
        RoundRobinLB balancer = replica(a1);
        String sealed = answer(call(balancer, "SendMessage", null)).path("result").path("task").path("id").asText();
        a1.failure = new java.io.IOException("Connection reset by peer");
        Exchange failed = call(balancer, "GetTask", sealed);
        assertThat(failed.getException()).isInstanceOf(java.io.IOException.class);
        assertThat(a1.received).containsExactly("SendMessage null", "GetTask A1-t1");
        // A route that answers the failure itself must not hand the client the agent's own task id.
        assertThat(answer(failed).path("params").path("id").asText()).isEqualTo(sealed);
        balancer.stop();
    }

    @Test
    void aMessageWithAnEmptyTaskIdAsTheA2aSdkSendsItStartsATask() {
        TaskAgent a1 = new TaskAgent("A1");
        TaskAgent a2 = new TaskAgent("A2");
        RoundRobinLB balancer = replica(a1, a2);

        Exchange started = call(balancer, "SendMessage", "");
        String sealed = answer(started).path("result").path("task").path("id").asText();
        Exchange got = call(balancer, "GetTask", sealed);

        assertThat(started.getException()).isNull();
        assertThat(a1.received).containsExactly("SendMessage null", "GetTask A1-t1");
        assertThat(a2.received).isEmpty();
        assertThat(answer(got).path("result").path("id").asText()).isEqualTo(sealed);
        balancer.stop();
    }

    /**
     * A call about a task too long for the balancer to read whole cannot be routed by its task: a
     * {@code GetTask}, {@code CancelTask} or {@code SubscribeToTask}, or a message with a
     * {@code taskId} in its first {@value A2aTaskAffinity#MAX_BODY_BYTES} bytes, gets a 413 and
     * reaches no agent (before: the strategy's pick, which took the sealed id for a new task: the
     * task forked, silently). A long message without a task id there goes to the strategy's pick
     * (a new task's, or one whose {@code taskId} comes after 1 MiB of parts, which is not read).
     */
    @Test
    void aTaskCallTooLongToReadIsA413AndALongNewTaskGoesToThePick() {
        TaskAgent a1 = new TaskAgent("A1");
        RoundRobinLB balancer = replica(a1);
        String sealed = answer(call(balancer, "SendMessage", null)).path("result").path("task").path("id").asText();
        String parts = "[{\"text\":\"" + "x".repeat(A2aTaskAffinity.MAX_BODY_BYTES) + "\"}]";
        String continuing = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"SendMessage\",\"params\":{\"message\":"
                + "{\"messageId\":\"u2\",\"taskId\":\"" + sealed + "\",\"parts\":" + parts + "}}}";
        String getTask = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"GetTask\",\"params\":{\"id\":\"" + sealed
                + "\",\"pad\":\"" + "x".repeat(A2aTaskAffinity.MAX_BODY_BYTES) + "\"}}";
        String newTask = "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"SendMessage\",\"params\":{\"message\":"
                + "{\"messageId\":\"u3\",\"taskId\":\"\",\"parts\":" + parts + "}}}";

        for (String body : List.of(continuing, getTask)) {
            Exchange exchange = post(balancer, body);
            SessionRejectedException rejected = (SessionRejectedException) exchange.getException();
            assertThat(rejected.status()).isEqualTo(413);
            assertThat(read(rejected.toJson()).path("detail").asText()).contains("1048576 bytes");
        }
        Exchange started = post(balancer, newTask);

        assertThat(started.getException()).isNull();
        assertThat(a1.received).containsExactly("SendMessage null", "SendMessage null");
        balancer.stop();
    }

    /** A2A v0.3's names ({@code message/send}, {@code tasks/get}, ...), as its SDKs send them, keep a task on its agent too. */
    @Test
    void a2aV03CallsReachTheAgentOfTheirTask() {
        TaskAgent a1 = new TaskAgent("A1");
        TaskAgent a2 = new TaskAgent("A2");
        RoundRobinLB first = replica(a1, a2);
        RoundRobinLB second = replica(a2, a1);
        String sealed = answer(call(first, "message/send", null)).path("result").path("id").asText();
        assertThat(sealed).startsWith("a1.");
        for (RoundRobinLB replica : List.of(first, second, first, second)) {
            for (String method : List.of("tasks/get", "tasks/cancel", "tasks/resubscribe")) {
                JsonNode answer = answer(call(replica, method, sealed));
                assertThat(answer.has("error")).as(method + " " + answer).isFalse();
                assertThat(answer.path("result").path("id").asText()).isEqualTo(sealed);
            }
        }
        assertThat(a1.received).hasSize(1 + 4 * 3);
        assertThat(a2.received).isEmpty();
        first.stop();
        second.stop();
    }

    /**
     * A body held whole (its {@code Content-Length} is its length, or it breaks JSON's rules before
     * its end) that is no JSON object goes as it came to the strategy's pick, whose agent answers it
     * (JSON-RPC's parse error): not a 413 "too long", which only a task call held in part gets (a
     * {@code Content-Length} past the bytes held, or no length and a body that ends inside its object).
     */
    @Test
    void aMalformedTaskCallHeldWholeGoesAsItCameAndOneHeldInPartIsA413() {
        JsonRpcAgent a1 = new JsonRpcAgent("A1") {
            @Override
            String received(Exchange exchange, JsonNode request) {
                return exchange.getIn().getBody(String.class);
            }

            @Override
            JsonNode answer(JsonNode request) {
                return JSON.createObjectNode().put("jsonrpc", "2.0").putNull("id").set("error",
                        JSON.createObjectNode().put("code", -32700).put("message", "Parse error"));
            }
        };
        RoundRobinLB balancer = replica(a1);
        List<String> malformed = List.of("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"GetTask\",\"params\":{\"id\":\"abc\"",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"CancelTask\",",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"GetTask\",\"params\":{\"id\":\"x\",}}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"SendMessage\",\"params\":{\"message\":{\"taskId\":\"a1.QTE.x.y\"");
        for (String body : malformed) {
            Exchange exchange = post(balancer, body, (long) body.length());
            assertThat(exchange.getException()).as(body).isNull();
        }
        String syntaxError = malformed.get(2);
        assertThat(post(balancer, syntaxError, null).getException()).as("no length, broken before its end").isNull();
        assertThat(a1.received).containsExactlyElementsOf(
                java.util.stream.Stream.concat(malformed.stream(), java.util.stream.Stream.of(syntaxError)).toList());

        for (Object declared : java.util.Arrays.asList(malformed.get(0).length() + 1000L, null, "not a length")) {
            Exchange heldInPart = post(balancer, malformed.get(0), declared);
            assertThat(heldInPart.getException()).as("declared " + declared).isInstanceOf(SessionRejectedException.class);
            assertThat(((SessionRejectedException) heldInPart.getException()).status()).isEqualTo(413);
        }
        assertThat(post(balancer, syntaxError, "not a length").getException()).as("a garbled length, broken before its end")
                .isNull();
        assertThat(a1.received).hasSize(malformed.size() + 2);
        balancer.stop();
    }

    private static Exchange post(AgentLoadBalancerSupport balancer, String body, Object contentLength) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setHeader(Exchange.CONTENT_LENGTH, contentLength);
        exchange.getIn().setBody(body.getBytes(StandardCharsets.UTF_8));
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    private static Exchange post(AgentLoadBalancerSupport balancer, String body) {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setBody(body.getBytes(StandardCharsets.UTF_8));
        balancer.process(exchange, sync -> { });
        return exchange;
    }

    @Test
    void aTaskIdMadeAmbiguousByItsBodyIsA400NamingWhy() {
        TaskAgent a1 = new TaskAgent("A1");
        RoundRobinLB balancer = replica(a1);
        String sealed = answer(call(balancer, "SendMessage", null)).path("result").path("task").path("id").asText();
        String body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"GetTask\",\"method\":\"GetTask\",\"params\":{\"id\":\""
                + sealed + "\"}}";
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        exchange.getIn().setHeader(Exchange.CONTENT_LENGTH, body.length());
        exchange.getIn().setBody(body);
        balancer.process(exchange, sync -> { });
        SessionRejectedException rejected = (SessionRejectedException) exchange.getException();
        assertThat(rejected.status()).isEqualTo(400);
        assertThat(read(rejected.toJson()).path("detail").asText()).contains("\"method\" twice");
        assertThat(a1.received).hasSize(1);
        balancer.stop();
    }

    @Test
    void aForgedOrForeignTaskIdGetsA400AndReachesNoAgent() {
        TaskAgent a1 = new TaskAgent("A1");
        TaskAgent a2 = new TaskAgent("A2");
        RoundRobinLB balancer = replica(a1, a2);
        String sealed = answer(call(balancer, "SendMessage", null)).path("result").path("task").path("id").asText();
        String forged = sealed.replace("a1." + sealed.split("\\.")[1], "a1.QTI"); // names A2, the tag of A1's task
        String otherSecret = new SessionIds("another secret of 16+ bytes".getBytes(StandardCharsets.UTF_8)).encode("A1", "A1-t1");
        for (String bad : List.of("A1-t1", forged, otherSecret, sealed.substring(0, sealed.length() - 2), "")) {
            for (String method : List.of("GetTask", "CancelTask", "SubscribeToTask", "SendMessage")) {
                if (bad.isEmpty() && method.equals("SendMessage")) {
                    continue; // a message's empty taskId is unset: it starts a task (aMessageWithAnEmptyTaskIdAsTheA2aSdkSendsItStartsATask)
                }
                Exchange exchange = call(balancer, method, bad);
                assertThat(exchange.getException()).isInstanceOf(SessionRejectedException.class);
                SessionRejectedException rejected = (SessionRejectedException) exchange.getException();
                assertThat(rejected.status()).isEqualTo(400);
                assertThat(read(rejected.toJson()).path("error").asText()).isEqualTo("bad task id");
                assertThat(read(rejected.toJson()).path("detail").asText())
                        .contains("task id", method, "damaged, forged or made with another secret");
            }
        }
        assertThat(a1.received.size() + a2.received.size()).isEqualTo(1);
        balancer.stop();
    }

    @Test
    void aTaskWhoseAgentLeftGets404AndAnyOtherRequestPassesUntouched() {
        TaskAgent a1 = new TaskAgent("A1");
        TaskAgent a2 = new TaskAgent("A2");
        RoundRobinLB balancer = replica(a1, a2);
        String sealed = answer(call(balancer, "SendMessage", null)).path("result").path("task").path("id").asText();
        balancer.removeAgent("A1");
        Exchange exchange = call(balancer, "GetTask", sealed);
        assertThat(((SessionRejectedException) exchange.getException()).status()).isEqualTo(404);
        assertThat(exchange.getException()).hasMessageContaining("agent holding this task has left (A1)");
        assertThat(read(((SessionRejectedException) exchange.getException()).toJson()).path("error").asText())
                .isEqualTo("task not found");
        assertThat(a2.received).isEmpty();
        // Not A2A: a body that is no JSON-RPC object goes as it came, to the strategy's pick.
        Exchange plain = new DefaultExchange(CAMEL.get());
        plain.getIn().setBody("{\"model\":\"m\",\"messages\":[]}");
        balancer.process(plain, sync -> { });
        assertThat(plain.getException()).isNull();
        assertThat(a2.received).hasSize(1);
        balancer.stop();
    }

    /** A streaming child: what it learns from its attempt's hooks, and the answer it streamed. */
    private static final class HookedChild extends AsyncProcessorSupport {
        final List<String> seen = new ArrayList<>();

        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            AttemptHooks hooks = exchange.getProperty(AttemptHooks.PROPERTY, AttemptHooks.class);
            byte[] body = hooks.requestBody();
            String agentAnswer = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"task\":{\"id\":\"t-9\"}}}";
            seen.add((body == null ? null : read(new String(body, StandardCharsets.UTF_8)).path("params").path("id").asText())
                    + " " + hooks.rewritesJsonAnswer()
                    + " " + new String(hooks.clientAnswer(agentAnswer.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
            exchange.getMessage().setBody("(streamed to the client)");
            callback.done(true);
            return true;
        }
    }

    @Test
    void aStreamingChildsHooksGiveTheTaskCallsBodyAndSealItsJsonAnswer() {
        HookedChild child = new HookedChild();
        RoundRobinLB balancer = new RoundRobinLB();
        balancer.setCamelContext(CAMEL.get());
        balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).a2aTasks(true).build());
        balancer.addAgent("A1", child, 1.0);
        balancer.start();
        SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
        String sealed = ids.encode("A1", "t-9");

        call(balancer, "SendMessage", null);
        call(balancer, "GetTask", sealed);
        Exchange plain = new DefaultExchange(CAMEL.get());
        plain.getIn().setBody("{\"model\":\"m\",\"messages\":[]}");
        balancer.process(plain, sync -> { });

        String sealedAnswer = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"task\":{\"id\":\"" + sealed + "\"}}}";
        String agentAnswer = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"task\":{\"id\":\"t-9\"}}}";
        assertThat(child.seen).containsExactly("null true " + sealedAnswer, "t-9 true " + sealedAnswer,
                "null false " + agentAnswer);
        assertThat(plain.getMessage().getBody(String.class)).isEqualTo("(streamed to the client)");
        balancer.stop();
    }

    @Test
    void aStreamedBodyIsReadOnceAndKeptAsBytesAndABodyUpToTheLimitIsRead() throws SessionRejectedException {
        A2aTaskAffinity affinity = new A2aTaskAffinity(LearnedSessions.custom().secret(SECRET).a2aTasks(true).build().ids());
        String send = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"SendMessage\",\"params\":{\"message\":{\"role\":\"ROLE_USER\"}}}";
        Exchange streamed = new DefaultExchange(CAMEL.get());
        streamed.getIn().setBody(new java.io.ByteArrayInputStream(send.getBytes(StandardCharsets.UTF_8)));

        assertThat(affinity.pin(streamed, BalancerState.EMPTY)).as("no task id: the strategy decides").isNull();

        assertThat(streamed.getProperty(A2aTaskAffinity.METHOD_PROPERTY)).isEqualTo("SendMessage");
        assertThat(streamed.getIn().getBody()).isInstanceOf(byte[].class);
        assertThat(streamed.getIn().getBody(String.class)).as("still all there for the agent").isEqualTo(send);

        String atLimit = send + " ".repeat(A2aTaskAffinity.MAX_BODY_BYTES - send.length());
        Exchange large = new DefaultExchange(CAMEL.get());
        large.getIn().setBody(atLimit.getBytes(StandardCharsets.UTF_8));
        affinity.pin(large, BalancerState.EMPTY);
        assertThat(large.getProperty(A2aTaskAffinity.METHOD_PROPERTY)).as("exactly the limit").isEqualTo("SendMessage");

        Exchange tooLarge = new DefaultExchange(CAMEL.get());
        tooLarge.getIn().setBody((atLimit + " ").getBytes(StandardCharsets.UTF_8));
        affinity.pin(tooLarge, BalancerState.EMPTY);
        assertThat(affinity.pin(tooLarge, BalancerState.EMPTY)).as("one byte more: its task id not read").isNull();
        assertThat(tooLarge.getProperty(A2aTaskAffinity.METHOD_PROPERTY)).as("its method read from its first bytes")
                .isEqualTo("SendMessage");
    }
}
