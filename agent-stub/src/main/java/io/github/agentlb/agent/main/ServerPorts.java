package io.github.agentlb.agent.main;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for the project's servers (the agent and the demo proxy). Starting on a free port ("port
 * 0"): a port is probed free, then bound for real by the server; another process may take it in
 * between, so a bind failure is retried with a new port a few times. The port is not the kernel's
 * pick for port 0: that comes from the ephemeral range, where every outgoing connection of every
 * process takes its local port (a load generator's own connections took one between the probe and
 * the bind); it comes from the {@value #RANGE} ports that end {@value #RANGE} below that range, which no
 * connection takes (the {@value #RANGE} just below are the tests' own, {@code FreePorts}). And a taken
 * fixed port is found before Camel starts, so the user reads one line instead of Netty's stack
 * trace. Thread-safe (stateless).
 */
public final class ServerPorts {

    /** Start attempts when the port is free to choose (0). */
    static final int BIND_ATTEMPTS = 3;

    /** How many ports {@link #findFreePort} picks from, below the ephemeral range's first less as many. */
    static final int RANGE = 8192;

    /** The first ephemeral port of Linux's default range, used when the kernel's setting cannot be read. */
    static final int LINUX_FIRST_EPHEMERAL = 32768;

    private static final int PROBES = 64;

    /** Starts a server on a port; on failure it must release what it took, then throw. */
    @FunctionalInterface
    public interface Start<T> {
        /** @param port the port to bind, never 0 when the caller asked for a free one */
        T start(int port) throws Exception;
    }

    private ServerPorts() {
    }

    /**
     * Starts a server on {@code port}, or on a free port of {@code host} when {@code port} is 0,
     * retrying a lost race for the free port up to {@value #BIND_ATTEMPTS} times.
     *
     * @throws Exception what the last start threw
     */
    public static <T> T start(String host, int port, Start<T> start) throws Exception {
        int attempts = port == 0 ? BIND_ATTEMPTS : 1;
        for (int attempt = 1; ; attempt++) {
            try {
                return start.start(port == 0 ? findFreePort(host) : port);
            } catch (Exception e) {
                if (attempt >= attempts || !causedByBindFailure(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * A port free on {@code host} at the time of the call: one of {@value #PROBES} random ports of
     * the {@value #RANGE} ports from {@code 2 x }{@value #RANGE} below the kernel's first ephemeral
     * port (16384-24575 with Linux's default range), else, all of them taken, the kernel's pick.
     *
     * @throws IOException if no socket can be bound on the host
     */
    public static int findFreePort(String host) throws IOException {
        InetAddress address = InetAddress.getByName(host);
        int low = firstEphemeral(readPortRange()) - 2 * RANGE;
        for (int i = 0; i < PROBES && low >= 1024; i++) {
            int port = low + ThreadLocalRandom.current().nextInt(RANGE);
            try (ServerSocket socket = new ServerSocket(port, 1, address)) {
                return port;
            } catch (BindException taken) {
                // another server has it: the next random one
            }
        }
        try (ServerSocket socket = new ServerSocket(0, 1, address)) {
            return socket.getLocalPort();
        }
    }

    /** The first port of {@code ip_local_port_range}'s text ("32768\t60999"), or Linux's default. */
    static int firstEphemeral(String portRange) {
        String[] bounds = portRange == null ? new String[0] : portRange.strip().split("\\s+");
        return bounds.length == 2 && bounds[0].matches("\\d{4,5}") ? Integer.parseInt(bounds[0]) : LINUX_FIRST_EPHEMERAL;
    }

    /** The kernel's ephemeral port range as its file has it; null where there is none (not Linux). */
    static String readPortRange() {
        try {
            return Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        } catch (IOException | RuntimeException notLinux) {
            return null;
        }
    }

    /** {@code host} as a URI holds it: an IPv6 address in brackets ({@code ::1} to {@code [::1]}), else as it is. */
    public static String uriHost(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /**
     * Checks a bind host when the settings are built, so that a typo is one line naming it rather
     * than Netty's stack trace at bind time.
     *
     * @param host an IP address or a host name, not blank
     * @return {@code host}
     * @throws IllegalArgumentException if {@code host} is neither a valid IP address nor a name
     *         that resolves ({@code 999.1.1.1}, {@code nonexistent.invalid})
     */
    public static String requireResolvableHost(String host) {
        try {
            InetAddress.getByName(host);
            return host;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("host must be an IP address or a name that resolves, was '" + host + "'", e);
        }
    }

    /**
     * "port N is in use: set PORT" when {@code port} cannot be bound on {@code host}, else null
     * (also when the probe fails for another reason, e.g. an unknown host: the server's own bind
     * reports that). Port 0 is always free.
     */
    public static String portInUse(String host, int port) {
        if (port == 0) {
            return null;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(host, port));
            return null;
        } catch (BindException e) {
            return "port " + port + " is in use: set PORT";
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Fails with {@link PortInUseException} when {@code port} cannot be bound on {@code host}, so
     * that a taken port is one line rather than Netty's stack trace; port 0 is always free.
     */
    public static void requirePortFree(String host, int port) {
        String problem = portInUse(host, port);
        if (problem != null) {
            throw new PortInUseException(problem);
        }
    }

    /** The server's port is taken by another process; the message is {@link #portInUse}'s line. */
    public static final class PortInUseException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortInUseException(String message) {
            super(message);
        }
    }

    /** Whether a {@link BindException} is anywhere in the cause chain. */
    public static boolean causedByBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }
}
