package io.github.agentlb.camel.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;

/**
 * An agent that answers every request {@code 200 ok} and keeps the connection open until the proxy
 * closes it, as an agent that never closes idle connections itself: {@link #requestPorts} has the
 * proxy's port of each request's connection, {@link #closed} the port of each connection the proxy
 * closed. With {@link #holding()}, each answer waits for a permit of {@link #gate}.
 */
final class KeepAliveAgent implements AutoCloseable {

    private static final byte[] OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.ISO_8859_1);
    private final ServerSocket server;
    private final boolean holding;
    final List<Integer> requestPorts = new CopyOnWriteArrayList<>();
    final BlockingQueue<Integer> closed = new LinkedBlockingQueue<>();
    final Semaphore gate = new Semaphore(0);

    private KeepAliveAgent(boolean holding) throws IOException {
        this.holding = holding;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "keep-alive-agent");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Answers at once. */
    static KeepAliveAgent answering() throws IOException {
        return new KeepAliveAgent(false);
    }

    /** Answers each request once the test releases a permit of {@link #gate}. */
    static KeepAliveAgent holding() throws IOException {
        return new KeepAliveAgent(true);
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread connection = new Thread(() -> serve(socket), "keep-alive-agent-" + socket.getPort());
                connection.setDaemon(true);
                connection.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        int port = socket.getPort();
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            while (readHead(in)) {
                requestPorts.add(port);
                if (holding) {
                    gate.acquire();
                }
                out.write(OK);
                out.flush();
            }
        } catch (IOException e) {
            // reset by the proxy: closed as well
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        closed.add(port);
    }

    /** Reads a request head (no body: GETs); false at the connection's end. */
    private static boolean readHead(InputStream in) throws IOException {
        byte[] end = {'\r', '\n', '\r', '\n'};
        int matched = 0;
        for (int b; matched < end.length; ) {
            if ((b = in.read()) < 0) {
                return false;
            }
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
