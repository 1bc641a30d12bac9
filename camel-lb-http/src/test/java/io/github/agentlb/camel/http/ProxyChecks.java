package io.github.agentlb.camel.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * What a streaming proxy route must do, checked against one running at {@code base} in front of
 * three {@link SwitchableAgents} (any of which may get a request): the README's route in this JVM
 * ({@code StreamingRouteTest}) and in a project of its own ({@code ReadmeProjectIT}).
 */
final class ProxyChecks {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final String base;
    private final SwitchableAgents agents;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    ProxyChecks(String base, SwitchableAgents agents) {
        this.base = base;
        this.agents = agents;
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(TIMEOUT);
    }

    /** A chat prompt of exactly {@code bytes} UTF-8 bytes, mostly two-byte characters. */
    static String prompt(int bytes) {
        String head = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"";
        String tail = "\"}]}";
        int room = bytes - head.length() - tail.length();
        return head + "é".repeat(room / 2) + (room % 2 == 1 ? "a" : "") + tail;
    }

    /** A JSON prompt by POST reaches an agent byte for byte, its answer the client likewise. */
    void jsonPostIsForwardedByteForByte() throws Exception {
        String body = prompt(2048);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        assertThat(bytes).hasSize(2048);
        List<ScriptedAgent.Received> seen = new ArrayList<>();
        agents.answer((exchange, request) -> {
            seen.add(request);
            ScriptedAgent.ECHO.answer(exchange, request);
        });
        HttpResponse<byte[]> response = client.send(request("/process/p1?user_id=42")
                .header("Content-Type", "application/json; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build(), HttpResponse.BodyHandlers.ofByteArray());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(bytes);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).method()).isEqualTo("POST");
        assertThat(seen.get(0).target()).isEqualTo("/process/p1?user_id=42");
        assertThat(seen.get(0).body()).isEqualTo(bytes);
    }

    /**
     * A POST that says it is a form (curl's default content type) but is a JSON prompt reaches an
     * agent byte for byte as well: the route's consumer must not read the body as form fields
     * (it did, failed, and never answered).
     */
    void formPostIsForwardedByteForByte() throws Exception {
        byte[] bytes = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":3}"
                .getBytes(StandardCharsets.UTF_8);
        List<ScriptedAgent.Received> seen = new ArrayList<>();
        agents.answer((exchange, request) -> {
            seen.add(request);
            ScriptedAgent.ECHO.answer(exchange, request);
        });
        HttpResponse<byte[]> response = client.send(request("/process/f1?user_id=42").timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build(), HttpResponse.BodyHandlers.ofByteArray());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(bytes);
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).body()).isEqualTo(bytes);
    }

