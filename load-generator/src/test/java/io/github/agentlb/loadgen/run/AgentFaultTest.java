package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("e2e")
@Timeout(60)
class AgentFaultTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static StubAgent agent() throws Exception {
        return StubAgent.start(AgentConfig.custom().agentId("A1").host(EmbeddedCluster.HOST).port(0).delayMs(0, 1)
                .build());
    }

    private static int health(int port) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(EmbeddedCluster.HOST, port), 2_000);
        return socket;
    }

    @Test
    void aKilledAgentRefusesConnectionsAndComesBackOnItsPortWithTheInstantsRecorded() throws Exception {
        AtomicLong clock = new AtomicLong(100);
        try (StubAgent agent = agent(); AgentFault fault = new AgentFault(agent, false, clock::getAndIncrement)) {
            int port = agent.port();
            assertThat(health(port)).isEqualTo(200);

            long killedAt = fault.kill();
            assertThatThrownBy(() -> connect(port).close()).isInstanceOf(ConnectException.class);

            long restartedAt = fault.restart();
            assertThat(health(port)).isEqualTo(200);
            assertThat(killedAt).isEqualTo(100);
            assertThat(restartedAt).isEqualTo(101);
            assertThat(fault.agentId()).isEqualTo("A1");
            assertThatThrownBy(fault::restart).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aHungAgentAcceptsAndNeverAnswersUntilItsRestart() throws Exception {
        try (StubAgent agent = agent(); AgentFault fault = new AgentFault(agent, true, System::nanoTime)) {
            int port = agent.port();
            fault.kill();
            try (Socket socket = connect(port)) {
                socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                socket.setSoTimeout(300);
                InputStream in = socket.getInputStream();
                assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);

                fault.restart();
                // the held connection is closed at the restart, and the agent answers again
                socket.setSoTimeout(2_000);
                assertThat(in.read()).isEqualTo(-1);
            }
            assertThat(health(port)).isEqualTo(200);
        }
    }

    @Test
    void anAgentIsKilledOnceAndRestartedOnlyAfterItsKill() throws Exception {
        try (StubAgent agent = agent(); AgentFault fault = new AgentFault(agent, false, System::nanoTime)) {
            assertThatThrownBy(fault::restart).isInstanceOf(IllegalStateException.class)
                    .hasMessage("agent A1 must be killed once before a restart");
            fault.kill();
            assertThatThrownBy(fault::kill).isInstanceOf(IllegalStateException.class)
                    .hasMessage("agent A1 was already killed");
        }
    }
}
