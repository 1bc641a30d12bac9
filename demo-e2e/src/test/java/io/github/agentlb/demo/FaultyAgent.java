package io.github.agentlb.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A loopback TCP listener that misbehaves as an agent: for each connection it reads the request
 * head, then writes {@code reply} (possibly empty) and closes. Not an HTTP server: it never
 * answers HTTP, which is the point.
 */
final class FaultyAgent implements AutoCloseable {

    private final ServerSocket server;
    private final Thread acceptor;

    private FaultyAgent(String reply) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        byte[] bytes = reply.getBytes(StandardCharsets.ISO_8859_1);
        acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    socket.setSoTimeout(5_000);
                    readHead(socket.getInputStream());
                    socket.getOutputStream().write(bytes);
                    socket.getOutputStream().flush();
                } catch (IOException e) {
                    // Closed by close(), or a client gone: either way the next accept decides.
                }
            }
        }, "faulty-agent-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Answers every request with {@code reply} and closes the connection. */
    static FaultyAgent replying(String reply) throws IOException {
        return new FaultyAgent(reply);
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private static void readHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; matched < end.length && (b = in.read()) >= 0; ) {
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
