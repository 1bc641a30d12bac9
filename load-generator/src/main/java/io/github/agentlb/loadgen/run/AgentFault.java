package io.github.agentlb.loadgen.run;

import io.github.agentlb.agent.StubAgent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * Kills a running {@link StubAgent} as a crash ({@link StubAgent#kill()}: every socket closes, no
 * answer) and later restarts it on its port, recording when; when it {@code hangs}, a
 * {@link HangingPort} holds the port meanwhile. Not thread-safe: one thread calls it.
 */
public final class AgentFault implements AutoCloseable {

    private final StubAgent original;
    private final boolean hangs;
    private final LongSupplier nanoClock;
    private HangingPort hanging;
    private StubAgent restarted;
    private long killedAtNanos = -1;

    /** A fault of running {@code agent}: when {@code hangs}, its port then accepts and never answers, else refuses. */
    public AgentFault(StubAgent agent, boolean hangs, LongSupplier nanoClock) {
        this.original = Objects.requireNonNull(agent, "agent");
        this.hangs = hangs;
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** Kills the agent; returns the instant read just before (IllegalStateException if already killed). */
    public long kill() throws IOException {
        if (killedAtNanos >= 0) {
            throw new IllegalStateException("agent " + agentId() + " was already killed");
        }
        killedAtNanos = nanoClock.getAsLong();
        original.kill();
        if (hangs) {
            hanging = HangingPort.open(original.config().host(), original.port());
        }
        return killedAtNanos;
    }

    /** Starts the killed agent again on its port; returns the instant it listens (IllegalStateException unless killed once). */
    public long restart() throws Exception {
        if (killedAtNanos < 0 || restarted != null) {
            throw new IllegalStateException("agent " + agentId() + " must be killed once before a restart");
        }
        if (hanging != null) {
            hanging.close();
            hanging = null;
        }
        restarted = StubAgent.start(original.config());
        return nanoClock.getAsLong();
    }

    public String agentId() {
        return original.config().agentId();
    }

    @Override
    public void close() throws IOException {
        try (HangingPort h = hanging; StubAgent r = restarted) {
            hanging = null;
            restarted = null;
        }
    }

    /**
     * A TCP port that accepts connections and never answers, as a hung agent looks to a balancer;
     * it reads and writes nothing and holds every connection until {@link #close()}. Thread-safe.
     */
    public static final class HangingPort implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> held = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        private HangingPort(ServerSocket server) {
            this.server = server;
            this.acceptor = Parallel.daemon("hanging-port-" + server.getLocalPort()).newThread(this::acceptForever);
            acceptor.start();
        }

        public static HangingPort open(String host, int port) throws IOException {
            ServerSocket server = new ServerSocket();
            try {
                server.setReuseAddress(true);
                server.bind(new InetSocketAddress(InetAddress.getByName(host), port), 100);
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

        public int port() {
            return server.getLocalPort();
        }

        public int connectionsHeld() {
            return held.size();
        }

        @Override
        public void close() throws IOException {
            server.close();
            try {
                acceptor.join(1_000); // then no socket can join the held ones behind the loop below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (Socket socket : held) {
                socket.close();
            }
        }
    }
}
