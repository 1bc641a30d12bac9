package io.github.agentlb.agent.main;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MainSettingsTest {

    /** A bean with the properties of the example; its setters are not called here. */
    public static final class Settings {
    }

    private final MainSettings<Settings> binding = new MainSettings<>("settings", Settings.class,
            List.of("strategy", "agents", "host", "port", "consecutiveFailures"));

    @Test
    void aVariableOneOrTwoEditsFromOneOfTheBindingsIsSaidWithTheNameMeant() {
        Map<String, String> environment = new java.util.TreeMap<>(Map.of("STRATEGIE", "ch", "AGENT", "x",
                "CONSECUTIVE_FAILURE", "3", "DRAIN_TIMEOUT", "5", "HOME", "/root", "PATH", "/bin", "HOSTNAME", "h",
                "STRATEGY", "rr", "PWD", "/"));

        assertThat(binding.nearMisses(environment, Set.of("DRAIN_TIMEOUT_S"), "the proxy")).containsExactly(
                "AGENT is no variable of the proxy and is ignored: AGENTS was meant?",
                "CONSECUTIVE_FAILURE is no variable of the proxy and is ignored: CONSECUTIVE_FAILURES was meant?",
                "DRAIN_TIMEOUT is no variable of the proxy and is ignored: DRAIN_TIMEOUT_S was meant?",
                "STRATEGIE is no variable of the proxy and is ignored: STRATEGY was meant?");
    }

    @Test
    void editsCountedAsOptimalStringAlignment() {
        assertThat(MainSettings.edits("STRATEGY", "STRATEGY")).isZero();
        assertThat(MainSettings.edits("STRATEGIE", "STRATEGY")).isEqualTo(2);
        assertThat(MainSettings.edits("PROT", "PORT")).as("a transposition").isEqualTo(1);
        assertThat(MainSettings.edits("HOME", "HOST")).isEqualTo(2);
        assertThat(MainSettings.edits("", "PORT")).isEqualTo(4);
    }
}
