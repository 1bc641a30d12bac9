package io.github.agentlb.demo;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.github.agentlb.agent.main.JvmRelaunch;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

/**
 * The demo proxy jar's entry point: chooses the proxy's JVM options as the load generator's jar
 * does ({@link JvmRelaunch}), then runs {@link DemoMain}.
 *
 * <p>The option: {@value #COMPILER_OPTION}, when the JVM would run fewer compiler threads (the JVM
 * gives a 2-CPU machine one C1 and one C2 thread). The proxy's request path is a few large methods
 * (Netty's pipeline, Camel's routing, the binding) that wait in the one C2 queue; with two C2
 * threads they compile two at a time. Measured with {@code benchmarks/proxy-vs-nginx.sh}
 * ({@code RAMP_S}, benchmarks/README.md, "Start-up and memory"): 90% of steady throughput 11.4-15.0 s
 * after launch with it, 13.5-24.4 s (median 23.2) without, the steady state within the runs'
 * spread. Neither C1 only ({@code -XX:TieredStopAtLevel=1}: half the throughput) nor a class-data
 * sharing archive (start 1 s sooner, no sooner steady state) helped there.
 *
 * <p>The JVM is restarted with the option only when all hold: the jar was started as
 * {@code java -jar} (or {@code -cp} with the jar alone), the JVM's {@code CICompilerCount} is below
 * 3, the user's options name none of {@link #USER_CHOICES}, {@code PROXY_RELAUNCH} is not {@code 0},
 * and this JVM is not already the restarted one. The first JVM then only waits for the second
 * (a second JVM start before the first answer: 0.8 s more on a loaded 2-core machine, and the
 * first JVM's memory), forwards its shutdown and returns its exit code.
 */
public final class ProxyLauncher {

    /** The option chosen. */
    public static final String COMPILER_OPTION = "-XX:CICompilerCount=3";
    /** Options by which the user chooses the compiler, or runs an agent or debugger: then no restart. */
    public static final List<String> USER_CHOICES = List.of("-XX:CICompilerCount", "-XX:TieredStopAtLevel",
            "-XX:-TieredCompilation", "-XX:+UseJVMCICompiler", "-Xint", "-Xcomp", "-agentlib", "-agentpath", "-javaagent");
    static final String RELAUNCHED_PROPERTY = "agentlb.proxy.relaunched";

    private ProxyLauncher() {
    }

    public static void main(String[] args) throws Exception {
        List<String> command = relaunchCommand(args, JvmRelaunch.currentOptions(), System.getenv("PROXY_RELAUNCH"),
                System.getProperty(RELAUNCHED_PROPERTY) != null, compilerCount(), startedFromThisJar());
        if (command.isEmpty()) {
            if (System.getProperty(RELAUNCHED_PROPERTY) != null) {
                JvmRelaunch.whenLauncherEnds(() -> {
                    System.err.println("The launching JVM ended without stopping the proxy: stopping");
                    System.exit(143);
                });
            }
            DemoMain.main(args);
        } else {
            System.exit(JvmRelaunch.run(command));
        }
    }

    /** The command that restarts this JVM with {@link #COMPILER_OPTION}, or empty: see the class comment. */
    static List<String> relaunchCommand(String[] args, List<String> jvmOptions, String relaunchEnv, boolean relaunched,
            int compilerCount, boolean fromJar) {
        if (!fromJar || relaunched || "0".equals(relaunchEnv) || compilerCount < 0 || compilerCount >= 3
                || JvmRelaunch.anyStartsWith(jvmOptions, USER_CHOICES)) {
            return List.of();
        }
        return JvmRelaunch.command(List.of(COMPILER_OPTION), jvmOptions, RELAUNCHED_PROPERTY, ProxyLauncher.class.getName(),
                args);
    }

    /** The JVM's {@code CICompilerCount}, or -1 when it cannot be read (not HotSpot). */
    static int compilerCount() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return hotspot == null ? -1 : Integer.parseInt(hotspot.getVMOption("CICompilerCount").getValue());
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Whether the class path is the jar holding this class, alone (not a build tool's JVM, not a test). */
    static boolean startedFromThisJar() {
        try {
            var source = ProxyLauncher.class.getProtectionDomain().getCodeSource();
            String classPath = System.getProperty("java.class.path", "");
            return source != null && classPath.endsWith(".jar") && !classPath.contains(java.io.File.pathSeparator)
                    && Path.of(source.getLocation().toURI()).toAbsolutePath().equals(Path.of(classPath).toAbsolutePath());
        } catch (URISyntaxException | RuntimeException e) {
            return false;
        }
    }
}
