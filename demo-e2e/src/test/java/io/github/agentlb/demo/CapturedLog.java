package io.github.agentlb.demo;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/** The lines ({@code LEVEL message}) one logger writes while this is open, read by request. */
final class CapturedLog implements AutoCloseable {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Logger logger;
    private final AbstractAppender appender = new AbstractAppender("captured-log", null, null, true, Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent event) {
            lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
        }
    };

    /** @param loggerName the logger's name, e.g. a class's */
    CapturedLog(String loggerName) {
        logger = ((LoggerContext) LogManager.getContext(false)).getLogger(loggerName);
        appender.start();
        logger.addAppender(appender);
    }

    /** The lines containing {@code containing}, once there is one (lines may follow the client's answer), or none after 5 s. */
    List<String> lines(String containing) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> found = List.of();
        while (found.isEmpty() && System.nanoTime() < deadline) {
            found = lines.stream().filter(line -> line.contains(containing)).toList();
            if (found.isEmpty()) {
                Thread.sleep(10);
            }
        }
        return found;
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
    }
}
