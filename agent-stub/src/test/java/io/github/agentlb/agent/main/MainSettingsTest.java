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
    void aVariableThatIsOneOfTheBindingsWithAnotherOrNoTimeUnitIsSaidWithTheNameMeant() {
        // Three or more edits from the name meant, so the edit rule let them pass in silence.
        Map<String, String> environment = new java.util.TreeMap<>(Map.of("DELAY_MAX", "100",
                "DRAIN_TIMEOUT_SECONDS", "5", "IDLE_TIMEOUT_MILLIS", "9", "KUBERNETES_PORT", "tcp://10.0.0.1:443",
                "AGENTS_SERVICE_PORT", "80", "DELAY_MAX_MS", "150", "TIMEOUT_MS_S", "1", "MS", "1"));

        assertThat(binding.nearMisses(environment, Set.of("DRAIN_TIMEOUT_S", "DELAY_MAX_MS", "IDLE_TIMEOUT_MS"),
                "the proxy")).containsExactly(
                "DELAY_MAX is no variable of the proxy and is ignored: DELAY_MAX_MS was meant?",
                "DRAIN_TIMEOUT_SECONDS is no variable of the proxy and is ignored: DRAIN_TIMEOUT_S was meant?",
                "IDLE_TIMEOUT_MILLIS is no variable of the proxy and is ignored: IDLE_TIMEOUT_MS was meant?");
    }

    /**
     * A setting Camel's property placeholders would read otherwise is one line naming its variable:
     * a backslash before the value's last character was dropped ({@code AGENTS=A1=http://h:1\\}
     * ran on {@code http://h:1}), and {@code {{} failed with Camel's "Missing }} from the text"
     * (an operator's trial). Other variables are not looked at.
     */
    @Test
    void aValueCamelsPlaceholdersWouldReadOtherwiseIsOneLineNamingTheVariable() {
        for (String value : List.of("A1=http://h:1\\", "A1=http://h:1{{x", "A1=http://h:1}}", "a\\b")) {
            assertThat(binding.placeholderProblem(Map.of("AGENTS", value, "STRATEGY", "rr"), "proxy")).as(value)
                    .isEqualTo("Bad proxy configuration: AGENTS is taken as written and must hold no backslash, {{ or }}"
                            + " (Camel's property placeholders would read it otherwise), was '" + value + "'");
        }
        assertThat(binding.placeholderProblem(Map.of("AGENTS", "A1=http://h:1", "HOME", "C:\\x{{"), "proxy")).isNull();
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
