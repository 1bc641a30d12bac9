package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A main class run in a child JVM on this test's class path, with its own environment: the only
 * way to test what reads real environment variables. Output goes to a file; the child is
 * destroyed on close. Shared with other modules' tests through this module's test-jar.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final Path output;
    /** The port {@link #startServing} found it serving on; 0 for a child started otherwise. */
    private int port;

    private ChildJvm(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** Starts {@code mainClass} with {@code env} added to this JVM's environment and {@code -D} options. */
    public static ChildJvm start(Class<?> mainClass, Map<String, String> env, List<String> systemProperties)
            throws IOException {
        Path output = Files.createTempFile("child-jvm", ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(systemProperties);
        command.add(mainClass.getName());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().putAll(env);
        return new ChildJvm(builder.start(), output);
    }

    /**
     * Starts {@code mainClass} on a free port of 127.0.0.1 ({@code env} made for that port) and returns
     * once its output says it serves there ({@code serving}: text of its startup line for the port)
     * and the port accepts connections. Its own line, not the port alone: with a second build beside
     * this one, another process may take the port between the choice and the bind (and answer on it);
     * a child that exits before it serves is tried again on another port, 3 times in all.
     */
    public static ChildJvm startServing(Class<?> mainClass, IntFunction<Map<String, String>> env,
            List<String> systemProperties, IntFunction<String> serving, long seconds)
            throws IOException, InterruptedException {
        AssertionError exited = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int free = FreePorts.next();
            ChildJvm child = start(mainClass, env.apply(free), systemProperties);
            try {
                child.awaitOutput(serving.apply(free), seconds);
                child.awaitListening(free, seconds);
                child.port = free;
                return child;
            } catch (AssertionError e) {
                child.close();
                if (!e.getMessage().startsWith("child exited")) {
                    throw e;
                }
                exited = e;
            }
        }
        throw exited;
    }

    /** The port {@link #startServing} found this child serving on. */
    public int port() {
        return port;
    }

    /** Waits up to {@code seconds} for {@code text} in the child's output; fails if it exits first or never says it. */
    public void awaitOutput(String text, long seconds) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (output().contains(text)) {
                return;
            }
            if (!process.isAlive()) {
                throw new AssertionError("child exited with " + process.exitValue() + ":\n" + output());
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the child did not say '" + text + "' in " + seconds + " s:\n" + output());
    }

    /** The exit status, waiting up to {@code seconds}; fails if still running. */
    public int exitStatus(long seconds) throws InterruptedException, IOException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("child still running after " + seconds + " s:\n" + output());
        }
        return process.exitValue();
    }

    /**
     * For a child that must refuse its configuration: waits up to {@code seconds} for it to exit,
     * checks that it exited with status 2 having logged exactly one ERROR line and no stack trace,
     * and returns that line.
     */
    public String refusalLine(long seconds) throws InterruptedException, IOException {
        assertThat(exitStatus(seconds)).isEqualTo(2);
        List<String> errors = output().lines().filter(l -> l.contains("ERROR")).toList();
        assertThat(errors).hasSize(1);
        assertThat(output()).doesNotContain("\tat ").doesNotContain("Exception");
        return errors.get(0);
    }

    /** Waits up to {@code seconds} for something to accept connections on 127.0.0.1:port. */
    public void awaitListening(int port, long seconds) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("child exited with " + process.exitValue() + ":\n" + output());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                // With nothing listening, Linux can connect a socket to itself when its ephemeral port
                // is the port asked for (a free port comes from the same range): that is no listener.
                if (socket.getLocalPort() != port) {
                    return;
                }
            } catch (IOException e) {
                // nothing listening yet
            }
            Thread.sleep(50);
        }
        throw new AssertionError("nothing listening on " + port + " after " + seconds + " s:\n" + output());
    }

    /** Everything the child wrote to stdout and stderr so far. */
    public String output() throws IOException {
        return Files.readString(output, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(output);
    }
}
