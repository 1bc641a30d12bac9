package io.github.agentlb.camel.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test agent on the JDK's HTTP server, scripted per test: what it received (method, target,
 * headers, body) and how it answers, including streamed answers written chunk by chunk.
 */
public final class ScriptedAgent implements AutoCloseable {

    /** A request as the agent received it. */
    public record Received(String method, String target, Map<String, List<String>> headers, byte[] body) {
        public String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }
    }

    /** How the agent answers. */
    public interface Script {
        void answer(HttpExchange exchange, Received request) throws Exception;
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final AtomicInteger calls = new AtomicInteger();

    private ScriptedAgent(Script script) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] body;
                try (InputStream in = exchange.getRequestBody()) {
                    body = in.readAllBytes();
                }
                Received request = new Received(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                        Map.copyOf(exchange.getRequestHeaders()), body);
                calls.incrementAndGet();
                received.add(request);
                script.answer(exchange, request);
            } catch (Exception e) {
                // The proxy went away mid-answer: the point of some tests.
            }
        });
        server.start();
    }

    public static ScriptedAgent start(Script script) throws IOException {
        return new ScriptedAgent(script);
    }

    /** Echoes the body with the request's Content-Type, and the method in X-Method. */
    public static ScriptedAgent echo() throws IOException {
        return start(ECHO);
    }

    /** The answer of {@link #echo()}. */
    public static final Script ECHO = (exchange, request) -> {
        String type = request.header("Content-Type");
        if (type != null) {
            exchange.getResponseHeaders().set("Content-Type", type);
        }
        exchange.getResponseHeaders().set("X-Method", request.method());
        exchange.sendResponseHeaders(200, request.body().length == 0 ? -1 : request.body().length);
        exchange.getResponseBody().write(request.body());
    };

    /** Answers 200 after {@code delayMs}. */
    public static ScriptedAgent slow(long delayMs) throws IOException {
        return start((exchange, request) -> {
            Thread.sleep(delayMs);
            byte[] ok = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
        });
    }

    /** SSE: {@code events} events {@code gapMs} apart, each flushed as its own chunk. */
    public static ScriptedAgent sse(int events, long gapMs) throws IOException {
        return start((exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            for (int i = 1; i <= events; i++) {
                out.write(("data: " + i + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                if (i < events) {
                    Thread.sleep(gapMs);
                }
            }
        });
    }

    /** {@code size} bytes of a repeating pattern, chunked, with Content-Length when {@code withLength}. */
    public static ScriptedAgent big(long size, boolean withLength) throws IOException {
        return start(bigAnswer(size, withLength));
    }

    /** The answer of {@link #big}. */
    public static Script bigAnswer(long size, boolean withLength) {
        return (exchange, request) -> {
            exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
            exchange.sendResponseHeaders(200, withLength ? size : 0);
            OutputStream out = exchange.getResponseBody();
            byte[] block = pattern(64 * 1024);
            for (long sent = 0; sent < size; sent += block.length) {
                out.write(block, 0, (int) Math.min(block.length, size - sent));
            }
        };
    }

    /** Byte {@code i} of the pattern {@link #big} sends. */
    public static byte patternByte(long i) {
        return (byte) ('a' + i % 26);
    }

    /**
     * Reads {@code in} to its end, comparing each byte with the pattern {@link #big} sends.
     *
     * @return {bytes read, bytes that differ from the pattern}
     */
    public static long[] readPattern(InputStream in) throws IOException {
        long count = 0;
        long mismatches = 0;
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
            for (int i = 0; i < n; i++) {
                if (buffer[i] != patternByte((count + i) % (64 * 1024))) {
                    mismatches++;
                }
            }
            count += n;
        }
        return new long[] {count, mismatches};
    }

    private static byte[] pattern(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = patternByte(i);
        }
        return b;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Requests answered or being answered. */
    public int calls() {
        return calls.get();
    }

    /** The next request received, waiting up to 5 s. */
    public Received next() throws InterruptedException {
        Received next = received.poll(5, TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("the agent received no request");
        }
        return next;
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
