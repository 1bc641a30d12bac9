package io.github.agentlb.agent.main;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A restarted JVM stops when its launcher ends without stopping it (SIGKILL: no shutdown hook ran). */
@Tag("e2e")
class JvmRelaunchTest {

    @Test
    @Timeout(30)
    void theStopRunsOnceWhenTheLauncherIsKilledAndNotBefore() throws Exception {
        // The launcher's end of the pipe: sleep's standard output, which only it holds.
        Process launcher = new ProcessBuilder("sleep", "60").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger stops = new AtomicInteger();

        JvmRelaunch.whenEnded(launcher.getInputStream(), () -> {
            stops.incrementAndGet();
            stopped.countDown();
        });

        assertThat(stopped.await(300, TimeUnit.MILLISECONDS)).as("not while the launcher runs").isFalse();
        launcher.destroyForcibly(); // SIGKILL
        assertThat(stopped.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(stops.get()).isEqualTo(1);
    }
}
