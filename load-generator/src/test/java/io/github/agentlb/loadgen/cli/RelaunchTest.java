package io.github.agentlb.loadgen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** When the jar restarts its JVM with the --url run's options, and with what command. */
class RelaunchTest {

    @Test
    void aUrlRunWithoutJvmOptionsRestartsWithTheOptionsAndTheSameArguments() {
        String[] args = {"--url", "http://localhost:8000", "--strategy", "rr", "--rate", "400"};

        List<String> command = LoadGeneratorMain.relaunchCommand(args, List.of("-Dx=1"), null, false);

        assertThat(command.get(0)).endsWith("java");
        assertThat(command).containsSubsequence("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dx=1",
                "-D" + LoadGeneratorMain.RELAUNCHED_PROPERTY + "=true", "-cp", LoadGeneratorMain.class.getName(),
                "--url", "http://localhost:8000", "--strategy", "rr", "--rate", "400");
        assertThat(LoadGeneratorMain.relaunchCommand(new String[] {"--url=http://h:1"}, List.of(), null, false)).isNotEmpty();
    }

    @Test
    void noRestartForInProcessRunsChosenOptionsARestartedJvmOrWhenTurnedOff() {
        String[] url = {"--url", "http://localhost:8000", "--strategy", "rr"};

        assertThat(LoadGeneratorMain.relaunchCommand(new String[] {"--strategy", "rr"}, List.of(), null, false)).isEmpty();
        assertThat(LoadGeneratorMain.relaunchCommand(url, List.of("-XX:+UseG1GC"), null, false)).isEmpty();
        assertThat(LoadGeneratorMain.relaunchCommand(url, List.of("-Xmx1g"), null, false)).isEmpty();
        assertThat(LoadGeneratorMain.relaunchCommand(url, List.of(), null, true)).isEmpty();
        assertThat(LoadGeneratorMain.relaunchCommand(url, List.of(), "0", false)).isEmpty();
    }
}
