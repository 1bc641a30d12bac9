package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** JavaBean settings kept until start, applied in the order set, refused while running. */
class SettingsTest {

    private final AtomicBoolean running = new AtomicBoolean();
    private final Settings<List<String>> settings = new Settings<>(running::get);

    @Test
    void keptValuesShowUntilAppliedThenTheCurrentValueShows() {
        assertThat(settings.isEmpty()).isTrue();
        assertThat(settings.get("kp", 1.0)).isEqualTo(1.0);
        settings.put("kp", 2.0, b -> b.add("kp=2"));
        assertThat(settings.isEmpty()).isFalse();
        assertThat(settings.get("kp", 1.0)).isEqualTo(2.0);
        assertThat(settings.get("ki", 0.5)).as("another field").isEqualTo(0.5);

        List<String> builder = new ArrayList<>();
        assertThat(settings.applyTo(builder)).isSameAs(builder);
        assertThat(builder).containsExactly("kp=2");
        assertThat(settings.isEmpty()).isTrue();
        assertThat(settings.get("kp", 1.0)).isEqualTo(1.0);
        assertThat(settings.applyTo(new ArrayList<>())).as("forgotten once applied").isEmpty();
    }

    @Test
    void operationsApplyInTheOrderSetAndASecondSetReplacesTheFirst() {
        settings.put("b", 1, l -> l.add("b=1"));
        settings.put("a", 2, l -> l.add("a=2"));
        settings.put("b", 3, l -> l.add("b=3"));
        assertThat(settings.get("b", 0)).isEqualTo(3);
        assertThat(settings.applyTo(new ArrayList<>())).containsExactly("b=3", "a=2");
    }

    @Test
    void aFailedApplyKeepsTheSettingsForTheNextStart() {
        settings.put("kp", -1.0, b -> {
            throw new IllegalArgumentException("kp must be >= 0, was -1.0");
        });
        assertThatThrownBy(() -> settings.applyTo(new ArrayList<>())).hasMessage("kp must be >= 0, was -1.0");
        assertThat(settings.isEmpty()).isFalse();
        assertThat(settings.get("kp", 1.0)).isEqualTo(-1.0);
    }

    @Test
    void settingWhileRunningIsRefusedNamingFieldAndValue() {
        running.set(true);
        assertThatThrownBy(() -> settings.put("kp", 2.0, b -> b.add("kp=2")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("kp can only be set before the balancer starts, was set to 2.0");
        assertThat(settings.isEmpty()).isTrue();
    }
}
