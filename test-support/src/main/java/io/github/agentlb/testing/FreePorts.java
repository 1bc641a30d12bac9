package io.github.agentlb.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Ports for servers a test starts some time after choosing their port (a proxy told its port in its
 * settings, an agent's URL written into a route), safe beside other test JVMs and builds.
 *
 * <p>A port found by binding port 0 comes from the kernel's ephemeral range (Linux: 32768-60999 by
 * default, {@code /proc/sys/net/ipv4/ip_local_port_range}), the range every outgoing connection
 * takes its local port from: between the probe and the server's bind, a connection of any process
 * may take it, and the server fails "port in use" (one run in six with four test JVMs per module).
 * These ports come from the {@value #RANGE} ports just below that range, which no connection takes,
 * and each is reserved for the life of its JVM by an exclusive lock on a file named after it in
 * {@code java.io.tmpdir/agentlb-test-ports-<user>}, so that another JVM running these tests (another
 * fork, another build) skips it; a port some program listens on is skipped too. A JVM never gives a port
 * twice. Each JVM starts at its own place in the range (from its process id), so that JVMs rarely
 * contend for the same locks.
 *
 * <p>Thread-safe: {@link #next()} and {@link #reserve()} are synchronized.
 */
public final class FreePorts {

    /** The first ephemeral port of Linux's default range, used when the kernel's setting cannot be read. */
    static final int LINUX_FIRST_EPHEMERAL = 32768;

    /** How many ports below the ephemeral range are handed out. */
    static final int RANGE = 8192;

    private static final FreePorts JVM = new FreePorts(
            Path.of(System.getProperty("java.io.tmpdir"), "agentlb-test-ports-" + System.getProperty("user.name")),
            firstEphemeral(readOrNull(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))),
            RANGE,
            (int) (ProcessHandle.current().pid() * 613 % RANGE));

    private final Path locks;
    private final int first;
    private final int size;
    private int offset;
    private final List<FileChannel> held = new ArrayList<>();

    /**
     * @param locks the directory of the lock files, created when missing
     * @param firstEphemeral the kernel's first ephemeral port; ports are taken below it
     * @param size how many ports below it are taken from
     * @param startOffset where in those ports this instance starts, 0 to {@code size - 1}
     */
    FreePorts(Path locks, int firstEphemeral, int size, int startOffset) {
        this.locks = locks;
        this.first = firstEphemeral - size;
        this.size = size;
        this.offset = startOffset;
    }

    /**
     * A loopback port no other test JVM holds and nothing listens on, reserved for this JVM's life.
     *
     * @throws IllegalStateException if every port of the range is held or in use
     */
    public static int next() {
        try {
            return JVM.reserve();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reserve a test port in " + JVM.locks, e);
        }
    }

    synchronized int reserve() throws IOException {
        Files.createDirectories(locks);
        for (int tried = 0; tried < size; tried++) {
            int port = first + offset;
            offset = (offset + 1) % size;
            FileChannel channel;
            try {
                channel = FileChannel.open(locks.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            } catch (IOException notOurs) {
                continue; // a lock file this user cannot open: taken as held
            }
            FileLock lock = tryLock(channel);
            if (lock != null && nothingListensOn(port)) {
                held.add(channel); // the lock lasts while the channel is open: until this JVM ends
                return port;
            }
            channel.close();
        }
        throw new IllegalStateException("every port from " + first + " to " + (first + size - 1)
                + " is held by another test JVM or in use");
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException heldInThisJvm) {
            return null;
        }
    }

    private static boolean nothingListensOn(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(port)); // the wildcard address: fails if any address has it
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    /** The first port of {@code ip_local_port_range}'s text ("32768\t60999"), or Linux's default. */
    static int firstEphemeral(String portRange) {
        if (portRange != null) {
            String[] bounds = portRange.trim().split("\\s+");
            if (bounds.length == 2 && bounds[0].matches("\\d{1,5}")) {
                return Integer.parseInt(bounds[0]);
            }
        }
        return LINUX_FIRST_EPHEMERAL;
    }

    private static String readOrNull(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException notLinux) {
            return null;
        }
    }
}
