package io.github.agentlb.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreePortsTest {

    @TempDir
    Path locks;

    @Test
    void portsComeFromBelowTheEphemeralRangeEachOnce() throws Exception {
        FreePorts ports = new FreePorts(locks, 32768, 100, 0);
        Set<Integer> given = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = ports.reserve();
            assertThat(port).isBetween(32668, 32767);
            assertThat(given.add(port)).as("port %d given twice", port).isTrue();
        }
    }

    @Test
    void aPortReservedByAnotherJvmIsSkipped() throws Exception {
        // two instances over one lock directory stand for two JVMs running tests at once
        FreePorts first = new FreePorts(locks, 32768, 100, 0);
        FreePorts second = new FreePorts(locks, 32768, 100, 0);
        int taken = first.reserve();
        assertThat(taken).isEqualTo(32668);
        assertThat(second.reserve()).isEqualTo(32669);
    }

    @Test
    void aPortWhoseLockFileCannotBeOpenedIsSkipped() throws Exception {
        java.nio.file.Files.createDirectories(locks.resolve("32668.lock")); // as another user's file would be
        assertThat(new FreePorts(locks, 32768, 100, 0).reserve()).isEqualTo(32669);
    }

    @Test
    void aPortAnotherProgramListensOnIsSkipped() throws Exception {
        try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int bound = listening.getLocalPort();
            FreePorts ports = new FreePorts(locks, bound + 1, 10, 9);
            assertThat(ports.reserve()).isBetween(bound - 9, bound - 1);
        }
    }

    @Test
    void theRangeEndsBelowTheKernelsFirstEphemeralPort() {
        assertThat(FreePorts.firstEphemeral("32768\t60999\n")).isEqualTo(32768);
        assertThat(FreePorts.firstEphemeral("10000 20000")).isEqualTo(10000);
        assertThat(FreePorts.firstEphemeral("garbled")).isEqualTo(FreePorts.LINUX_FIRST_EPHEMERAL);
        assertThat(FreePorts.firstEphemeral(null)).isEqualTo(FreePorts.LINUX_FIRST_EPHEMERAL);
    }
}
