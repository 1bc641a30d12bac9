package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class AgentMainTest {

    @Test
    void environmentWinsOverSystemPropertiesWhichFillTheGaps() {
        Properties props = new Properties();
        props.setProperty("agent.id", "FromProp");
        props.setProperty("delay.min.ms", "5");
        props.setProperty("port", "9999");
        Map<String, String> settings = AgentMain.settings(Map.of("AGENT_ID", "FromEnv", "PATH", "/bin"), props);
        assertThat(settings).containsExactlyInAnyOrderEntriesOf(
                Map.of("AGENT_ID", "FromEnv", "DELAY_MIN_MS", "5", "PORT", "9999"));
    }

    @Test
    void aTakenPortIsOneLineAndAFreeOneNothing() throws Exception {
        int port;
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = taken.getLocalPort();
            assertThat(ServerPorts.portInUse("127.0.0.1", port)).isEqualTo("port " + port + " is in use: set PORT");
        }
        assertThat(ServerPorts.portInUse("127.0.0.1", port)).isNull();
    }
}
