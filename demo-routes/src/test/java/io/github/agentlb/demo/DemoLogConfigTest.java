package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.logging.log4j.core.LoggerContext;
import org.junit.jupiter.api.Test;

/** What the demo's own log configuration (src/main/resources/log4j2.properties) writes. */
class DemoLogConfigTest {

    /** The lines the demo's configuration writes to the console for what {@code logs} logs. */
    private static String[] written(Consumer<LoggerContext> logs) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream console = System.out;
        LoggerContext context = new LoggerContext("demo-log-config");
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            context.setConfigLocation(Objects.requireNonNull(DemoLogConfigTest.class.getResource("/log4j2.properties")).toURI());
            context.start();
            logs.accept(context);
        } finally {
            context.stop();
            System.setOut(console);
        }
        return out.toString(StandardCharsets.UTF_8).lines().toArray(String[]::new);
    }

    /**
     * A {@code ZOOKEEPER} host that does not resolve: ZooKeeper's host provider logs an ERROR with a
     * stack trace at each try, about once a second (13 lines a second in a trial); the demo writes
     * one line each, naming the host, and other loggers keep their stack traces.
     */
    @Test
    void anUnresolvableZooKeeperHostIsOneLinePerTry() throws Exception {
        UnknownHostException failure = new UnknownHostException("nosuchhost.invalid");
        String[] lines = written(context -> {
            context.getLogger("org.apache.zookeeper.client.StaticHostProvider")
                    .error("Unable to resolve address: nosuchhost.invalid/<unresolved>:2181", failure);
            context.getLogger("io.github.agentlb.demo.ProxyRoutes").error("other", failure);
        });

        assertThat(lines[0]).endsWith(" ERROR [main] StaticHostProvider - Unable to resolve address: nosuchhost.invalid/<unresolved>:2181");
        assertThat(lines[1]).endsWith(" ERROR [main] ProxyRoutes - other");
        assertThat(lines[2]).isEqualTo("java.net.UnknownHostException: nosuchhost.invalid");
    }
}
