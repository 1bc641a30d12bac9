package io.github.agentlb.agent.main;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A restarted JVM takes its launcher's end from the end of the pipe on its standard input only.
 * Found: watched through {@code ProcessHandle.onExit()}, a proxy whose file descriptors ran out
 * (1,100 idle client connections) took its live launcher for ended and stopped itself for good.
 */
class LauncherWatchTest {

    @Test
    @Timeout(10)
    void theStopRunsOnceAtTheEndOfThePipeNotForWhatTheLauncherWritesNorBefore() throws Exception {
        PipedOutputStream launcher = new PipedOutputStream();
        PipedInputStream fromLauncher = new PipedInputStream(launcher);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger stops = new AtomicInteger();

        JvmRelaunch.whenEnded(fromLauncher, () -> {
            stops.incrementAndGet();
            stopped.countDown();
        });
        launcher.write("typed\n".getBytes());
        launcher.flush();

        assertThat(stopped.await(200, TimeUnit.MILLISECONDS)).as("not while the pipe is open").isFalse();
        launcher.close();
        assertThat(stopped.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(stops.get()).isEqualTo(1);
    }

    @Test
    @Timeout(10)
    void aReadThatFailsIsNotTakenForTheLaunchersEnd() throws Exception {
        CountDownLatch failed = new CountDownLatch(1);
        AtomicInteger stops = new AtomicInteger();
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                failed.countDown();
                throw new IOException("Too many open files");
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return read();
            }
        };

        JvmRelaunch.whenEnded(failing, stops::incrementAndGet);

        assertThat(failed.await(5, TimeUnit.SECONDS)).isTrue();
        for (Thread watch : Thread.getAllStackTraces().keySet()) {
            if (watch.getName().equals("launcher-watch")) {
                watch.join(5_000); // the watch has ended: what it did is done
            }
        }
        assertThat(stops.get()).isZero();
    }
}
