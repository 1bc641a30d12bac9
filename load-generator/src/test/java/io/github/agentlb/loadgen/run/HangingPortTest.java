package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(30)
class HangingPortTest {

    @Test
    void holdsEveryConnectionWithoutAnsweringAndFreesThePortWhenClosed() throws Exception {
        int port;
        Socket first = new Socket();
        Socket second = new Socket();
        try (AgentFault.HangingPort hanging = AgentFault.HangingPort.open(EmbeddedCluster.HOST, 0)) {
            port = hanging.port();
            first.connect(new InetSocketAddress(EmbeddedCluster.HOST, port), 2_000);
            second.connect(new InetSocketAddress(EmbeddedCluster.HOST, port), 2_000);
            first.getOutputStream().write('G');
            first.setSoTimeout(200);
            assertThatThrownBy(() -> first.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            while (hanging.connectionsHeld() < 2) { // bounded by the class's @Timeout, not by a speed guess
                Thread.sleep(10);
            }
            assertThat(hanging.connectionsHeld()).isEqualTo(2);
        }
        second.setSoTimeout(2_000);
        assertThat(second.getInputStream().read()).isEqualTo(-1);
        first.close();
        second.close();
        assertThatThrownBy(() -> {
            try (Socket late = new Socket()) {
                late.connect(new InetSocketAddress(EmbeddedCluster.HOST, port), 2_000);
            }
        }).isInstanceOf(ConnectException.class);
    }
}
