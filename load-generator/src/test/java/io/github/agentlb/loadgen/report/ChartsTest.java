package io.github.agentlb.loadgen.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChartsTest {

    /** The agents chart's eight variants on 1000 px ran into each other level ("keys-inflight-kept x2"). */
    @Test
    void categoryLabelsSlantWhenTheyWouldRunIntoEachOther() {
        List<String> agents = List.of("rr", "lr", "ch", "keys", "keys-bounded", "keys-inflight", "keys-inflight-kept",
                "keys-inflight-kept x2");
        assertThat(Charts.labelsCrowded(1000, agents)).isTrue();
        assertThat(Charts.labelsCrowded(1000, List.of("rr", "ch", "pid", "avn", "lr"))).isFalse();
        assertThat(Charts.labelsCrowded(800, List.of("ch", "ch-bounded", "avn", "avn-bounded"))).isFalse();
        assertThat(Charts.labelsCrowded(2000, List.of("a", "b", "c", "d", "e", "f", "g", "h", "i"))).as("more than 8").isTrue();
    }
}
