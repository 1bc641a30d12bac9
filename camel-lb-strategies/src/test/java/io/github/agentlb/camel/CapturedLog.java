package io.github.agentlb.camel;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * The INFO lines (or those of another level and up) of one logger while open (the test
 * configuration logs WARN and up): turns the logger to INFO, collects its formatted messages, and restores the logger on close.
 */
final class CapturedLog implements AutoCloseable {

    private final Logger logger;
    private final Level level;
    private final boolean additive;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final AbstractAppender appender;

    CapturedLog(String loggerName) {
        this(loggerName, Level.INFO);
    }

    /** The lines of {@code captured} and up of one logger while open. */
    CapturedLog(String loggerName, Level captured) {
        logger = ((LoggerContext) LogManager.getContext(false)).getLogger(loggerName);
        level = logger.getLevel();
        additive = logger.isAdditive();
        appender = new AbstractAppender("captured-" + loggerName, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        logger.addAppender(appender);
        logger.setAdditive(false);
        logger.setLevel(captured);
    }

    /** The lines logged so far, each {@code LEVEL message}. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
        logger.setAdditive(additive);
        logger.setLevel(level);
        appender.stop();
    }
}
