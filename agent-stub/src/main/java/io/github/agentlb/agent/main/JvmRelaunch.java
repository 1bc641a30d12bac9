package io.github.agentlb.agent.main;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Restarting this JVM with options of the program's choosing, for a jar started by
 * {@code java -jar}, whose manifest cannot carry JVM options: the load generator's {@code --url}
 * runs (C1 only, the serial collector) and the demo proxy (a second C2 compiler thread on a small
 * machine). The new JVM gets the options chosen, then this JVM's own options as given (so the
 * user's come last and win), a marker system property so that it does not restart again, this
 * JVM's class path, the main class and the arguments. This JVM then only waits: its standard
 * output and error are the new one's (its input a pipe that tells the new one this one ended), a
 * shutdown of this one (SIGTERM, Ctrl-C) stops the new one first, and the new one's exit code is
 * this one's. When this one is killed (SIGKILL: no shutdown hook runs),
 * the new one stops itself ({@link #whenLauncherEnds}), so no JVM is left serving on the ports.
 *
 * <p>Thread-safe: stateless.
 */
public final class JvmRelaunch {

    /** Seconds a stopped child JVM is given to finish its own shutdown before it is killed. */
    static final long STOP_GRACE_SECONDS = 30;

    private JvmRelaunch() {
    }

    /** This JVM's options as the launcher gave them (command line and {@code JDK_JAVA_OPTIONS}). */
    public static List<String> currentOptions() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments();
    }

    /** Whether one of {@code jvmOptions} starts with one of {@code prefixes}, e.g. {@code -XX:CICompilerCount=}. */
    public static boolean anyStartsWith(List<String> jvmOptions, List<String> prefixes) {
        return jvmOptions.stream().anyMatch(option -> prefixes.stream().anyMatch(option::startsWith));
    }

    /**
     * The command that starts a new JVM: this JVM's {@code java}, {@code chosen}, then
     * {@code jvmOptions}, {@code -D<marker>=true}, {@code -cp} this JVM's class path, {@code mainClass}
     * and {@code args}.
     */
    public static List<String> command(List<String> chosen, List<String> jvmOptions, String marker, String mainClass,
            String[] args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(chosen);
        command.addAll(jvmOptions);
        command.addAll(List.of("-D" + marker + "=true", "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * In a JVM that {@link #run} started: runs {@code stop} once when the JVM that started it ends
     * without having stopped this one (it was killed), e.g. {@code System.exit}, whose shutdown
     * hooks then stop the program as SIGTERM would. Watches this JVM's standard input, the pipe
     * whose other end only the launcher holds ({@link #run}): its end of file is the launcher's end.
     * Not the launcher's process ({@link ProcessHandle#onExit()}), which the JDK polls through
     * {@code /proc} and took for ended when this JVM had no file descriptor left (a flood of idle
     * client connections then stopped the proxy for good).
     */
    public static void whenLauncherEnds(Runnable stop) {
        whenEnded(System.in, stop);
    }

    /**
     * Runs {@code stop} once when {@code fromLauncher} ends (end of file), on a daemon thread that
     * reads and drops what comes; a read that fails is not taken for the launcher's end.
     */
    static void whenEnded(InputStream fromLauncher, Runnable stop) {
        Thread watch = new Thread(() -> {
            byte[] dropped = new byte[256];
            try {
                while (fromLauncher.read(dropped) >= 0) {
                    // the launcher writes nothing; anything typed is dropped
                }
            } catch (IOException e) {
                return;
            }
            stop.run();
        }, "launcher-watch");
        watch.setDaemon(true);
        watch.start();
    }

    /**
     * Runs {@code command} with this JVM's standard streams and waits for it; a shutdown of this
     * JVM stops it (its own shutdown hooks run, at most {@value #STOP_GRACE_SECONDS} s) first.
     *
     * @return its exit code
     * @throws IOException if it cannot be started
     */
    public static int run(List<String> command) throws IOException, InterruptedException {
        // Standard input is a pipe that only this JVM writes to (never): the child sees its end of
        // file when this JVM ends however it ends (whenLauncherEnds).
        Process child = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Its handle's SIGTERM, not Process.destroy(), which also closes the pipe: the child would
            // take that end of file for a launcher gone without stopping it, and say so.
            child.toHandle().destroy();
            try {
                if (!child.waitFor(STOP_GRACE_SECONDS, TimeUnit.SECONDS)) {
                    child.destroyForcibly();
                }
            } catch (InterruptedException e) {
                child.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }, "relaunch-stop"));
        return child.waitFor();
    }
}
