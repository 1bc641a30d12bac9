package io.github.agentlb.fleet;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The lines one logger (a class, or a package and its classes) logs at INFO and above while the
 * capture is open. Also in this module's test fixtures (type test-jar), for camel-lb-kubernetes' tests.
 */
public final class CapturedLog implements AutoCloseable {

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final String loggerName;
    private final AbstractAppender appender;

    public CapturedLog(Class<?> logger) {
        this(logger.getName());
    }

    /** @param loggerName e.g. {@code io.fabric8}: that logger and those below it */
    public CapturedLog(String loggerName) {
        this.loggerName = loggerName;
        appender = new AbstractAppender("captured-" + loggerName, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        LoggerConfig config = new LoggerConfig(loggerName, Level.INFO, false);
        config.addAppender(appender, Level.INFO, null);
        context.getConfiguration().addLogger(loggerName, config);
        context.updateLoggers();
    }

    /** @return the lines logged at {@code level} so far, each "LEVEL message" */
    public List<String> at(String level) {
        return lines.stream().filter(line -> line.startsWith(level + " ")).toList();
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger(loggerName);
        context.updateLoggers();
        appender.stop();
    }
}
