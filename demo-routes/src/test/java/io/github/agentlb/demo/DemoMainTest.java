package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.agentlb.agent.StubAgent;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.Map;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Camel Main application in-process: settings, proxying and the Prometheus endpoint. */
@Timeout(60)
class DemoMainTest {

    private final Http http = new Http();

    @Test
    void proxiesAndServesPrometheusMetricsTaggedWithStrategyAndAgent() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2)) {
            int port = StubAgent.findFreePort("127.0.0.1");
            int managementPort = StubAgent.findFreePort("127.0.0.1");
            while (managementPort == port) {
                managementPort = StubAgent.findFreePort("127.0.0.1");
            }
            Main main = DemoMain.createMain(Map.of(
                    "PORT", Integer.toString(port),
                    "AGENTS", String.join(",", agents.urls())));
            // The strategy as a Camel property rather than an environment variable.
            main.addOverrideProperty("strategy", "ch");
            main.addOverrideProperty("camel.management.port", Integer.toString(managementPort));
            main.addOverrideProperty("camel.management.host", "127.0.0.1");
            main.start();
            try {
                String agent = null;
                for (int i = 0; i < 6; i++) {
                    HttpResponse<String> response =
                            http.get("http://127.0.0.1:" + port + "/process/m" + i + "?user_id=42");
                    assertThat(response.statusCode()).isEqualTo(200);
                    assertThat(agent == null || agent.equals(Http.agentId(response))).isTrue();
                    agent = Http.agentId(response);
                }
                String answering = agents.urls().get(Integer.parseInt(agent.substring(1)) - 1);

                HttpResponse<String> metrics = http.get("http://127.0.0.1:" + managementPort + "/observe/metrics");

                assertThat(metrics.statusCode()).isEqualTo(200);
                assertThat(metrics.body()).containsPattern("agentlb_proxy_requests_seconds_count\\{[^}]*agent=\""
                        + answering + "\"[^}]*status=\"200\"[^}]*strategy=\"ch\"[^}]*} 6");
                assertThat(metrics.body()).contains("agentlb_attempts_seconds_count");
            } finally {
                main.stop();
            }
        }
    }

    @Test
    void aTakenPortStopsTheStartWithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Main main = DemoMain.createMain(Map.of(
                    "PORT", Integer.toString(taken.getLocalPort()), "AGENTS", "http://127.0.0.1:1"));
            main.addOverrideProperty("camel.management.enabled", "false");
            try {
                Throwable failure = catchThrowable(main::start);

                assertThat(DemoMain.startupProblem(failure))
                        .isEqualTo("port " + taken.getLocalPort() + " is in use: set PORT");
            } finally {
                main.stop();
            }
        }
    }

    @Test
    void aBadSettingIsOneLineAndOtherFailuresAreNotHidden() {
        assertThat(DemoMain.startupProblem(new RuntimeException("start failed",
                new IllegalArgumentException("strategy must be one of rr, ch, was 'x'"))))
                .isEqualTo("Bad proxy configuration: strategy must be one of rr, ch, was 'x'");
        assertThat(DemoMain.startupProblem(new IllegalStateException("something else"))).isNull();
    }

    @Test
    void aTakenManagementPortIsOneLineToo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            String port = Integer.toString(taken.getLocalPort());
            // Was: a BindException stack trace, then a proxy without metrics on another process's port.
            assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", port)))
                    .isEqualTo("management port " + port + " is in use: set MANAGEMENT_PORT");
        }
        assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", "x"))).isNull();
    }
}
