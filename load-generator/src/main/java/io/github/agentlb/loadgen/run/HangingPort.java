package io.github.agentlb.loadgen.run;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP port that accepts connections and never answers: what a hung agent looks like to a
 * balancer (the connection succeeds, the request is written, no byte ever comes back). Not an
 * HTTP server; it reads nothing and writes nothing. Every accepted connection is held open until
 * {@link #close()}, which closes them all and frees the port. Thread-safe.
 */
public final class HangingPort implements AutoCloseable {

    /** Pending connections the listen queue holds before the acceptor takes them. */
    private static final int BACKLOG = 100;

    private final ServerSocket server;
    private final List<Socket> held = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private HangingPort(ServerSocket server) {
        this.server = server;
        this.acceptor = new Thread(this::acceptForever, "hanging-port-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Listens on {@code host:port} (address reuse on, so a port an agent has just released binds).
     *
     * @throws IOException if the port cannot be bound
     */
    public static HangingPort open(String host, int port) throws IOException {
        ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(host), port), BACKLOG);
            return new HangingPort(server);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void acceptForever() {
        while (!server.isClosed()) {
            try {
                held.add(server.accept());
            } catch (IOException closed) {
                // close() closed the server socket: the loop ends.
            }
        }
    }

    /** The port listened on. */
    public int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far (all still open until {@link #close()}). */
    public int connectionsHeld() {
        return held.size();
    }

    /** Stops listening and closes every held connection. Idempotent. */
    @Override
    public void close() throws IOException {
        server.close();
        try {
            // After the acceptor has ended no socket can join the held ones behind the loop below.
            acceptor.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Socket socket : held) {
            socket.close();
        }
    }
}
