package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.camel.http.ScriptedAgent;
import io.github.agentlb.core.session.LearnedSessions;
import io.github.agentlb.core.session.SessionIds;
import io.github.agentlb.testing.A2aTaskAnswers;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A2A v1.0 agents (JSON-RPC over HTTP) behind two proxy replicas sharing a session secret, A2A
 * tasks on, through the proxy's {@code agent:} children: a task made by {@code SendMessage} through
 * either replica is sealed for the client; {@code GetTask}, {@code CancelTask} and a continuing
 * {@code SendMessage} through the other replica reach the agent that made it, which sees its own
 * raw id; forged task ids get JSON 400 and reach no agent.
 */
@Tag("e2e")
@Timeout(60)
class A2aTasksProxyTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String SECRET = "the replicas' shared secret";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** An A2A agent: makes task {@code <name>-t<n>} for a new message, answers only about its own tasks. */
    private static final class TaskAgent implements AutoCloseable {
        final String name;
        final Set<String> tasks = ConcurrentHashMap.newKeySet();
        final ScriptedAgent server;

        TaskAgent(String name) throws Exception {
            this.name = name;
            this.server = ScriptedAgent.start((exchange, request) -> {
                byte[] answer = A2aTaskAnswers.answer(name, tasks, JSON.readTree(request.body())).toString().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
            });
        }

        /** The JSON-RPC request the agent received next, as {@code method taskId} ({@code null} for a new task). */
        String next() throws Exception {
            JsonNode request = JSON.readTree(server.next().body());
            return request.path("method").asText() + " " + A2aTaskAnswers.taskId(request);
        }

        int calls() {
            return server.calls();
        }

        String baseUrl() {
            return server.baseUrl();
        }

        @Override
        public void close() {
            server.close();
        }
    }

    private static Supplier<AgentLoadBalancerSupport> withTasks(Supplier<AgentLoadBalancerSupport> strategy) {
        return () -> {
            AgentLoadBalancerSupport balancer = strategy.get();
            balancer.setLearnedSessions(LearnedSessions.custom().secret(SECRET).a2aTasks(true).build());
            return balancer;
        };
    }

    /** A demo proxy, rr with A2A tasks on, in front of {@code agents}. */
    private static DemoProxy rrProxy(TaskAgent... agents) throws Exception {
        List<String> urls = java.util.Arrays.stream(agents).map(TaskAgent::baseUrl).toList();
        return DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(urls).strategy("rr").build(),
                withTasks(RoundRobinLB::new));
    }

    private static String sendMessage(int id, String taskId) {
        ObjectNode message = JSON.createObjectNode().put("role", "ROLE_USER").put("messageId", "m" + id);
        if (taskId != null) {
            message.put("taskId", taskId);
        }
        message.putArray("parts").addObject().put("text", "hello " + id);
        ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", "SendMessage");
        request.putObject("params").set("message", message);
        return request.toString();
    }

    private static String taskCall(int id, String method, String taskId) {
        ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
        request.putObject("params").put("id", taskId);
        return request.toString();
    }

    private HttpResponse<String> post(DemoProxy proxy, int userId, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/process/a2a-" + userId + "?user_id=" + userId))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void taskCallsThroughEitherReplicaReachTheAgentThatMadeTheTaskAndForgedIdsReachNone() throws Exception {
        try (TaskAgent a1 = new TaskAgent("A1"); TaskAgent a2 = new TaskAgent("A2"); TaskAgent a3 = new TaskAgent("A3")) {
            List<TaskAgent> agents = List.of(a1, a2, a3);
            List<String> urls = agents.stream().map(TaskAgent::baseUrl).toList();
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(urls).strategy("rr").build();
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            try (DemoProxy one = DemoProxy.start(config, withTasks(RoundRobinLB::new));
                    DemoProxy two = DemoProxy.start(config.toBuilder().strategy("ch").build(), withTasks(ConsistentHashLB::new))) {
                List<DemoProxy> proxies = List.of(one, two);
                List<String> sealedTasks = new ArrayList<>();
                List<TaskAgent> owners = new ArrayList<>();
                int rpcId = 0;
                for (int i = 0; i < 6; i++) {
                    HttpResponse<String> made = post(proxies.get(i % 2), i, sendMessage(++rpcId, null));
                    assertThat(made.statusCode()).isEqualTo(200);
                    assertThat(made.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
                    JsonNode task = JSON.readTree(made.body()).path("result").path("task");
                    String sealed = task.path("id").asText();
                    SessionIds.Sealed owner = ids.decode(sealed);
                    assertThat(owner).as("task id %s sealed for the client", sealed).isNotNull();
                    assertThat(task.path("status").path("message").path("taskId").asText()).isEqualTo(sealed);
                    TaskAgent maker = agents.get(urls.indexOf(owner.agent()));
                    assertThat(owner.agentSessionId()).startsWith(maker.name + "-t");
                    assertThat(maker.next()).isEqualTo("SendMessage null");
                    sealedTasks.add(sealed);
                    owners.add(maker);
                }
                assertThat(Set.copyOf(owners)).hasSizeGreaterThan(1);

                int callsBefore = agents.stream().mapToInt(TaskAgent::calls).sum();
                for (int round = 0; round < 2; round++) {
                    for (int i = 0; i < sealedTasks.size(); i++) {
                        String sealed = sealedTasks.get(i);
                        TaskAgent maker = owners.get(i);
                        String raw = ids.decode(sealed).agentSessionId();
                        DemoProxy other = proxies.get((i + 1) % 2);
                        DemoProxy same = proxies.get(i % 2);

                        HttpResponse<String> got = post(other, 100 + i, taskCall(++rpcId, "GetTask", sealed));
                        assertThat(got.statusCode()).isEqualTo(200);
                        JsonNode result = JSON.readTree(got.body()).path("result");
                        assertThat(result.path("id").asText()).as(got.body()).isEqualTo(sealed);
                        assertThat(result.path("status").path("message").path("taskId").asText()).isEqualTo(sealed);
                        assertThat(maker.next()).isEqualTo("GetTask " + raw);

                        HttpResponse<String> continued = post(same, 200 + i, sendMessage(++rpcId, sealed));
                        assertThat(continued.statusCode()).isEqualTo(200);
                        assertThat(JSON.readTree(continued.body()).path("result").path("task").path("id").asText())
                                .as(continued.body()).isEqualTo(sealed);
                        assertThat(maker.next()).isEqualTo("SendMessage " + raw);

                        HttpResponse<String> cancelled = post(other, 300 + i, taskCall(++rpcId, "CancelTask", sealed));
                        assertThat(cancelled.statusCode()).isEqualTo(200);
                        JsonNode cancelResult = JSON.readTree(cancelled.body()).path("result");
                        assertThat(cancelResult.path("id").asText()).as(cancelled.body()).isEqualTo(sealed);
                        assertThat(cancelResult.path("status").path("state").asText()).isEqualTo("TASK_STATE_CANCELED");
                        assertThat(maker.next()).isEqualTo("CancelTask " + raw);
                    }
                }
                assertThat(agents.stream().mapToInt(TaskAgent::calls).sum()).isEqualTo(callsBefore + 2 * 3 * sealedTasks.size());

                Random random = new Random(38);
                SessionIds guessed = new SessionIds("a secret the client guessed".getBytes(StandardCharsets.UTF_8));
                String aSealed = sealedTasks.get(0);
                for (int i = 0; i < 20; i++) {
                    String forged = switch (i % 4) {
                        case 0 -> guessed.encode(urls.get(i % 3), "A" + (i % 3 + 1) + "-t1");
                        case 1 -> ids.decode(aSealed).agentSessionId();
                        case 2 -> aSealed.substring(0, aSealed.length() - 1 - random.nextInt(3))
                                + (char) ('a' + random.nextInt(26)) + "X";
                        default -> Long.toHexString(random.nextLong());
                    };
                    String body = i % 2 == 0 ? taskCall(++rpcId, i % 4 == 0 ? "GetTask" : "CancelTask", forged)
                            : sendMessage(++rpcId, forged);
                    HttpResponse<String> rejected = post(proxies.get(i % 2), 400 + i, body);
                    assertThat(rejected.statusCode()).as("forged id %s", forged).isEqualTo(400);
                    assertThat(rejected.headers().firstValue("Content-Type"))
                            .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
                    assertThat(rejected.body()).contains("\"error\":\"bad task id\"").doesNotContain("Exchange[");
                }
                assertThat(agents.stream().mapToInt(TaskAgent::calls).sum()).isEqualTo(callsBefore + 2 * 3 * sealedTasks.size());
            }
        }
    }

    /**
     * Bodies of 200 KB with {@code Content-Length} (a message with a large part, a task call padded
     * past what the proxy would otherwise stream unread) are held whole with A2A tasks on: the new
     * task's id comes back sealed and reaches its agent, a padded raw id gets the 400.
     */
    @Test
    void largeBodiesAreReadWithTasksOnTheNewTaskSealedAndAPaddedRawIdRefused() throws Exception {
        try (TaskAgent a1 = new TaskAgent("A1"); TaskAgent a2 = new TaskAgent("A2"); DemoProxy proxy = rrProxy(a1, a2)) {
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            String large = sendMessage(1, null).replace("hello 1", "x".repeat(200_000));
            HttpResponse<String> made = post(proxy, 1, large);
            assertThat(made.statusCode()).isEqualTo(200);
            String sealed = JSON.readTree(made.body()).path("result").path("task").path("id").asText();
            SessionIds.Sealed owner = ids.decode(sealed);
            assertThat(owner).as("task id %s sealed for the client", sealed).isNotNull();
            TaskAgent maker = owner.agent().equals(a1.baseUrl()) ? a1 : a2;
            assertThat(maker.next()).isEqualTo("SendMessage null");
            HttpResponse<String> got = post(proxy, 2, taskCall(2, "GetTask", sealed));
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(maker.next()).isEqualTo("GetTask " + owner.agentSessionId());
            int calls = a1.calls() + a2.calls();
            String padded = taskCall(3, "GetTask", owner.agentSessionId()).replace("}}", ",\"pad\":\"" + "x".repeat(200_000) + "\"}}");
            HttpResponse<String> rejected = post(proxy, 3, padded);
            assertThat(rejected.statusCode()).isEqualTo(400);
            assertThat(rejected.body()).contains("\"error\":\"bad task id\"");
            assertThat(a1.calls() + a2.calls()).isEqualTo(calls);
        }
    }

    /**
     * Through the proxy as the official A2A Java SDK's client writes messages ({@code "taskId":""},
     * {@code "contextId":""} on a new task's) and with bodies of 1.5 MB, over the 1 MiB the balancer
     * reads: the new task is made and sealed; a message continuing it with 1.5 MB of parts, and a
     * padded {@code GetTask}, get 413 JSON and reach no agent (before: 400 for the SDK's first
     * message, and the long follow-up went to the strategy's pick as a new task).
     */
    @Test
    void theSdksEmptyTaskIdStartsATaskAndALongCallAboutATaskIs413() throws Exception {
        try (TaskAgent a1 = new TaskAgent("A1"); TaskAgent a2 = new TaskAgent("A2"); DemoProxy proxy = rrProxy(a1, a2)) {
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            String sdkStyle = sendMessage(1, "").replace("\"taskId\":\"\"", "\"contextId\":\"\",\"taskId\":\"\"");
            HttpResponse<String> made = post(proxy, 1, sdkStyle);
            assertThat(made.statusCode()).as(made.body()).isEqualTo(200);
            String sealed = JSON.readTree(made.body()).path("result").path("task").path("id").asText();
            SessionIds.Sealed owner = ids.decode(sealed);
            assertThat(owner).as("task id %s sealed for the client", sealed).isNotNull();
            TaskAgent maker = owner.agent().equals(a1.baseUrl()) ? a1 : a2;
            assertThat(maker.next()).isEqualTo("SendMessage null");
            int calls = a1.calls() + a2.calls();
            String parts = "x".repeat(1_500_000);
            String longFollowUp = sendMessage(2, sealed).replace("hello 2", parts);
            String longGetTask = taskCall(3, "GetTask", sealed).replace("}}", ",\"pad\":\"" + parts + "\"}}");
            for (String body : List.of(longFollowUp, longGetTask)) {
                HttpResponse<String> refused = post(proxy, 2, body);
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(413);
                assertThat(JSON.readTree(refused.body()).path("error").asText()).isEqualTo("task call too long");
            }
            assertThat(a1.calls() + a2.calls()).as("no agent got them").isEqualTo(calls);
            String longNewTask = sendMessage(4, null).replace("}}}", "},\"metadata\":{\"pad\":\"" + parts + "\"}}}");
            HttpResponse<String> madeLong = post(proxy, 4, longNewTask);
            assertThat(madeLong.statusCode()).as(madeLong.body()).isEqualTo(200);
            assertThat(ids.decode(JSON.readTree(madeLong.body()).path("result").path("task").path("id").asText())).isNotNull();
        }
    }

    /** A short malformed task call, held whole, goes as it came to an agent, which answers it: no 413 "too long". */
    @Test
    void aMalformedShortTaskCallGoesToAnAgentAsItCame() throws Exception {
        try (TaskAgent a1 = new TaskAgent("A1"); DemoProxy proxy = rrProxy(a1)) {
            for (String malformed : List.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\"",
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"x\",}}")) {
                int calls = a1.calls();
                HttpResponse<String> answer = post(proxy, 1, malformed);
                assertThat(answer.statusCode()).as(answer.body()).isNotEqualTo(413);
                assertThat(a1.calls()).as(malformed).isEqualTo(calls + 1);
            }
        }
    }

    /**
     * An agent that compresses its answers when the request accepts gzip (as Python's servers do for
     * clients such as {@code requests} and {@code httpx}) and types them {@code application/a2a+json}:
     * the attempt goes without {@code Accept-Encoding}, so the task id still comes back sealed; one
     * that compresses all the same is a broken answer (JSON 502), never an unsealed id.
     */
    @Test
    void aCompressingAgentsTaskIdsAreSealedAndAnEncodedAnswerIsNeverPassedUnsealed() throws Exception {
        AtomicBoolean always = new AtomicBoolean();
        Set<String> tasks = ConcurrentHashMap.newKeySet();
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            byte[] answer = A2aTaskAnswers.answer("A1", tasks, JSON.readTree(request.body())).toString().getBytes(StandardCharsets.UTF_8);
            String accepts = request.header("Accept-Encoding");
            if (always.get() || (accepts != null && accepts.contains("gzip"))) {
                ByteArrayOutputStream zipped = new ByteArrayOutputStream();
                try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
                    gzip.write(answer);
                }
                answer = zipped.toByteArray();
                exchange.getResponseHeaders().set("Content-Encoding", "gzip");
            }
            exchange.getResponseHeaders().set("Content-Type", "application/a2a+json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
        })) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(List.of(agent.baseUrl())).strategy("rr").build();
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            try (DemoProxy proxy = DemoProxy.start(config, withTasks(RoundRobinLB::new))) {
                HttpResponse<String> made = client.send(HttpRequest.newBuilder(URI.create(proxy.baseUrl() + "/a2a"))
                        .header("Content-Type", "application/json").header("Accept-Encoding", "gzip, deflate")
                        .POST(HttpRequest.BodyPublishers.ofString(sendMessage(1, null))).timeout(TIMEOUT).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(made.statusCode()).isEqualTo(200);
                assertThat(made.headers().firstValue("Content-Encoding")).isEmpty();
                String sealed = JSON.readTree(made.body()).path("result").path("task").path("id").asText();
                assertThat(ids.decode(sealed)).as("task id %s sealed for the client", sealed).isNotNull();
                assertThat(agent.next().header("Accept-Encoding")).isNull();

                always.set(true);
                HttpResponse<String> encoded = post(proxy, 2, sendMessage(2, null));
                assertThat(encoded.statusCode()).as(encoded.body()).isEqualTo(502);
                assertThat(encoded.body()).startsWith("{").doesNotContain("A1-t").contains("answered a compressed body");
            }
        }
    }

    /** The SSE events of agent {@code name}'s stream about task {@code taskId}, in JSON-RPC answers to request {@code rpcId}. */
    private static List<String> streamEvents(String name, String taskId, JsonNode rpcId) {
        ObjectNode task = JSON.createObjectNode();
        task.putObject("task").put("id", taskId).put("contextId", "c-" + name).putObject("status").put("state", "TASK_STATE_SUBMITTED");
        ObjectNode working = JSON.createObjectNode();
        working.putObject("statusUpdate").put("taskId", taskId).put("contextId", "c-" + name).putObject("status")
                .put("state", "TASK_STATE_WORKING").putObject("message").put("messageId", "m-" + name).put("taskId", taskId);
        ObjectNode artifact = JSON.createObjectNode();
        artifact.putObject("artifactUpdate").put("taskId", taskId).putObject("artifact").put("artifactId", "a-1")
                .putArray("parts").addObject().put("text", "data: " + taskId + "\n\n");
        ObjectNode done = JSON.createObjectNode();
        done.putObject("statusUpdate").put("taskId", taskId).putObject("status").put("state", "TASK_STATE_COMPLETED");
        List<String> events = new ArrayList<>();
        for (ObjectNode result : List.of(task, working, artifact, done)) {
            ObjectNode answer = JSON.createObjectNode().put("jsonrpc", "2.0").set("id", rpcId);
            answer.set("result", result);
            events.add(answer.toString());
        }
        return events;
    }

    /**
     * A2A's streamed answers through the proxy's children: {@code SendStreamingMessage} answered
     * with Server-Sent Events, written at awkward places (inside the JSON, between the two line
     * ends of an event, a CRLF split, keep-alives between events) reaches the client with the task
     * id sealed in every event, the first event before the agent writes the second (the agent waits
     * for the client to have read it); {@code GetTask} and {@code SubscribeToTask} with the sealed
     * id through the other replica reach the agent that made the task, with its own id; a forged
     * id still gets 400 and reaches no agent.
     */
    @Test
    void aStreamedTaskIsSealedInEveryEventAndItsIdReachesItsAgentThroughTheOtherReplica() throws Exception {
        Set<String> tasks = ConcurrentHashMap.newKeySet();
        java.util.concurrent.CountDownLatch firstEventRead = new java.util.concurrent.CountDownLatch(1);
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            JsonNode rpc = JSON.readTree(request.body());
            String method = rpc.path("method").asText();
            if (!method.equals("SendStreamingMessage") && !method.equals("SubscribeToTask")) {
                byte[] answer = A2aTaskAnswers.answer("A1", tasks, rpc).toString().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
                return;
            }
            String taskId = method.equals("SendStreamingMessage") ? "A1-t" + (tasks.size() + 1) : rpc.path("params").path("id").asText();
            tasks.add(taskId);
            List<String> events = streamEvents("A1", taskId, rpc.path("id"));
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            java.io.OutputStream out = exchange.getResponseBody();
            String first = events.get(0);
            for (String piece : List.of(": hello\nid: 1\nda", "ta: " + first.substring(0, 20), first.substring(20) + "\n", "\n")) {
                out.write(piece.getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            if (method.equals("SendStreamingMessage") && !firstEventRead.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                return; // the client never got the first event: the test fails on its missing events
            }
            String rest = "data: " + events.get(1) + "\r\n\r\n: keep-alive\n\nretry: 100\ndata:" + events.get(2)
                    + "\n\nevent: final\ndata: " + events.get(3) + "\n\n";
            for (int at = 0; at < rest.length(); at += 37) {
                out.write(rest.substring(at, Math.min(rest.length(), at + 37)).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        })) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(agent.baseUrl()).strategy("rr").build();
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            try (DemoProxy one = DemoProxy.start(config, withTasks(RoundRobinLB::new));
                    DemoProxy two = DemoProxy.start(config.toBuilder().strategy("ch").build(), withTasks(ConsistentHashLB::new))) {
                String streaming = sendMessage(1, null).replace("\"SendMessage\"", "\"SendStreamingMessage\"");
                HttpResponse<java.util.stream.Stream<String>> stream = client.send(HttpRequest.newBuilder(
                                URI.create(one.baseUrl() + "/process/a2a-1?user_id=1")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(streaming)).timeout(TIMEOUT).build(),
                        HttpResponse.BodyHandlers.ofLines());
                assertThat(stream.statusCode()).isEqualTo(200);
                assertThat(stream.headers().firstValue("Content-Type")).hasValue("text/event-stream");
                List<String> lines = new ArrayList<>();
                stream.body().forEach(line -> {
                    lines.add(line);
                    if (line.isEmpty() && lines.stream().anyMatch(l -> l.startsWith("data:"))) {
                        firstEventRead.countDown();
                    }
                });
                String sealed = ids.encode(agent.baseUrl(), "A1-t1");
                List<String> events = streamEvents("A1", "A1-t1", JSON.getNodeFactory().numberNode(1));
                assertThat(lines).containsExactly(": hello", "id: 1", "data: " + events.get(0).replace("\"A1-t1\"", "\"" + sealed + "\""), "",
                        "data: " + events.get(1).replace("\"A1-t1\"", "\"" + sealed + "\""), "",
                        ": keep-alive", "",
                        "retry: 100", "data:" + events.get(2).replace("\"A1-t1\"", "\"" + sealed + "\""), "",
                        "event: final", "data: " + events.get(3).replace("\"A1-t1\"", "\"" + sealed + "\""), "");
                assertThat(String.join("\n", lines)).contains("data: A1-t1\\n\\n"); // a task id in a text part is text
                assertThat(JSON.readTree(agent.next().body()).path("method").asText()).isEqualTo("SendStreamingMessage");

                HttpResponse<String> got = post(two, 2, taskCall(2, "GetTask", sealed));
                assertThat(got.statusCode()).isEqualTo(200);
                assertThat(JSON.readTree(got.body()).path("result").path("id").asText()).isEqualTo(sealed);
                assertThat(JSON.readTree(agent.next().body())).isEqualTo(JSON.readTree(taskCall(2, "GetTask", "A1-t1")));

                HttpResponse<String> resubscribed = post(two, 3, taskCall(3, "SubscribeToTask", sealed));
                assertThat(resubscribed.statusCode()).isEqualTo(200);
                assertThat(resubscribed.body()).startsWith(": hello\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"task\":{\"id\":\""
                        + sealed + "\"").doesNotContain("\"A1-t1\"").endsWith("\"state\":\"TASK_STATE_COMPLETED\"}}}}\n\n");
                assertThat(JSON.readTree(agent.next().body())).isEqualTo(JSON.readTree(taskCall(3, "SubscribeToTask", "A1-t1")));

                SessionIds guessed = new SessionIds("a secret the client guessed".getBytes(StandardCharsets.UTF_8));
                for (String forged : List.of("A1-t1", guessed.encode(agent.baseUrl(), "A1-t1"), sealed.substring(0, sealed.length() - 1))) {
                    HttpResponse<String> rejected = post(one, 4, taskCall(4, "SubscribeToTask", forged));
                    assertThat(rejected.statusCode()).as(forged).isEqualTo(400);
                    assertThat(rejected.body()).contains("\"error\":\"bad task id\"");
                }
                assertThat(agent.calls()).isEqualTo(3);
            }
        }
    }

    /**
     * What the proxy's children hold and rewrite: a JSON answer whole (chunked as well), a
     * Server-Sent Events answer event by event; a JSON answer over 1 MiB (by its Content-Length, or
     * chunked) passes as it came, whole, its task ids not sealed.
     */
    @Test
    void aJsonAnswerUpTo1MiBIsSealedALargerOnePassesAsItCameAnEventStreamIsSealed() throws Exception {
        String task = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t-1\",\"metadata\":{\"pad\":\"";
        try (ScriptedAgent agent = ScriptedAgent.start((exchange, request) -> {
            String text = JSON.readTree(request.body()).path("params").path("message").path("parts").path(0).path("text").asText();
            int pad = text.startsWith("big") ? (1 << 20) : 10;
            String answer = (text.equals("sse") ? "data: " : "") + task + "x".repeat(pad) + "\"}}}}" + (text.equals("sse") ? "\n\n" : "");
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", text.equals("sse") ? "text/event-stream" : "application/json; charset=utf-8");
            exchange.sendResponseHeaders(200, text.endsWith("chunked") || text.equals("sse") ? 0 : bytes.length);
            exchange.getResponseBody().write(bytes);
        })) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).agentUrls(agent.baseUrl()).strategy("rr").build();
            SessionIds ids = new SessionIds(SECRET.getBytes(StandardCharsets.UTF_8));
            try (DemoProxy proxy = DemoProxy.start(config, withTasks(RoundRobinLB::new))) {
                for (String kind : List.of("small", "chunked", "big", "big-chunked", "sse")) {
                    ObjectNode request = (ObjectNode) JSON.readTree(sendMessage(1, null));
                    ((ObjectNode) request.path("params").path("message").path("parts").path(0)).put("text", kind);
                    HttpResponse<String> answer = post(proxy, 1, request.toString());
                    assertThat(answer.statusCode()).isEqualTo(200);
                    String body = kind.equals("sse") ? answer.body().substring(6).trim() : answer.body();
                    String id = JSON.readTree(body).path("result").path("task").path("id").asText();
                    if (kind.equals("sse")) {
                        assertThat(ids.decode(id).agentSessionId()).isEqualTo("t-1");
                        assertThat(answer.body()).isEqualTo("data: " + task.replace("t-1", id) + "x".repeat(10) + "\"}}}}\n\n");
                    } else if (kind.equals("small") || kind.equals("chunked")) {
                        assertThat(ids.decode(id)).as(kind).isNotNull();
                        assertThat(ids.decode(id).agentSessionId()).isEqualTo("t-1");
                        assertThat(answer.headers().firstValue("Content-Length")).as(kind).hasValue(Integer.toString(body.length()));
                    } else {
                        assertThat(id).as(kind).isEqualTo("t-1");
                        assertThat(body).as(kind).hasSize(task.length() + (kind.startsWith("big") ? 1 << 20 : 10) + 5);
                    }
                }
                assertThat(agent.calls()).isEqualTo(5);
            }
        }
    }
}
