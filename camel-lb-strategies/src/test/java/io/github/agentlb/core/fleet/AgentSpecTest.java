package io.github.agentlb.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class AgentSpecTest {

    private static final URI A1 = URI.create("http://127.0.0.1:8081");

    @Test
    void anOrdinaryAgentHasWeightOneNoZoneAndIsNotDraining() {
        AgentSpec spec = AgentSpec.of("A1", A1);

        assertThat(spec).isEqualTo(new AgentSpec("A1", A1, 1.0, false, null));
        assertThat(spec.withWeight(2.5)).isEqualTo(new AgentSpec("A1", A1, 2.5, false, null));
        assertThat(spec.withDraining(true)).isEqualTo(new AgentSpec("A1", A1, 1.0, true, null));
    }

    @Test
    void aBlankZoneIsNoZone() {
        assertThat(new AgentSpec("A1", A1, 1, false, " ").zone()).isNull();
        assertThat(new AgentSpec("A1", A1, 1, false, "eu-1").zone()).isEqualTo("eu-1");
    }

    @Test
    void weightsFromJustAboveZeroToAThousandAreAccepted() {
        assertThat(new AgentSpec("A1", A1, Double.MIN_VALUE, false, null).weight()).isEqualTo(Double.MIN_VALUE);
        assertThat(new AgentSpec("A1", A1, 1000, false, null).weight()).isEqualTo(1000.0);
        for (double bad : new double[] {0, -1, 1000.5, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> new AgentSpec("A1", A1, bad, false, null))
                    .hasMessage("weight must be in (0, 1000], was " + bad);
        }
    }

    @Test
    void namesAreNonBlankWordsAndAddressesHttpWithHostAndPort() {
        assertThatThrownBy(() -> AgentSpec.of(" ", A1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("name");
        assertThatThrownBy(() -> AgentSpec.of("A 1", A1)).hasMessage("name must not contain white space, was 'A 1'");
        assertThatThrownBy(() -> AgentSpec.of("A1", null)).isInstanceOf(NullPointerException.class).hasMessage("address");
        for (String bad : new String[] {"ftp://h:1", "http://h", "//h:1", "mailto:a@b"}) {
            assertThatThrownBy(() -> AgentSpec.of("A1", URI.create(bad)))
                    .hasMessage("address must be http(s)://host:port, was '" + bad + "'");
        }
        assertThat(AgentSpec.of("A1", URI.create("HTTPS://h:443")).address().getPort()).isEqualTo(443);
    }

    @Test
    void onlyHttpAndHttpsAreSchemes() {
        assertThat(AgentSpec.checkScheme("http")).isEqualTo("http");
        assertThat(AgentSpec.checkScheme("https")).isEqualTo("https");
        assertThatThrownBy(() -> AgentSpec.checkScheme("HTTP")).hasMessage("scheme must be http or https, was HTTP");
        assertThatThrownBy(() -> AgentSpec.checkScheme(null)).hasMessage("scheme must be http or https, was null");
    }
}
