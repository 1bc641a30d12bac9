package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.UnknownHostException;
import java.util.Objects;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.SimpleMessage;
import org.junit.jupiter.api.Test;

/** What the demo's own log configuration (src/main/resources/log4j2.properties) writes. */
class DemoLogConfigTest {

    private static final String HOSTS = "org.apache.zookeeper.client.StaticHostProvider";

    /** What {@code appender} writes for an ERROR of {@code logger} with {@code message} and {@code thrown}. */
    private static String written(Appender appender, String logger, String message, Throwable thrown) {
        LogEvent event = Log4jLogEvent.newBuilder().setLoggerName(logger).setLevel(Level.ERROR).setThreadName("main")
                .setMessage(new SimpleMessage(message)).setThrown(thrown).build();
        return appender.getLayout().toSerializable(event).toString();
    }

    /**
     * A {@code ZOOKEEPER} host that does not resolve: ZooKeeper's host provider logs an ERROR with a
     * stack trace at each try, about once a second (13 lines a second in a trial); the demo writes
     * one line each, naming the host, and every other logger keeps its stack traces.
     */
    @Test
    void anUnresolvableZooKeeperHostIsOneLinePerTry() throws Exception {
        UnknownHostException failure = new UnknownHostException("nosuchhost.invalid");
        LoggerContext context = new LoggerContext("demo-log-config");
        try {
            context.setConfigLocation(Objects.requireNonNull(DemoLogConfigTest.class.getResource("/log4j2.properties")).toURI());
            context.start();
            Configuration config = context.getConfiguration();
            LoggerConfig hosts = config.getLoggerConfig(HOSTS);

            assertThat(hosts.getName()).isEqualTo(HOSTS);
            assertThat(hosts.getLevel()).isEqualTo(Level.ERROR);
            assertThat(hosts.isAdditive()).isFalse();
            assertThat(hosts.getAppenders().values()).singleElement().satisfies(appender -> assertThat(
                    written(appender, HOSTS, "Unable to resolve address: nosuchhost.invalid/<unresolved>:2181", failure))
                    .endsWith(" ERROR [main] StaticHostProvider - Unable to resolve address: nosuchhost.invalid/<unresolved>:2181"
                            + System.lineSeparator()));
            assertThat(config.getRootLogger().getAppenders().values()).singleElement().satisfies(appender -> assertThat(
                    written(appender, "io.github.agentlb.demo.ProxyRoutes", "other", failure))
                    .contains(" ERROR [main] ProxyRoutes - other" + System.lineSeparator()
                            + "java.net.UnknownHostException: nosuchhost.invalid"));
        } finally {
            context.stop();
        }
    }
}
