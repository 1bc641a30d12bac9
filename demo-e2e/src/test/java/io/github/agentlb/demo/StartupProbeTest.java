package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.testing.FreePorts;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The start-up log names the agents that accept no connection. */
@Tag("e2e")
class StartupProbeTest {

    @Test
    void theStartUpLogNamesTheAgentsThatDoNotAnswer() throws Exception {
        String dead = "http://127.0.0.1:" + FreePorts.next(); // nothing listens on it, and no other test's server will
        List<String> warnings = new CopyOnWriteArrayList<>();
        Logger logger = ((LoggerContext) LogManager.getContext(false)).getLogger(ProxyRoutes.class.getName());
        AbstractAppender appender = new AbstractAppender("startup-probe", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getLevel() == Level.WARN) {
                    warnings.add(event.getMessage().getFormattedMessage());
                }
            }
        };
        appender.start();
        logger.addAppender(appender);
        try (Agents agents = Agents.start(1, 0, 0)) {
            assertThat(ProxyRoutes.logSilentAgents(List.of(agents.get(0).baseUrl(), dead))).containsExactly(dead);
            assertThat(ProxyRoutes.logSilentAgents(List.of(agents.get(0).baseUrl()))).isEmpty();
            assertThat(ProxyRoutes.logSilentAgents(List.of(dead))).containsExactly(dead);
            assertThat(warnings).containsExactly("At start 1 of 2 agents accept no connection: [" + dead + "]",
                    "At start 1 of 1 agents accept no connection: [" + dead + "] (none does: requests get 503 until one answers)");
        } finally {
            logger.removeAppender(appender);
        }
    }
}
