package io.github.agentlb.camel.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The JDK's HTTP server on a free loopback port, a thread per call, for agents in tests; closed once. */
final class LocalHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private boolean closed;

    /** Serves every path with {@code handler}. */
    LocalHttpServer(HttpHandler handler) {
        try {
            server = HttpServer.create(new InetSocketAddress("localhost", 0), 200);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(threads);
        server.createContext("/", handler);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Stops at once: calls in progress are cut. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            server.stop(0);
            threads.shutdownNow();
        }
    }
}
