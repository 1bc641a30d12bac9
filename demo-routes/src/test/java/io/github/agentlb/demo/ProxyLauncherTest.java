package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** When the proxy jar restarts its JVM with a second C2 compiler thread, and with what command. */
class ProxyLauncherTest {

    private static final String[] ARGS = {"--propertiesLocation", "file:x.properties"};

    @Test
    void aJarStartWithOneC2ThreadRestartsWithTheOptionBeforeTheUsersOwnAndTheSameArguments() {
        List<String> command = ProxyLauncher.relaunchCommand(ARGS, List.of("-Xmx128m", "-Dx=1"), null, false, 2, true);

        assertThat(command.get(0)).endsWith("java");
        assertThat(command).containsSubsequence(ProxyLauncher.COMPILER_OPTION, "-Xmx128m", "-Dx=1",
                "-D" + ProxyLauncher.RELAUNCHED_PROPERTY + "=true", "-cp", ProxyLauncher.class.getName(),
                "--propertiesLocation", "file:x.properties");
    }

    @Test
    void noRestartWithEnoughCompilerThreadsTheUsersCompilerChoiceARestartedJvmNotAJarOrWhenTurnedOff() {
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of(), null, false, 3, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of(), null, false, 12, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of(), null, false, -1, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of("-XX:CICompilerCount=2"), null, false, 2, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of("-XX:TieredStopAtLevel=1"), null, false, 2, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of("-javaagent:x.jar"), null, false, 2, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of(), null, true, 2, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of(), "0", false, 2, true)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of(), null, false, 2, false)).isEmpty();
        assertThat(ProxyLauncher.relaunchCommand(ARGS, List.of(), "1", false, 2, true)).isNotEmpty();
    }

    @Test
    void aTestJvmIsNotStartedFromTheJar() {
        assertThat(ProxyLauncher.startedFromThisJar()).isFalse();
        assertThat(ProxyLauncher.compilerCount()).isPositive();
    }
}
