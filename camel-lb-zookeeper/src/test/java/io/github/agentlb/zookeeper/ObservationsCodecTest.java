package io.github.agentlb.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.core.shared.Observations;
import io.github.agentlb.core.shared.Observations.Report;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObservationsCodecTest {

    private static final Observations OBSERVATIONS = new Observations("proxy-1", 12,
            List.of(Long.MIN_VALUE, 17L, -912L, Long.MAX_VALUE),
            List.of(new Report("A1", 0.9, 0.2), new Report("http://localhost:8082?bridgeEndpoint=true", 0.125, 1.0),
                    new Report("A 3", 0.0, 0.30000000000000004)));

    @Test
    void roundTripsWithIdsHoldingSpacesAndExactDoubles() {
        assertThat(ObservationsCodec.decode(ObservationsCodec.encode(OBSERVATIONS))).isEqualTo(OBSERVATIONS);
        Observations empty = new Observations("r", 1, List.of(), List.of());
        assertThat(ObservationsCodec.decode(ObservationsCodec.encode(empty))).isEqualTo(empty);
    }

    @Test
    void theStoredTextIsReadableAndPinned() {
        Observations o = new Observations("proxy-1", 3, List.of(-5L, 17L), List.of(new Report("A1", 0.9, 0.2),
                new Report("A 2", 0.1, 0.25)));
        assertThat(new String(ObservationsCodec.encode(o), StandardCharsets.UTF_8)).isEqualTo("""
                agentlb-observations 1
                replica proxy-1
                sequence 3
                positions -5 17
                report 0.9 0.2 A1
                report 0.1 0.25 A 2
                """);
        assertThat(new String(ObservationsCodec.encode(new Observations("r", 1, List.of(), List.of())),
                StandardCharsets.UTF_8)).isEqualTo("agentlb-observations 1\nreplica r\nsequence 1\npositions\n");
    }

    @Test
    void corruptContentIsRejectedNamingTheProblem() {
        String good = new String(ObservationsCodec.encode(OBSERVATIONS), StandardCharsets.UTF_8);
        assertThatThrownBy(() -> decode("")).hasMessage("empty observations");
        assertThatThrownBy(() -> decode("{\"sequence\": 3}")).hasMessage("not observations: first line '{\"sequence\": 3}'");
        assertThatThrownBy(() -> decode(good.replace("sequence 12", "sequence twelve")))
                .hasMessage("sequence must be a whole number, was 'twelve'");
        assertThatThrownBy(() -> decode(good.replace("sequence 12", "sequence 0"))).hasMessage("sequence must be >= 1, was 0");
        assertThatThrownBy(() -> decode(good.replace(" 17 ", " 1x7 "))).hasMessage("position must be a whole number, was '1x7'");
        assertThatThrownBy(() -> decode(good.replace("report 0.9 0.2 A1", "report 1.5 0.2 A1")))
                .hasMessage("cpu must be in 0..1, was 1.5");
        assertThatThrownBy(() -> decode(good.replace("report 0.9 0.2 A1", "report NaN 0.2 A1")))
                .hasMessage("cpu must be in 0..1, was NaN");
        assertThatThrownBy(() -> decode(good.replace("report 0.9 0.2 A1", "report 0.9 high A1")))
                .hasMessage("memory must be a number, was 'high'");
        assertThatThrownBy(() -> decode(good.replace("report 0.9 0.2 A1", "report 0.9 0.2")))
                .hasMessage("bad line 5: 'report 0.9 0.2'");
        assertThatThrownBy(() -> decode(good.replace("report 0.9 0.2 A1", "report 0.9 0.2  ")))
                .hasMessage("agent must not be blank, was ' '");
        assertThatThrownBy(() -> decode(good.replace("replica proxy-1\n", ""))).hasMessage("replica, sequence and positions are required");
        assertThatThrownBy(() -> decode(good + "sequence 13\n")).hasMessage("repeated line 8: 'sequence 13'");
        assertThatThrownBy(() -> decode(good + "weight 3\n")).hasMessage("unknown line 8: 'weight 3'");
        String tooMany = "agentlb-observations 1\nreplica r\nsequence 1\npositions " + String.join(" ",
                Collections.nCopies(Observations.MAX_POSITIONS + 1, "7")) + "\n";
        assertThatThrownBy(() -> decode(tooMany)).hasMessage("at most 4096 positions");
    }

    @Test
    void observationsAreValidatedAndBounded() {
        assertThatThrownBy(() -> new Observations(" ", 1, List.of(), List.of())).hasMessageContaining("replicaId must not be blank");
        assertThatThrownBy(() -> new Observations("r", 1, Collections.nCopies(4097, 1L), List.of()))
                .hasMessage("at most 4096 positions, was 4097");
        assertThatThrownBy(() -> new Observations("r", 1, List.of(), Collections.nCopies(4097, new Report("a", 0, 0))))
                .hasMessage("at most 4096 reports, was 4097");
        assertThatThrownBy(() -> new Report("a", Double.POSITIVE_INFINITY, 0)).hasMessage("cpu must be in 0..1, was Infinity");
        assertThat(Observations.shareEvery(100, 3, 4)).isEqualTo(8);
        assertThat(Observations.shareEvery(100, 1, Observations.SHARES_PER_WINDOW)).isEqualTo(25);
        assertThat(Observations.shareEvery(5, 3, 4)).isEqualTo(1);
        assertThat(Observations.shareEvery(Integer.MAX_VALUE, 1, 1)).isEqualTo(Observations.MAX_POSITIONS);
    }

    private static Observations decode(String text) {
        return ObservationsCodec.decode(text.getBytes(StandardCharsets.UTF_8));
    }
}