    /** Each event reaches the client while the agent is still producing: the agent sends the next only once the client has the previous one. */
    void eventsReachTheClientOneByOne() throws Exception {
        Semaphore go = new Semaphore(0);
        agents.answer((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            for (int i = 1; i <= 3; i++) {
                out.write(("data: " + i + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                if (i < 3 && !go.tryAcquire(10, TimeUnit.SECONDS)) {
                    throw new IOException("the client never saw event " + i);
                }
            }
        });
        HttpResponse<Stream<String>> response = client.send(request("/process/s1?user_id=1").build(),
                HttpResponse.BodyHandlers.ofLines());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/event-stream");
        List<String> events = new ArrayList<>();
        for (Iterator<String> lines = response.body().iterator(); lines.hasNext(); ) {
            String line = lines.next();
            if (line.startsWith("data: ")) {
                events.add(line);
                go.release();
            }
        }
        assertThat(events).containsExactly("data: 1", "data: 2", "data: 3");
    }

    /**
     * The median time to the first event of a stream, through the route and straight at an agent,
     * ms, over {@code rounds} streams each (after as many for warm-up): a figure to print, not to assert.
     *
     * @return {through the route, direct}
     */
    double[] firstEventMillis(int rounds) throws Exception {
        agents.answer((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write("data: 1\n\n".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
        });
        String direct = agents.first().baseUrl();
        double[] medians = new double[2];
        for (int target = 0; target < 2; target++) {
            URI uri = URI.create((target == 0 ? base : direct) + "/process/t?user_id=1");
            double[] times = new double[rounds];
            for (int i = 0; i < 2 * rounds; i++) {
                long start = System.nanoTime();
                HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                try (InputStream in = response.body()) {
                    in.read();
                    if (i >= rounds) {
                        times[i - rounds] = (System.nanoTime() - start) / 1e6;
                    }
                    in.readAllBytes();
                }
            }
            Arrays.sort(times);
            medians[target] = times[rounds / 2];
        }
        return medians;
    }

    /** An answer of {@code size} bytes streams through, every byte in order, read as it comes. */
    void aLargeAnswerStreamsThroughByteForByte(long size) throws Exception {
        agents.answer(ScriptedAgent.bigAnswer(size, false));
        HttpResponse<InputStream> response = client.send(request("/process/huge?user_id=1").build(),
                HttpResponse.BodyHandlers.ofInputStream());
        long[] read;
        try (InputStream in = response.body()) {
            read = ScriptedAgent.readPattern(in);
        }
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(read[0]).as("bytes").isEqualTo(size);
        assertThat(read[1]).as("bytes out of order").isZero();
    }

    /**
     * A client that leaves mid-stream: the agent, writing an event every 50 ms, finds its
     * connection closed within 1 s of the client's leaving.
     */
    void aClientThatLeavesCancelsTheAgentCallWithinOneSecond() throws Exception {
        CountDownLatch cut = new CountDownLatch(1);
        AtomicLong cutAt = new AtomicLong();
        agents.answer((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            try {
                for (int i = 1; i < 2_000; i++) {
                    out.write(("data: " + i + "\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    Thread.sleep(50);
                }
            } catch (IOException e) {
                cutAt.set(System.nanoTime());
                cut.countDown();
                throw e;
            }
        });
        long left;
        URI uri = URI.create(base);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /process/bye?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String seen = readUntil(socket.getInputStream(), "data: 1");
            assertThat(seen).startsWith("HTTP/1.1 200 OK");
            left = System.nanoTime();
        }
        assertThat(cut.await(5, TimeUnit.SECONDS)).as("the agent's connection was closed").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(cutAt.get() - left)).as("ms from the client leaving to the agent's"
                + " write failing (the agent writes every 50 ms)").isLessThan(1_000);
    }

    /**
     * Starts a call that takes {@code ms} at its agent and returns once the agent has it; the checks
     * that follow may switch the agents' script meanwhile, the call keeps the answer it began with.
     * {@link LongCall#answeredOnce()} then checks that it was answered and ran once: a second send
     * would reach this script (counted) or a later one (another answer).
     */
    LongCall startLongCall(long ms) throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch arrived = new CountDownLatch(1);
        agents.answer((exchange, request) -> {
            calls.incrementAndGet();
            arrived.countDown();
            Thread.sleep(ms);
            byte[] ok = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
        });
        CompletableFuture<HttpResponse<String>> response = client.sendAsync(request("/process/long?user_id=1")
                .timeout(Duration.ofMillis(ms + 30_000)).POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"think\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(arrived.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("the agent has the long call").isTrue();
        return new LongCall(response, calls, ms);
    }

    /** A call begun by {@link #startLongCall(long)}. */
    record LongCall(CompletableFuture<HttpResponse<String>> response, AtomicInteger calls, long ms) {

        /** It is answered with its agent's answer, and its agent's script was called once. */
        void answeredOnce() throws Exception {
            HttpResponse<String> answer = response.get(ms + 30_000, TimeUnit.MILLISECONDS);
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("{\"ok\":true}");
            assertThat(calls.get()).isEqualTo(1);
        }
    }

    /**
     * Every agent answers 429 with {@code Retry-After: 2}: the request tries each once, the client
     * gets the last busy answer with the shortest rest left; while they rest the next request is
     * answered 429 at once, no agent called; once their rest is over every agent answers again.
     */
    void everyAgentBusyIs429WithRetryAfterAndTheAgentsRest() throws Exception {
        agents.answer((exchange, request) -> {
            byte[] busy = "{\"error\":\"busy\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.getResponseHeaders().set("Retry-After", "2");
            exchange.sendResponseHeaders(429, busy.length);
            exchange.getResponseBody().write(busy);
        });
        int before = agents.calls();
        HttpResponse<String> first = client.send(request("/process/b1?user_id=1").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).isEqualTo(429);
        assertThat(first.body()).isEqualTo("{\"error\":\"busy\"}");
        assertThat(first.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(v).isIn("1", "2"));
        assertThat(agents.calls() - before).isEqualTo(3);

        // The agents rest 2 s: on a starved machine a rest may end before the next request, which then
        // gets that agent's own 429 and rests it again; a few tries see every agent resting.
        HttpResponse<String> second;
        int tries = 0;
        int callsBefore;
        do {
            callsBefore = agents.calls();
            second = client.send(request("/process/b2?user_id=2").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(second.statusCode()).isEqualTo(429);
        } while (!second.body().equals("{\"error\":\"agents busy\"}") && ++tries < 5);
        assertThat(second.body()).isEqualTo("{\"error\":\"agents busy\"}");
        assertThat(second.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(second.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(v).isIn("1", "2"));
        assertThat(agents.calls()).as("no agent called while every agent rests").isEqualTo(callsBefore);
        everyAgentAnswersAgain();
    }

    /**
     * Every agent answering 503 without {@code Retry-After} is an outage, not rate limiting: the
     * request that finds the last agent unavailable gets that agent's 503, the requests that come
     * while every agent rests the route's JSON 503 with {@code Retry-After} (never the 429 that tells
     * a client it sends too much), and once the agents answer again so does the route.
     */
    void everyAgentUnavailableIsA503ThenTheAgentsRecover() throws Exception {
        agents.answer((exchange, request) -> {
            byte[] down = "{\"error\":\"down\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(503, down.length);
            exchange.getResponseBody().write(down);
        });
        int before = agents.calls();
        HttpResponse<String> first = client.send(request("/process/u1?user_id=1").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(first.statusCode()).as("the last agent's own 503").isEqualTo(503);
        assertThat(agents.calls() - before).as("a GET goes on to every agent").isEqualTo(3);

        // The agents rest 1 s (no Retry-After): on a starved machine an agent's rest may end before the
        // next request, which then gets that agent's 503 again and rests it again; a few tries see
        // every agent resting. Never a 429.
        HttpResponse<String> resting;
        int tries = 0;
        int callsBefore;
        do {
            callsBefore = agents.calls();
            resting = client.send(request("/process/u2?user_id=2").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(resting.statusCode()).as("every agent resting after a 503: unavailable, not busy").isEqualTo(503);
        } while (!resting.body().equals("{\"error\":\"agents unavailable\"}") && ++tries < 5);
        assertThat(resting.body()).isEqualTo("{\"error\":\"agents unavailable\"}");
        assertThat(resting.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(resting.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
        assertThat(agents.calls()).as("no agent called while every agent rests").isEqualTo(callsBefore);

        agents.answer((exchange, request) -> exchange.sendResponseHeaders(204, -1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        int status;
        do {
            Thread.sleep(200);
            status = client.send(request("/process/u3?user_id=3").build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } while (status != 204 && System.nanoTime() < deadline);
        assertThat(status).as("the agents answer again once their rest is over").isEqualTo(204);

        // A POST goes to one agent: its 503 passes as it came, with the rest its agent is given as Retry-After.
        agents.answer((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(503, 2);
            exchange.getResponseBody().write("{}".getBytes(StandardCharsets.UTF_8));
        });
        int callsBeforePost = agents.calls();
        HttpResponse<String> post = client.send(request("/process/u4?user_id=4").POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(503);
        assertThat(agents.calls() - callsBeforePost).as("a POST is not sent again").isEqualTo(1);
        assertThat(post.headers().firstValue("Retry-After")).as("its agent rests 1 s").hasValue("1");
        everyAgentAnswersAgain();
    }

    /**
     * Every agent, not just the first whose rest ended, answers again: requests with other keys go on
     * (up to 15 s) until each agent has answered one, so no agent still rests when the next check
     * begins. An agent may rest a little longer than another when a starved machine tried it again.
     */
    private void everyAgentAnswersAgain() throws Exception {
        agents.answer((exchange, request) -> exchange.sendResponseHeaders(204, -1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        List<Integer> before = agents.callsByAgent();
        for (int user = 100; agents.agentsCalledSince(before) < 3 && System.nanoTime() < deadline; user++) {
            Thread.sleep(50);
            int status = client.send(request("/process/r" + user + "?user_id=" + user).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
            assertThat(status).as("the agents resting or answering again, never failing").isIn(204, 429, 503);
        }
        assertThat(agents.agentsCalledSince(before)).as("every agent answers again once its rest is over").isEqualTo(3);
    }

    /** Two streamed answers one after the other on one kept-alive connection: nothing else between them. */
    void aKeptAliveConnectionCarriesStreamedAnswersOneAfterAnother() throws Exception {
        agents.answer((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write("data: 1\n\n".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            exchange.getResponseBody().write("data: 2\n\n".getBytes(StandardCharsets.UTF_8));
        });
        URI uri = URI.create(base);
        StringBuilder wire = new StringBuilder();
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(10_000);
            for (int i = 1; i <= 2; i++) {
                socket.getOutputStream().write(("GET /process/k" + i + "?user_id=1 HTTP/1.1\r\nHost: x\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                wire.append(readUntil(socket.getInputStream(), "\r\n0\r\n\r\n"));
            }
            socket.shutdownOutput();
            wire.append(new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1));
        }
        assertThat(wire.toString().split("HTTP/1.1 ", -1)).as(wire.toString()).hasSize(3);
        assertThat(wire.toString()).startsWith("HTTP/1.1 200 OK").endsWith("\r\n0\r\n\r\n").contains("data: 2");
    }

    static String readUntil(InputStream in, String marker) throws IOException {
        StringBuilder seen = new StringBuilder();
        for (int b; seen.indexOf(marker) < 0 && (b = in.read()) >= 0; ) {
            seen.append((char) b);
        }
        return seen.toString();
    }
}
