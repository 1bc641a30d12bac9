package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.agentlb.agent.ChildJvm;
import io.github.agentlb.testing.FreePorts;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The Camel Main application in-process: settings, proxying and the Prometheus endpoint. */
@Tag("e2e")
@Timeout(120)
class DemoMainTest {

    /** {@code --help} prints the settings (environment variables) and where each is described, and starts nothing. */
    @Test
    void helpPrintsTheEnvironmentVariablesAndStartsNothing() throws Exception {
        String text = io.github.agentlb.agent.SystemOut.of(() -> DemoMain.main(new String[] {"--help"}));
        assertThat(text).isEqualTo(DemoMain.USAGE).doesNotContain("Unknown option");
        assertThat(text).contains("STRATEGY", "AGENTS", "PORT", "MANAGEMENT_PORT", "BALANCER_<KNOB>", "demo-routes/README.md");
    }


    private final Http http = new Http();

    /** Camel's own balancer sets no agent property of ours: the proxy's timer takes the answering agent endpoint's address. */
    @Test
    void camelRoundRobinRequestsAreRecordedUnderTheAgentThatAnswered() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2)) {
            Demo demo = Demo.start(agents, "camel-rr");
            Main main = demo.main();
            int port = demo.port();
            int managementPort = demo.managementPort();
            try {
                for (int i = 0; i < 6; i++) {
                    assertThat(http.get("http://127.0.0.1:" + port + "/process/c" + i + "?user_id=42").statusCode()).isEqualTo(200);
                }
                // Each agent twice, by its base URL; recorded when each exchange is done: scraped until all six are.
                List<Pattern> twice = agents.urls().stream().map(url -> Pattern.compile("agentlb_proxy_requests_seconds_count\\{[^}]*agent=\""
                        + url + "\"[^}]*status=\"200\"[^}]*strategy=\"camel-rr\"[^}]*} 2")).toList();
                String scrape = "http://127.0.0.1:" + managementPort + "/observe/metrics";
                String body = http.get(scrape).body();
                for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); System.nanoTime() < deadline
                        && !twice.stream().allMatch(p -> p.matcher(http.get(scrape).body()).find()); ) {
                    Thread.sleep(50);
                }
                body = http.get(scrape).body();
                String scraped = body;
                assertThat(twice).allSatisfy(p -> assertThat(scraped).containsPattern(p));
                assertThat(scraped).doesNotContain("agent=\"none\"");
            } finally {
                main.stop();
            }
        }
    }

    @Test
    void proxiesAndServesPrometheusMetricsTaggedWithStrategyAndAgent() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2)) {
            Demo demo = Demo.start(agents, "ch");
            Main main = demo.main();
            int port = demo.port();
            int managementPort = demo.managementPort();
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

                // The client may have the sixth answer before its call ended (the proxy records a request
                // when its exchange is done, after the answer's last bytes are written): scraped until it has.
                String sixth = "agentlb_proxy_requests_seconds_count\\{[^}]*agent=\""
                        + answering + "\"[^}]*status=\"200\"[^}]*strategy=\"ch\"[^}]*} 6";
                HttpResponse<String> metrics = http.get("http://127.0.0.1:" + managementPort + "/observe/metrics");
                for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        !Pattern.compile(sixth).matcher(metrics.body()).find() && System.nanoTime() < deadline; ) {
                    Thread.sleep(50);
                    metrics = http.get("http://127.0.0.1:" + managementPort + "/observe/metrics");
                }

                assertThat(metrics.statusCode()).isEqualTo(200);
                assertThat(metrics.body()).containsPattern(sixth);
                assertThat(metrics.body()).contains("agentlb_attempts_seconds_count");
                // The agent endpoints' own meters, as Envoy's upstream_rq_active and its answer counts.
                assertThat(metrics.body()).containsPattern("agentlb_agent_requests_active\\{agent=\"" + answering + "\"[^}]*} 0");
                assertThat(metrics.body()).containsPattern("agentlb_agent_answers_total\\{agent=\"" + answering
                        + "\"[^}]*status=\"2xx\"[^}]*} 6");
                assertThat(metrics.body()).containsPattern("agentlb_agent_answer_bytes_total\\{agent=\"" + answering + "\"[^}]*} [1-9]");
                // What the server holds of request bodies still arriving: nothing, between requests.
                assertThat(metrics.body()).containsPattern("agentlb_proxy_request_body_held_bytes(\\{[^}]*})? 0");
                assertThat(metrics.body()).containsPattern("agentlb_proxy_request_body_waiting(\\{[^}]*})? 0");
            } finally {
                main.stop();
            }
        }
    }

    /**
     * Requests the server answers itself before any routing (malformed, a version or a body it
     * refuses) are counted by status in {@code agentlb_proxy_refused_total}, each status the server
     * can refuse with there from the start at 0, and reach no agent.
     */
    @Test
    void requestsRefusedBeforeRoutingAreCountedByStatus() throws Exception {
        try (Agents agents = Agents.start(3, 0, 2)) {
            Demo demo = Demo.start(agents, "rr");
            Main main = demo.main();
            try {
                String scrape = "http://127.0.0.1:" + demo.managementPort() + "/observe/metrics";
                for (String status : List.of("400", "408", "413", "414", "417", "431", "501", "503", "505")) {
                    assertThat(http.get(scrape).body()).contains("agentlb_proxy_refused_total{status=\"" + status + "\"} 0.0");
                }
                assertThat(refusedWith(demo.port(), "NOT HTTP AT ALL\r\n\r\n")).startsWith("HTTP/1.1 400 ");
                assertThat(refusedWith(demo.port(), "GET /process/a?user_id=1 HTTP/3.0\r\nHost: x\r\n\r\n"))
                        .startsWith("HTTP/1.1 505 ");
                assertThat(refusedWith(demo.port(), "GET /process/a?user_id=1 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400 ");
                assertThat(refusedWith(demo.port(), "POST /process/a?user_id=1 HTTP/1.1\r\nHost: x\r\n"
                        + "Content-Length: 999999999\r\n\r\n")).startsWith("HTTP/1.1 413 ");
                String metrics = http.get(scrape).body();
                assertThat(metrics).contains("agentlb_proxy_refused_total{status=\"400\"} 2.0");
                assertThat(metrics).contains("agentlb_proxy_refused_total{status=\"413\"} 1.0");
                assertThat(metrics).contains("agentlb_proxy_refused_total{status=\"505\"} 1.0");
                assertThat(metrics).contains("agentlb_proxy_refused_total{status=\"408\"} 0.0");
                assertThat(metrics).doesNotContain("agentlb_proxy_requests_seconds_count");
            } finally {
                main.stop();
            }
        }
    }

    /** The first line and the rest of the answer to {@code request} sent raw, read until the server closes. */
    private static String refusedWith(int port, String request) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    @Test
    void readinessIsDownWhileEveryAgentIsFailingAndLivenessStaysUp() throws Exception {
        int port = FreePorts.next();
        int managementPort = FreePorts.next();
        int deadAgent = FreePorts.next();
        while (managementPort == port || deadAgent == port || deadAgent == managementPort) {
            managementPort = FreePorts.next();
            deadAgent = FreePorts.next();
        }
        Main main = DemoMain.createMain();
        main.addOverrideProperty("port", Integer.toString(port));
        main.addOverrideProperty("agents", "A1=http://127.0.0.1:" + deadAgent);
        main.addOverrideProperty("strategy", "rr");
        main.addOverrideProperty("camel.management.port", Integer.toString(managementPort));
        main.addOverrideProperty("camel.management.host", "127.0.0.1");
        main.start();
        try {
            String health = "http://127.0.0.1:" + managementPort + "/observe/health";
            // No agent accepted a connection at start: not ready before any request.
            HttpResponse<String> atStart = http.get(health + "/ready");
            assertThat(atStart.statusCode()).as(atStart.body()).isEqualTo(503);

            assertThat(http.get("http://127.0.0.1:" + port + "/process/r1?user_id=1").statusCode()).isEqualTo(503);

            // The only agent refused: the cap keeps it in, but it failed within the 10 s base
            // ejection time. Not ready, still alive.
            HttpResponse<String> ready = http.get(health + "/ready");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
            assertThat(ready.body()).contains("DOWN");
            assertThat(http.get(health + "/live").statusCode()).isEqualTo(200);
        } finally {
            main.stop();
        }
    }

    @Test
    void aTakenPortStopsTheStartWithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Main main = DemoMain.createMain();
            main.addOverrideProperty("port", Integer.toString(taken.getLocalPort()));
            main.addOverrideProperty("agents", "http://127.0.0.1:1");
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
        // An option of a Camel component the proxy uses, by -Dcamel.component..., that it has not or refused.
        assertThat(DemoMain.startupProblem(new RuntimeException("start failed", new org.apache.camel.PropertyBindingException(
                new Object(), "stallFactor", "0.5", "camel.component.agent", "stallFactor", null))))
                .isEqualTo("Bad proxy configuration: camel.component.agent.stallFactor=0.5 was refused"
                        + " (no such option, or not a value it takes)");
        assertThat(DemoMain.startupProblem(new org.apache.camel.PropertyBindingException(new Object(), "minStallTime", "abc",
                "camel.component.agent.", "minStallTime", new IllegalArgumentException("not a duration: abc"))))
                .isEqualTo("Bad proxy configuration: camel.component.agent.minStallTime=abc was refused: not a duration: abc");
    }

    @Test
    void environmentVariablesSetTheProxyAndTheBalancer() throws Exception {
        try (Agents agents = Agents.start(2, 0, 2)) {
            int[] management = new int[1];
            try (ChildJvm proxy = ChildJvm.startServing(DemoMain.class, free -> {
                        management[0] = FreePorts.next();
                        Map<String, String> env = new HashMap<>(Map.of("PORT", Integer.toString(free), "HOST", "127.0.0.1",
                                "AGENTS", String.join(",", agents.urls()), "STRATEGY", "ch",
                                "MANAGEMENT_PORT", Integer.toString(management[0]), "CONSECUTIVE_FAILURES", "2",
                                "MAXIMUM_FAILOVER_ATTEMPTS", "1"));
                        env.putAll(Map.of("BALANCER_HEDGING_ENABLED", "true", "BALANCER_RETRY_BUDGET_SHARE", "0.3",
                                "BALANCER_RETRY_BACKOFF_BASE_INTERVAL", "40ms", "BALANCER_FAILOVER_DEADLINE", "20s"));
                        return env;
                    }, List.of("-Dstrategy=rr", "-Dbase.ejection.time.ms=2500"), free -> "Proxy on http://127.0.0.1:" + free + "/", 60)) {
                int port = proxy.port();
                int managementPort = management[0];

                HttpResponse<String> answer = http.get("http://127.0.0.1:" + port + "/process/e1?user_id=7");

                assertThat(answer.statusCode()).isEqualTo(200);
                // HOST=127.0.0.1 binds the management server there too, not on every interface.
                assertThat(http.get("http://127.0.0.1:" + managementPort + "/observe/health").statusCode()).isEqualTo(200);
                assertThat(catchThrowable(() -> http.get("http://127.0.0.2:" + managementPort + "/observe/health")))
                        .isInstanceOf(UncheckedIOException.class).hasCauseInstanceOf(ConnectException.class);
                assertThat(proxy.output()).contains("strategy=ch")
                        .contains("consecutiveFailures=2").contains("baseEjectionTimeMs=2500")
                        .contains("maximumFailoverAttempts=1").contains("failoverDeadlineMs=20000");
                // What the failovers and hedges run with, set or not (the knobs' line shows only those set).
                assertThat(proxy.output()).contains("Retry budget: failovers in flight at most 0.3 x the requests in "
                        + "flight, or 3; backoff with full jitter below 40 ms, doubling up to 250 ms")
                        .contains("Hedging: an idempotent request without an answer head after the p97 of recent "
                                + "first-byte times (1000 ms until enough are known) also goes to another agent, at most 1");
                // The start-up lines name the management server's address as bound (Camel's own summary says 0.0.0.0).
                assertThat(proxy.output()).contains("Management: http://127.0.0.1:" + managementPort
                        + "/observe/health and /observe/metrics").doesNotContain("0.0.0.0");
            }
        }
    }

    @Test
    void aBadValueIsOneLineAndExitStatus2() throws Exception {
        int managementPort = FreePorts.next();
        try (ChildJvm proxy = ChildJvm.start(DemoMain.class, Map.of("MAX_EJECTED_SHARE", "half",
                "HOST", "127.0.0.1", "PORT", "0", "MANAGEMENT_PORT", Integer.toString(managementPort)), List.of())) {
            assertThat(proxy.refusalLine(60))
                    .endsWith("Bad proxy configuration: MAX_EJECTED_SHARE must be a decimal number, was 'half'");
        }
    }

    @Test
    void aPropertiesFileSetsTheProxyAndHostIsTheInterfaceItListensOn(@TempDir Path dir) throws Exception {
        try (Agents agents = Agents.start(2, 0, 2)) {
            // 127.0.0.2 is loopback too on Linux, and a socket bound to it does not answer on 127.0.0.1.
            int port = FreePorts.next();
            Path file = Files.writeString(dir.resolve("proxy.properties"), "host = 127.0.0.2\nport = " + port
                    + "\nagents = " + String.join(",", agents.urls()) + "\nstrategy = ch\n");
            Main main = DemoMain.createMain();
            main.setPropertyPlaceholderLocations("file:" + file);
            main.addOverrideProperty("camel.management.enabled", "false");
            main.start();
            try {
                HttpResponse<String> answer = http.get("http://127.0.0.2:" + port + "/process/f1?user_id=7");

                assertThat(answer.statusCode()).isEqualTo(200);
                assertThat(catchThrowable(() -> http.get("http://127.0.0.1:" + port + "/process/f2?user_id=7")))
                        .isInstanceOf(UncheckedIOException.class).hasCauseInstanceOf(ConnectException.class);
                assertThat(main.getCamelContext().getRoutes().get(0).getEndpoint().getEndpointUri())
                        .contains("127.0.0.2:" + port);
            } finally {
                main.stop();
            }
        }
    }

    /**
     * {@code -propertiesLocation} adds files to the jar's own application.properties (Camel Main would read
     * them instead: no management server, no drain timeout), the user's first, so that a key in both is
     * theirs (the first location wins in Camel 4.18); a file that is not there is one line.
     */
    @Test
    void aPropertiesLocationIsReadBeforeTheJarsOwnPropertiesAndAMissingFileIsOneLine(@TempDir Path dir) throws Exception {
        assertThat(DemoMain.withOwnProperties(new String[] {"-propertiesLocation", "file:p.properties"}))
                .containsExactly("-propertiesLocation", "file:p.properties,classpath:application.properties");
        assertThat(DemoMain.withOwnProperties(new String[] {"-pl", "file:a.properties,classpath:application.properties"}))
                .containsExactly("-pl", "file:a.properties,classpath:application.properties");
        assertThat(DemoMain.withOwnProperties(new String[] {"-dm", "5"})).containsExactly("-dm", "5");
        Path there = Files.writeString(dir.resolve("p.properties"), "strategy = ch\n");
        assertThat(DemoMain.propertiesLocationProblem(new String[] {"-propertiesLocation", "file:" + there})).isNull();
        assertThat(DemoMain.propertiesLocationProblem(new String[] {"-pl", "file:" + dir.resolve("nope.properties")}))
                .isEqualTo("Bad proxy configuration: -pl: file:" + dir.resolve("nope.properties") + ": no such file");
        assertThat(DemoMain.propertiesLocationProblem(new String[] {"-pl", "file:" + dir.resolve("nope.properties")
                + ";optional=true"})).isNull();
    }

    /** -Dcamel.management.port (the README's property of MANAGEMENT_PORT) was not checked: 'abc' ran on a random port. */
    @Test
    void theManagementPortsPropertyIsCheckedAsTheVariableIs() {
        System.setProperty("camel.management.port", "abc");
        try {
            assertThat(DemoMain.managementPortProblem(Map.of())).isEqualTo(
                    "Bad proxy configuration: camel.management.port must be an integer 1..65535, was 'abc'");
            assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", "x"))).isEqualTo(
                    "Bad proxy configuration: MANAGEMENT_PORT must be an integer 1..65535, was 'x'");
        } finally {
            System.clearProperty("camel.management.port");
        }
        System.setProperty("camel.management.host", "127.0.0.2");
        try {
            assertThat(DemoMain.managementHost(Map.of("HOST", "127.0.0.1"))).isEqualTo("127.0.0.2");
            assertThat(DemoMain.managementHost(Map.of("MANAGEMENT_HOST", "127.0.0.3"))).isEqualTo("127.0.0.3");
        } finally {
            System.clearProperty("camel.management.host");
        }
    }

    /** PORT=0 listened on a port the kernel chose while every line named port 0. */
    @Test
    void portZeroListensOnAFreePortThatTheLinesName(@TempDir Path dir) throws Exception {
        try (Agents agents = Agents.start(1, 0, 2)) {
            Path file = Files.writeString(dir.resolve("proxy.properties"), "host = 127.0.0.1\nport = 0\nagents = "
                    + String.join(",", agents.urls()) + "\n");
            Main main = DemoMain.createMain();
            main.setPropertyPlaceholderLocations("file:" + file);
            main.addOverrideProperty("camel.management.enabled", "false");
            main.start();
            try {
                String uri = main.getCamelContext().getRoutes().get(0).getEndpoint().getEndpointUri();
                int port = Integer.parseInt(uri.replaceAll(".*127\\.0\\.0\\.1:(\\d+).*", "$1"));
                assertThat(port).as(uri).isPositive();
                assertThat(http.get("http://127.0.0.1:" + port + "/process/z1?user_id=7").statusCode()).isEqualTo(200);
            } finally {
                main.stop();
            }
        }
    }

    @Test
    void badValuesNameTheVariableAndTheValue() {
        assertThat(startupProblem(Map.of("port", "eighty")))
                .isEqualTo("Bad proxy configuration: PORT must be an integer, was 'eighty'");
        assertThat(startupProblem(Map.of("strategy", "random"))).startsWith("Bad proxy configuration: STRATEGY: strategy")
                .contains("'random'");
        assertThat(startupProblem(Map.of("consecutive.failures", "0"))).isEqualTo(
                "Bad proxy configuration: CONSECUTIVE_FAILURES: consecutiveFailures must be >= 1, was 0");
        // Was: a stack trace, then "Bad proxy configuration: hostname can't be null".
        assertThat(startupProblem(Map.of("host", "999.1.1.1"))).isEqualTo("Bad proxy configuration: HOST: "
                + "host must be an IP address or a name that resolves, was '999.1.1.1'");
        assertThat(startupProblem(Map.of("host", "nonexistent.invalid"))).isEqualTo("Bad proxy configuration: "
                + "HOST: host must be an IP address or a name that resolves, was 'nonexistent.invalid'");
        assertThat(startupProblem(Map.of("base.ejection.time.ms", "10s")))
                .isEqualTo("Bad proxy configuration: BASE_EJECTION_TIME_MS must be an integer, was '10s'");
    }

    @Test
    void aMalformedAgentUrlIsOneLineNamingAgentsAndTheUrl() {
        // Was: "Bad proxy configuration: port out of range:99999", naming neither AGENTS nor the URL.
        assertThat(startupProblem(Map.of("agents", "N1=http://127.0.0.1:99999"))).isEqualTo(
                "Bad proxy configuration: AGENTS: agent URL's port must be in 1..65535, was 'http://127.0.0.1:99999'");
        assertThat(startupProblem(Map.of("agents", "http://127.0.0.1:0"))).isEqualTo(
                "Bad proxy configuration: AGENTS: agent URL's port must be in 1..65535, was 'http://127.0.0.1:0'");
        for (String url : List.of("http://127.0.0.1:-1", "http://:8080", "notaurl")) {
            assertThat(startupProblem(Map.of("agents", "A1=" + url))).isEqualTo(
                    "Bad proxy configuration: AGENTS: agent URL must look like http://host:port, was '" + url + "'");
        }
        assertThat(startupProblem(Map.of("agents", "http://a b:8080"))).isEqualTo("Bad proxy configuration: AGENTS: "
                + "agent URL must look like http://host:port, was 'http://a b:8080' (illegal character in authority)");
        assertThat(startupProblem(Map.of("agents", "http://[::1"))).isEqualTo("Bad proxy configuration: AGENTS: "
                + "agent URL must look like http://host:port, was 'http://[::1' (expected closing bracket for IPv6 address)");
    }

    @Test
    void anAgentsFileTheDemoCannotUseIsOneLineNamingAgentsFileTheFileAndTheUrl(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("agents.txt"), "A1=http://127.0.0.1:1\nA2=https://127.0.0.1:2\n");
        // Was: "Bad proxy configuration: agent URL must look like http://host:port, was 'https://127.0.0.1:2'".
        assertThat(agentsFileProblem(file)).isEqualTo("Bad proxy configuration: AGENTS_FILE: file:" + file
                + ": the fleet was refused: agent A2: agent URL must look like http://host:port, was 'https://127.0.0.1:2'"
                + " (the demo proxy calls its agents over plain HTTP at their base URL: no https, no path)");
        Files.writeString(file, "A1=http://127.0.0.1:99999\n");
        assertThat(agentsFileProblem(file)).isEqualTo("Bad proxy configuration: AGENTS_FILE: file:" + file
                + ": the fleet was refused: agent A1: agent URL's port must be in 1..65535, was 'http://127.0.0.1:99999'");
        Path missing = dir.resolve("none.txt");
        // Was: "Bad proxy configuration: file:...: no such file".
        assertThat(agentsFileProblem(missing)).isEqualTo("Bad proxy configuration: AGENTS_FILE: file:" + missing
                + ": no such file");
    }

    @Test
    void badDnsSettingsAreOneLineNamingTheVariableAndTheValue() {
        Map<String, String> dns = Map.of("host", "127.0.0.1", "port", Integer.toString(FreePorts.next()),
                "agents.dns", "agents.test:42090");
        assertThat(failedStart(with(dns, "agents.dns.ipv6", "yes")))
                .isEqualTo("Bad proxy configuration: AGENTS_DNS_IPV6 must be true or false, was 'yes'");
        assertThat(failedStart(with(dns, "agents.dns.server", "127.0.0.1:70000"))).isEqualTo("Bad proxy configuration: "
                + "AGENTS_DNS_SERVER: agentsDnsServer must be host:port or host (port 53 by default), the port in 1..65535, "
                + "was '127.0.0.1:70000'");
    }

    private static Map<String, String> with(Map<String, String> properties, String key, String value) {
        Map<String, String> all = new java.util.LinkedHashMap<>(properties);
        all.put(key, value);
        return all;
    }

    @Test
    void anAgentsFileWithAnOddWeightOrWithCamelRoundRobinIsOneLine(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("agents.txt"), "A1=http://127.0.0.1:1;weight=2f\n");
        // Was: a start with A1 of weight 2.
        assertThat(agentsFileProblem(file)).isEqualTo("Bad proxy configuration: AGENTS_FILE: file:" + file
                + ": line 1: weight must be a number, was '2f' (decimal digits with an optional fraction, such as 2 or 0.5)");
        Files.writeString(file, "A1=http://127.0.0.1:1\n");
        assertThat(failedStart(Map.of("host", "127.0.0.1", "port", Integer.toString(FreePorts.next()),
                "agents.file", file.toString(), "strategy", "camel-rr")))
                .startsWith("Bad proxy configuration: AGENTS_FILE and AGENTS_DNS need one of [rr, ")
                .endsWith(", was STRATEGY=camel-rr");
    }

    /** The one line DemoMain prints when Main fails to start with {@code AGENTS_FILE=file}. */
    private static String agentsFileProblem(Path file) {
        return failedStart(Map.of("host", "127.0.0.1", "port", Integer.toString(FreePorts.next()),
                "agents.file", file.toString()));
    }

    /** The one line DemoMain prints when Main fails to start with these Camel properties. */
    private static String startupProblem(Map<String, String> properties) {
        Map<String, String> all = new java.util.LinkedHashMap<>(Map.of("agents", "http://127.0.0.1:1"));
        all.putAll(properties);
        return failedStart(all);
    }

    /** The one line DemoMain prints when Main, management off, fails to start with exactly these properties. */
    private static String failedStart(Map<String, String> properties) {
        Main main = DemoMain.createMain();
        main.addOverrideProperty("camel.management.enabled", "false");
        properties.forEach(main::addOverrideProperty);
        try {
            Throwable failure = catchThrowable(main::start);
            assertThat(failure).isNotNull();
            return DemoMain.startupProblem(failure);
        } finally {
            main.stop();
        }
    }

    @Test
    void aTakenManagementPortIsOneLineToo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            String port = Integer.toString(taken.getLocalPort());
            // Was: a BindException stack trace, then a proxy without metrics on another process's port.
            assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", port)))
                    .isEqualTo("management port " + port + " is in use: set MANAGEMENT_PORT");
        }
    }

    @Test
    void theManagementHostIsManagementHostElseHost() {
        assertThat(DemoMain.managementHost(Map.of("MANAGEMENT_HOST", "127.0.0.3", "HOST", "127.0.0.1")))
                .isEqualTo("127.0.0.3");
        assertThat(DemoMain.managementHost(Map.of("HOST", "127.0.0.1"))).isEqualTo("127.0.0.1");
        assertThat(DemoMain.managementHostProblem(Map.of("MANAGEMENT_HOST", "nonexistent.invalid"))).isEqualTo(
                "Bad proxy configuration: MANAGEMENT_HOST must be an IP address or a name that resolves, "
                        + "was 'nonexistent.invalid'");
        assertThat(DemoMain.managementHostProblem(Map.of("MANAGEMENT_HOST", "127.0.0.1"))).isNull();
        assertThat(DemoMain.managementHostProblem(Map.of("HOST", "999.1.1.1"))).as("names the variable set").isEqualTo(
                "Bad proxy configuration: HOST (the management host too while MANAGEMENT_HOST is unset) must be an IP"
                        + " address or a name that resolves, was '999.1.1.1'");
    }

    @Test
    void aBadDrainTimeoutIsOneLineNamingTheVariableAndTheValue() {
        for (String value : List.of("abc", " 5", "0", "-1", "", "1.5")) {
            assertThat(DemoMain.drainTimeoutProblem(Map.of("DRAIN_TIMEOUT_S", value))).isEqualTo(
                    "Bad proxy configuration: DRAIN_TIMEOUT_S must be an integer >= 1 (seconds), was '" + value + "'");
        }
        // Was "must be an integer >= 1", which 2147483648 is.
        assertThat(DemoMain.drainTimeoutProblem(Map.of("DRAIN_TIMEOUT_S", "2147483648"))).isEqualTo(
                "Bad proxy configuration: DRAIN_TIMEOUT_S must be at most 2147483647 (seconds), was '2147483648'");
        assertThat(DemoMain.drainTimeoutProblem(Map.of("DRAIN_TIMEOUT_S", "1"))).isNull();
        assertThat(DemoMain.drainTimeoutProblem(Map.of())).isNull();
    }

    @Test
    void aManagementPortEqualToThePortIsOneLineNamingBoth() {
        // A port this JVM holds for itself (below the ephemeral range, which any outgoing connection
        // may take, so that the check's probe finds it free when the configuration is good).
        String port = Integer.toString(FreePorts.next());
        // Was: not caught; Camel's management server took the port, then a 112-line BindException
        // stack trace and "Cannot listen: Address already in use: set PORT".
        assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", port, "PORT", port))).isEqualTo(
                "Bad proxy configuration: MANAGEMENT_PORT must differ from PORT, both were " + port);
        assertThat(DemoMain.managementPortProblem(Map.of("PORT", "9876"))).as("the management port's default").isEqualTo(
                "Bad proxy configuration: MANAGEMENT_PORT (default 9876) must differ from PORT, both were 9876");
        assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", "8000"))).as("the proxy's default").isEqualTo(
                "Bad proxy configuration: MANAGEMENT_PORT must differ from PORT (default 8000), both were 8000");
        // Apart on two interfaces, neither every interface, the two servers do not meet.
        assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", port, "PORT", port,
                "HOST", "127.0.0.2", "MANAGEMENT_HOST", "127.0.0.3"))).isNull();
        assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", port, "PORT", port,
                "HOST", "127.0.0.2"))).as("the management host is HOST's").isEqualTo(
                "Bad proxy configuration: MANAGEMENT_PORT must differ from PORT, both were " + port);
        // A bad or ephemeral PORT is not the management port's problem (PORT's own check names it).
        assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", port, "PORT", "0"))).isNull();
        assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", port, "PORT", "x"))).isNull();
    }

    @Test
    void aManagementPortEqualToThePortStopsTheStartWithOneLineAndExitStatus2() throws Exception {
        String port = Integer.toString(FreePorts.next());
        try (ChildJvm proxy = ChildJvm.start(DemoMain.class, Map.of("HOST", "127.0.0.1", "PORT", port,
                "MANAGEMENT_PORT", port, "AGENTS", "http://127.0.0.1:1"), List.of())) {
            assertThat(proxy.refusalLine(60)).endsWith(
                    "Bad proxy configuration: MANAGEMENT_PORT must differ from PORT, both were " + port);
        }
    }

    @Test
    void aBadManagementPortIsOneLineNamingTheVariableAndTheValue() {
        // Was: "abc" and " 9891" ignored (metrics on another port), 70000 a stack trace and exit 1.
        for (String value : List.of("abc", " 9891", "70000", "0", "-1", "")) {
            assertThat(DemoMain.managementPortProblem(Map.of("MANAGEMENT_PORT", value))).isEqualTo(
                    "Bad proxy configuration: MANAGEMENT_PORT must be an integer 1..65535, was '" + value + "'");
        }
    }

    /** The demo's Main, started on free ports over {@code agents} with {@code strategy}, management on loopback. */
    private record Demo(Main main, int port, int managementPort) {
        static Demo start(Agents agents, String strategy) throws Exception {
            int port = FreePorts.next();
            int managementPort = FreePorts.next();
            while (managementPort == port) {
                managementPort = FreePorts.next();
            }
            Main main = DemoMain.createMain();
            main.addOverrideProperty("port", Integer.toString(port));
            main.addOverrideProperty("agents", String.join(",", agents.urls()));
            main.addOverrideProperty("strategy", strategy);
            main.addOverrideProperty("camel.management.port", Integer.toString(managementPort));
            main.addOverrideProperty("camel.management.host", "127.0.0.1");
            main.start();
            return new Demo(main, port, managementPort);
        }
    }
}
