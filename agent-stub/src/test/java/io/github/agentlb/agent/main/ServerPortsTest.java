package io.github.agentlb.agent.main;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class ServerPortsTest {

    /**
     * A port found for a server started on "port 0" comes from below the kernel's ephemeral range:
     * an outgoing connection of any process takes its local port from that range, and one did take
     * the port of an agent the load generator had probed free (BindException, Camel's stack trace).
     */
    @Test
    void aFreePortComesFromBelowTheEphemeralRangeWhereNoConnectionTakesIt() throws Exception {
        int first = ServerPorts.firstEphemeral("32768\t60999");
        assertThat(first).isEqualTo(32768);
        assertThat(ServerPorts.firstEphemeral("garbled")).isEqualTo(32768);
        assertThat(ServerPorts.firstEphemeral(null)).isEqualTo(32768);
        assertThat(ServerPorts.firstEphemeral(" 49152 65535\n")).isEqualTo(49152);
        int below = ServerPorts.firstEphemeral(ServerPorts.readPortRange());
        for (int i = 0; i < 50; i++) {
            int port = ServerPorts.findFreePort("127.0.0.1");
            assertThat(port).isBetween(below - 2 * ServerPorts.RANGE, below - ServerPorts.RANGE - 1);
            try (ServerSocket bound = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
                assertThat(bound.getLocalPort()).isEqualTo(port);
            }
        }
    }

    /** HOST=::1 failed the start with Camel's "hostname can't be null": the URI had it unbracketed. */
    @Test
    void anIpv6HostIsBracketedInAUri() {
        assertThat(ServerPorts.uriHost("::1")).isEqualTo("[::1]");
        assertThat(ServerPorts.uriHost("[::1]")).isEqualTo("[::1]");
        assertThat(ServerPorts.uriHost("127.0.0.1")).isEqualTo("127.0.0.1");
        assertThat(ServerPorts.uriHost("localhost")).isEqualTo("localhost");
    }
}
