package io.github.agentlb.loadgen.cli;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The jar's entry point: a {@code --url} run re-executes the JVM with {@link #URL_RUN_OPTIONS}
 * when it was started without JVM options of its own, then runs {@link LoadGeneratorMain}.
 *
 * <p>Why: a {@code --url} run shares the machine with the system it measures, and with the JVM's
 * defaults its own JIT (C2) and G1 threads take the CPU its 1 ms pacing needs: {@code --rate 100
 * --requests 1500} against the demo proxy sent 162 of 1500 requests more than 5 ms late with the
 * defaults, 13 with these options (2 cores, load average 7-10). A jar's manifest cannot carry
 * JVM options, so the jar restarts itself; one line on stderr says so. In-process runs are left as
 * they are (their agents and proxy would be measured C1-compiled), and so is a JVM started with
 * any {@code -XX:} or {@code -Xm} option: the user chose. {@code LOADGEN_RELAUNCH=0} turns it off.
 */
public final class Launcher {

    /** C1 only (quick compiles, no C2 threads) and the serial collector (no concurrent GC threads). */
    static final List<String> URL_RUN_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** Set in the restarted JVM, so that it never restarts again. */
    static final String RELAUNCHED_PROPERTY = "agentlb.loadgen.relaunched";

    private Launcher() {
    }

    public static void main(String[] args) throws Exception {
        List<String> command = relaunchCommand(args, ManagementFactory.getRuntimeMXBean().getInputArguments(),
                System.getenv("LOADGEN_RELAUNCH"), System.getProperty(RELAUNCHED_PROPERTY) != null);
        if (command.isEmpty()) {
            LoadGeneratorMain.main(args);
            return;
        }
        System.err.println("load-generator: a --url run restarts its JVM with " + String.join(" ", URL_RUN_OPTIONS)
                + " so that its pacing keeps up on a shared machine (LOADGEN_RELAUNCH=0: no restart)");
        Process child = new ProcessBuilder(command).inheritIO().start();
        Runtime.getRuntime().addShutdownHook(new Thread(child::destroy));
        System.exit(child.waitFor());
    }

    /**
     * The command that restarts this JVM with {@link #URL_RUN_OPTIONS}, or empty when no restart
     * is wanted: no {@code --url}, JVM options already given, turned off, or already restarted.
     */
    static List<String> relaunchCommand(String[] args, List<String> jvmOptions, String relaunchEnv, boolean relaunched) {
        boolean urlRun = false;
        for (String arg : args) {
            urlRun |= arg.equals("--url") || arg.startsWith("--url=");
        }
        boolean ownOptions = jvmOptions.stream().anyMatch(o -> o.startsWith("-XX:") || o.startsWith("-Xm")
                || o.startsWith("-agentlib") || o.startsWith("-javaagent"));
        if (!urlRun || ownOptions || relaunched || "0".equals(relaunchEnv)) {
            return List.of();
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(URL_RUN_OPTIONS);
        command.addAll(jvmOptions);
        command.add("-D" + RELAUNCHED_PROPERTY + "=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(LoadGeneratorMain.class.getName());
        command.addAll(List.of(args));
        return command;
    }
}
