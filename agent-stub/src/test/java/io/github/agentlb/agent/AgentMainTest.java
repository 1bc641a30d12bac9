package io.github.agentlb.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.agentlb.testing.FreePorts;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** AgentMain's settings through Camel Main: environment, system properties, a properties file, bad values. */
@Tag("e2e")
@Timeout(120)
class AgentMainTest {

    /** {@code --help} prints the settings (environment variables) and where each is described, and starts nothing. */
    @Test
    void helpPrintsTheEnvironmentVariablesAndStartsNothing() throws Exception {
        String text = SystemOut.of(() -> AgentMain.main(new String[] {"--help"}));
        assertThat(text).isEqualTo(AgentMain.USAGE).doesNotContain("Unknown option");
        assertThat(text).contains("AGENT_ID", "PORT", "DELAY_MIN_MS", "MAX_RUNNING", "agent-stub/README.md");
    }


    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void environmentVariablesSetTheKnobsAndWinOverSystemProperties() throws Exception {
        try (ChildJvm agent = ChildJvm.startServing(AgentMain.class,
                port -> Map.of("AGENT_ID", "FromEnv", "HOST", "127.0.0.1", "PORT", Integer.toString(port)),
                List.of("-Dagent.id=FromSysProp", "-Ddelay.min.ms=0", "-Ddelay.max.ms=0"),
                port -> "serving http://127.0.0.1:" + port, 60)) {
            HttpResponse<String> answer = get("http://127.0.0.1:" + agent.port() + "/process/r1?user_id=7");

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("\"agent_id\":\"FromEnv\"");
            assertThat(agent.output()).contains("delayMs=0..0");
        }
    }

    @Test
    void aBadValueIsOneLineAndExitStatus2() throws Exception {
        try (ChildJvm agent = ChildJvm.start(AgentMain.class,
                Map.of("CPU_BASE", "lots", "HOST", "127.0.0.1", "PORT", "0"), List.of())) {
            assertThat(agent.refusalLine(60))
                    .endsWith("Bad agent configuration: CPU_BASE must be a decimal number, was 'lots'");
        }
    }

    @Test
    void aHostThatDoesNotResolveIsOneLineAndExitStatus2() throws Exception {
        // Was: a 27-48 line stack trace, then "Bad agent configuration: null" and exit 2.
        try (ChildJvm agent = ChildJvm.start(AgentMain.class, Map.of("HOST", "999.1.1.1", "PORT", "0"), List.of())) {
            assertThat(agent.refusalLine(60)).endsWith("Bad agent configuration: HOST: host must be an IP address "
                    + "or a name that resolves, was '999.1.1.1'");
        }
        assertThat(startupProblem(Map.of("host", "nonexistent.invalid", "port", "0"))).isEqualTo(
                "Bad agent configuration: HOST: host must be an IP address or a name that resolves, "
                        + "was 'nonexistent.invalid'");
    }

    @Test
    void aFailureWithoutAMessageIsNamedByItsType() {
        assertThat(AgentSettings.BINDING.startupProblem(new RuntimeException("start failed",
                new IllegalArgumentException()), "agent"))
                .isEqualTo("Bad agent configuration: java.lang.IllegalArgumentException");
    }

    @Test
    void aPropertiesFileSetsTheKnobs(@TempDir Path dir) throws Exception {
        int port = FreePorts.next();
        Path file = Files.writeString(dir.resolve("agent.properties"),
                "agent.id = FromFile\nhost = 127.0.0.1\nport = " + port + "\ndelay.min.ms = 0\ndelay.max.ms = 0\n");
        Main main = AgentMain.createMain();
        main.setPropertyPlaceholderLocations("file:" + file);
        main.start();
        try {
            HttpResponse<String> answer = get("http://127.0.0.1:" + port + "/health");

            assertThat(answer.body()).isEqualTo("{\"status\":\"UP\",\"agent_id\":\"FromFile\"}");
        } finally {
            main.stop();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            port          | eighty  | PORT must be an integer, was 'eighty'
            port          | " 8081" | PORT must be an integer, was ' 8081'
            mint.sessions | yes     | MINT_SESSIONS must be true or false, was 'yes'
            speed         | -2      | SPEED: speed must be > 0 and finite, was -2.0
            delay.min.ms  | 300     | DELAY_MIN_MS, DELAY_MAX_MS: delayMinMs must be <= delayMaxMs (150), was 300
            """)
    void badValuesNameTheVariableAndTheValue(String property, String value, String problem) {
        assertThat(startupProblem(Map.of(property, value))).isEqualTo("Bad agent configuration: " + problem);
    }

    @Test
    void anUnknownSettingIsNamedWithTheKnownOnes() {
        assertThat(startupProblem(Map.of("camel.beans.agentSettings.delay", "5"))).startsWith(
                "Bad agent configuration: camel.beans.agentSettings has no setting 'delay'; it has [agentId, host, port,");
    }

    @Test
    void aTakenPortIsOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(startupProblem(Map.of("host", "127.0.0.1", "port", Integer.toString(taken.getLocalPort()))))
                    .isEqualTo("port " + taken.getLocalPort() + " is in use: set PORT");
        }
    }

    /** The one line AgentMain prints when Main fails to start with these Camel properties. */
    private static String startupProblem(Map<String, String> properties) {
        Main main = AgentMain.createMain();
        properties.forEach(main::addOverrideProperty);
        try {
            Throwable failure = catchThrowable(main::start);
            assertThat(failure).isNotNull();
            return AgentSettings.BINDING.startupProblem(failure, "agent");
        } finally {
            main.stop();
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
