package io.github.agentlb.camel.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;

/**
 * An agent that reads a request head, optionally sends {@code prefix} (e.g. a response head and
 * one SSE event), then never answers further and waits for the proxy to close the connection:
 * {@link #requested} counts down when the request arrived, {@link #closed} when the connection's
 * end was seen.
 */
public final class HangingAgent implements AutoCloseable {

    private final ServerSocket server;
    public final CountDownLatch requested = new CountDownLatch(1);
    public final CountDownLatch closed = new CountDownLatch(1);

    public HangingAgent(String prefix) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread thread = new Thread(() -> {
            try (Socket socket = server.accept()) {
                InputStream in = socket.getInputStream();
                skipHead(in);
                socket.getOutputStream().write(prefix.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                socket.getOutputStream().flush();
                requested.countDown();
                while (in.read() >= 0) {
                    // a request body or nothing: wait for the end
                }
                closed.countDown();
            } catch (IOException e) {
                closed.countDown();
            }
        }, "hanging-agent");
        thread.setDaemon(true);
        thread.start();
    }

    /** Reads a request's head, up to and with its blank line. */
    static void skipHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; matched < end.length && (b = in.read()) >= 0; ) {
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
