package io.github.agentlb.loadgen.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.report.MarkdownReport;
import io.github.agentlb.loadgen.scenario.PlainScenario;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.apache.camel.test.AvailablePortFinder;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Tag("e2e")
@Timeout(60)
class LoadGeneratorMainTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return LoadGeneratorMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Runs with {@code args}, checks that it exits with status 2 and gives all stderr so far to check. */
    private AbstractStringAssert<?> assertRefused(String... args) {
        assertThat(run(args)).isEqualTo(2);
        return assertThat(stderr());
    }

    /** The report of a run of {@code scenarioAndVariant}, e.g. {@code uniform-rr}. */
    private JsonNode report(String scenarioAndVariant) throws Exception {
        return new ObjectMapper().readTree(dir.resolve("report-" + scenarioAndVariant + ".json").toFile());
    }

    @Test
    void mainJobRunsEachStrategyAgainstEmbeddedAgentsAndWritesTheComparison() throws Exception {
        int code = run("--requests", "300", "--users", "30", "--strategy", "rr,ch", "--scenario", "uniform",
                "--agent-delay-min-ms", "0", "--agent-delay-max-ms", "5", "--out", dir.toString());

        assertThat(code).as(stdout() + stderr()).isZero();
        JsonNode rr = report("uniform-rr");
        JsonNode ch = report("uniform-ch");
        for (JsonNode json : new JsonNode[] {rr, ch}) {
            assertThat(json.get("requests").asInt()).isEqualTo(300);
            assertThat(json.get("errors").asInt()).isZero();
            assertThat(json.get("timeouts").asInt()).isZero();
            assertThat(json.get("agents").fieldNames()).toIterable().containsExactly("A1", "A2", "A3");
        }
        assertThat(rr.get("spread").asInt()).isLessThanOrEqualTo(2);
        assertThat(ch.get("stickiness").asDouble()).isEqualTo(1.0);
        assertThat(ch.get("answered_users").asInt()).isEqualTo(30);
        for (String strategy : new String[] {"rr", "ch"}) {
            assertThat(ImageIO.read(dir.resolve("distribution_" + strategy + ".png").toFile())).isNotNull();
        }
        String md = Files.readString(dir.resolve("report.md"));
        assertThat(md).contains("| rr | 300 | 0 | 0 |").contains("| ch | 300 | 0 | 0 |");
        assertThat(stdout()).contains("[rr] 300/300 requests").contains("| strategy | requests |");
        assertThat(md).doesNotContain("## Scenario heterogeneous");
        assertThat(dir.resolve("pid_convergence.png")).doesNotExist();
    }

    @Test
    void theFailureScenarioKillsA1AtAThirdRestartsItAtTwoThirdsAndReportsEachPhase() throws Exception {
        int code = run("--scenario", "failure", "--strategy", "rr", "--failure-requests", "150", "--failure-users",
                "15", "--warmup", "0", "--concurrency", "3", "--agent-delay-min-ms", "10", "--agent-delay-max-ms",
                "30", "--out", dir.toString());

        assertThat(code).as(stdout() + stderr()).isZero();
        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-failure-rr.json").toFile());
        assertThat(json.get("requests").asInt()).isEqualTo(150);
        assertThat(json.get("client_errors").asInt()).isZero();
        int sum = 0;
        for (String phase : new String[] {"before", "down", "after"}) {
            sum += json.at("/phases/" + phase + "/requests").asInt();
        }
        assertThat(sum).isEqualTo(150);
        assertThat(json.at("/phases/before/requests_per_agent/A1").asInt()).isPositive();
        assertThat(json.at("/figures/kill_s").asDouble()).isLessThan(json.at("/figures/restart_s").asDouble());
        assertThat(json.at("/figures/health/kill_to_ejection_ms").isNumber()).as(json.toString()).isTrue();
        assertThat(ImageIO.read(dir.resolve("timeline_failure_rr.png").toFile())).isNotNull();
        String md = Files.readString(dir.resolve("report.md"));
        assertThat(md).contains("## Scenario failure").contains("| rr | down |")
                .contains("](timeline_failure_rr.png)").doesNotContain("## Scenario uniform");
        assertThat(stdout()).contains("rr (failure) down: ");
        // Its phase table and its ejection table apart on the console, as in report.md, not run together.
        assertThat(stdout().substring(stdout().lastIndexOf("Scenario failure"))).contains("|\n\n| ");
    }

    @Test
    void pidAndAvnRunInBothScenariosWithUtilizationConvergenceChartAndVirtualNodes() throws Exception {
        int code = run("--requests", "200", "--users", "20", "--strategy", "pid,avn", "--warmup", "40",
                "--scenario", "uniform,heterogeneous", "--agent-delay-min-ms", "0", "--agent-delay-max-ms", "5", "--out", dir.toString());

        assertThat(code).as(stdout() + stderr()).isZero();
        for (String name : new String[] {"uniform-pid", "uniform-avn", "heterogeneous-pid", "heterogeneous-avn"}) {
            JsonNode json = report(name);
            assertThat(json.get("requests").asInt()).isEqualTo(200);
            assertThat(json.get("errors").asInt() + json.get("timeouts").asInt()).isZero();
            assertThat(json.at("/load/warmup_requests").asInt()).isEqualTo(40);
            for (String agent : new String[] {"A1", "A2", "A3"}) {
                assertThat(json.at("/figures/utilization/" + agent).asDouble()).isNotNegative();
            }
            assertThat(json.at("/figures/utilization_max_over_mean").isNumber()).isTrue();
            assertThat(json.at("/figures/utilization_samples").asInt()).isGreaterThanOrEqualTo(2);
        }
        for (String name : new String[] {"uniform-avn", "heterogeneous-avn"}) {
            JsonNode json = report(name);
            JsonNode nodes = json.at("/figures/virtual_nodes");
            assertThat(nodes.fieldNames()).toIterable().containsExactly("A1", "A2", "A3");
            assertThat(nodes.get("A1").asInt() + nodes.get("A2").asInt() + nodes.get("A3").asInt()).isEqualTo(150);
            assertThat(json.at("/figures/imbalance_index").asDouble()).isNotNegative();
            assertThat(json.at("/figures/reallocations").asLong()).isNotNegative();
        }
        assertThat(report("uniform-pid").get("figures").has("virtual_nodes")).isFalse();
        assertThat(ImageIO.read(dir.resolve("distribution_heterogeneous_pid.png").toFile())).isNotNull();
        BufferedImage convergence = ImageIO.read(dir.resolve("pid_convergence.png").toFile());
        assertThat(convergence).isNotNull();
        assertThat(convergence.getWidth()).isEqualTo(1000);
        assertThat(ImageIO.read(dir.resolve("pid_convergence_heterogeneous.png").toFile())).isNotNull();
        // the heterogeneous run's chart has its own files: its trace starts at the proxy's start
        List<String> csv = Files.readAllLines(dir.resolve("pid_convergence_heterogeneous.csv"));
        assertThat(csv.get(0)).isEqualTo("t_s,weight_A1,weight_A2,weight_A3,utilization_A1,utilization_A2,utilization_A3");
        assertThat(csv).hasSizeGreaterThanOrEqualTo(3);

        String md = Files.readString(dir.resolve("report.md"));
        int uniform = md.indexOf("## Scenario uniform");
        int heterogeneous = md.indexOf("## Scenario heterogeneous");
        assertThat(uniform).isPositive().isLessThan(heterogeneous);
        for (String section : new String[] {md.substring(uniform, heterogeneous), md.substring(heterogeneous)}) {
            assertThat(section).contains("| A1 util | A2 util | A3 util | util max/mean |")
                    .contains("| pid | 200 | 0 | 0 |").contains("| avn | 200 | 0 | 0 |")
                    .contains("`avn` virtual nodes at the end: A1 ");
        }
        assertThat(md).contains("(pid_convergence.png)");
        assertThat(stdout()).contains("Scenario uniform:", "Scenario heterogeneous:", "[pid] warm-up: 40 requests");
    }

    @Test
    void theAgentsScenarioRunsAgainstAUrlAloneAndOnlyAlone() throws Exception {
        int port = AvailablePortFinder.getNextAvailable();
        String url = "http://127.0.0.1:" + port;

        assertThat(run("--url", url, "--strategy", "nginx", "--scenario", "agents", "--out", dir.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("Cannot reach the balancer at " + url);

        assertRefused("--url", url, "--strategy", "nginx", "--scenario", "agents,uniform")
                .contains("with --url, --scenario must be one scenario (uniform, heterogeneous or agents)");

        assertRefused("--url", url, "--strategy", "nginx", "--scenario", "fleet")
                .contains("with --url, --scenario must be one scenario");
    }

    @Test
    void runAgainstAnAbsentBalancerSaysWhySendsNothingAndWritesNoReport() throws Exception {
        int port = AvailablePortFinder.getNextAvailable();
        String url = "http://127.0.0.1:" + port;

        for (String pacing : new String[] {"--concurrency", "--rate"}) {
            int code = run("--url", url, "--strategy", "external", "--requests", "5", "--users", "5",
                    pacing, "10", "--timeout-ms", "1000", "--out", dir.toString());

            assertThat(code).isEqualTo(1);
            assertThat(stderr()).contains("Cannot reach the balancer at " + url + ": connection refused by 127.0.0.1:"
                    + port + " (is the balancer running there?). No load sent, no report written.");
            assertThat(stdout()).doesNotContain("kept pace");
            try (var files = Files.list(dir)) {
                assertThat(files).as("no report").isEmpty();
            }
        }
    }

    @Test
    void aShortUrlRunWithoutUsersScalesThemToTenRequestsEach() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().host("127.0.0.1").port(0).delayMs(0, 0).build())) {
            int code = run("--url", agent.baseUrl() + "/nope", "--strategy", "external", "--requests", "50",
                    "--warmup", "0", "--timeout-ms", "500", "--out", dir.toString());

            assertThat(code).as(stderr()).isEqualTo(1);
        }
        assertThat(stdout()).contains("--users not given: 5 users sharing 50 requests");
        assertThat(report("uniform-external").at("/load/users").asInt()).isEqualTo(5);
        assertThat(LoadOptions.defaultUsers(2000)).isEqualTo(200);
        assertThat(LoadOptions.defaultUsers(200)).isEqualTo(200);
        assertThat(LoadOptions.defaultUsers(1600)).as("the main job's hotkey scenario").isEqualTo(200);
        assertThat(LoadOptions.defaultUsers(5000)).isEqualTo(200);
        assertThat(LoadOptions.defaultUsers(199)).isEqualTo(19);
        assertThat(LoadOptions.defaultUsers(5)).isEqualTo(1);
    }

    @Test
    void theHotkeyScenarioRunsChPlainAndBoundedAndWritesItsTableJsonAndChart() throws Exception {
        int code = run("--scenario", "hotkey", "--strategy", "rr,ch", "--requests", "200", "--users", "20",
                "--warmup", "20", "--concurrency", "4", "--agent-delay-min-ms", "0", "--agent-delay-max-ms", "3",
                "--out", dir.toString());

        assertThat(code).as(stdout() + stderr()).isZero();
        JsonNode ch = new ObjectMapper().readTree(dir.resolve("report-hotkey-ch.json").toFile());
        JsonNode bounded = new ObjectMapper().readTree(dir.resolve("report-hotkey-ch-bounded.json").toFile());
        assertThat(ch.get("scenario").asText()).isEqualTo("hotkey");
        assertThat(ch.at("/figures/hot_share").asDouble()).isEqualTo(0.2);
        assertThat(ch.at("/figures/hot_user_requests").asInt()).isEqualTo(40);
        assertThat(ch.at("/figures/hot_user_agents").size()).isEqualTo(1);
        assertThat(ch.at("/figures/others_stickiness").asDouble()).isEqualTo(1.0);
        assertThat(ch.at("/figures/other_users").asInt()).isEqualTo(20);
        assertThat(ch.at("/figures/balance_factor").asDouble()).isZero();
        assertThat(bounded.at("/figures/balance_factor").asDouble()).isEqualTo(1.25);
        assertThat(bounded.get("strategy").asText()).isEqualTo("ch");
        assertThat(ImageIO.read(dir.resolve("hotkey.png").toFile()).getWidth()).isEqualTo(1000);
        assertThat(dir.resolve("report-hotkey-rr.json")).doesNotExist();
        assertThat(dir.resolve("report-uniform-ch.json")).doesNotExist();
        String md = Files.readString(dir.resolve("report.md"));
        assertThat(md).contains("## Scenario hotkey", "| ch | - | 200 | 0 | 0 |", "| ch-bounded | 1.25 | 200 | 0 | 0 |",
                "](hotkey.png)", "Targets: max/mean <= 1.10").doesNotContain("## Scenario uniform");
        assertThat(stdout()).contains("Scenario hotkey:", "of which hotkey scenario");
    }

    @Test
    void theHotkeyScenarioScalesItsOtherUsersDownAsUniformDoesAndSaysSo() throws Exception {
        int code = run("--scenario", "hotkey", "--strategy", "ch", "--requests", "150", "--warmup", "0",
                "--concurrency", "4", "--agent-delay-min-ms", "0", "--agent-delay-max-ms", "2", "--out", dir.toString());

        assertThat(code).as(stdout() + stderr()).isZero();
        assertThat(stdout()).contains("--users not given: 12 users besides the hot user, sharing the 120 requests not "
                + "from it (hotkey scenario)").doesNotContain("15 users sharing 150 requests");
        JsonNode ch = new ObjectMapper().readTree(dir.resolve("report-hotkey-ch.json").toFile());
        assertThat(ch.at("/figures/other_users").asInt()).isEqualTo(12);
        assertThat(ch.at("/figures/hot_user_requests").asInt()).isEqualTo(30);
    }

    @Test
    void runAgainstAServerAnswering404SaysSoRatherThanThatNothingAnswered() throws Exception {
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().host("127.0.0.1").port(0).delayMs(0, 0).build())) {
            // The agent under a path prefix: /nope/process/... is a 404 for every request.
            int code = run("--url", agent.baseUrl() + "/nope", "--strategy", "external", "--requests", "5",
                    "--users", "5", "--warmup", "0", "--out", dir.toString());

            assertThat(code).isEqualTo(1);
            assertThat(stdout()).contains("Every request failed: 5 x HTTP 404; is " + agent.baseUrl()
                    + "/nope a balancer of this project").doesNotContain("No request was answered");
            assertThat(report("uniform-external").get("error_statuses").get("404").asInt()).isEqualTo(5);
        }
    }

    @Test
    void nothingSucceededListsWhatCameInstead() {
        RunStatistics mixed = RunStatistics.of(List.of(
                RequestOutcome.error("r1", 1, 404, 1), RequestOutcome.error("r2", 2, 404, 1),
                RequestOutcome.error("r3", 3, 200, 1), RequestOutcome.error("r4", 4, 0, 1),
                RequestOutcome.timeout("r5", 5, 1)), List.of(), 1);
        RunStatistics silent = RunStatistics.of(List.of(RequestOutcome.error("r1", 1, 0, 1)), List.of(), 1);

        assertThat(PlainScenario.nothingSucceeded(mixed, "http://h:1")).startsWith("Every request failed: "
                + "1 x HTTP 200 without an agent's JSON, 2 x HTTP 404, 1 without an answer, 1 timed out; "
                + "is http://h:1 a balancer of this project");
        assertThat(PlainScenario.nothingSucceeded(silent, "http://h:1"))
                .isEqualTo("No request was answered: is a balancer running at http://h:1?");
        RunStatistics late = RunStatistics.of(List.of(RequestOutcome.timeout("r1", 1, 1), RequestOutcome.timeout("r2", 2, 1)),
                List.of(), 1);
        assertThat(PlainScenario.nothingSucceeded(late, "http://h:1"))
                .isEqualTo("No request was answered in time: 2 timed out; is the balancer at http://h:1 overloaded, "
                        + "or --timeout-ms too short?");
    }

    @Test
    void aUrlRunWritesIntoItsOwnDirectoryByDefaultSoTheMainJobsFilesStay() {
        assertThat(LoadGeneratorMain.outputDirectory(null, true)).isEqualTo(Path.of("results", "url"));
        assertThat(LoadGeneratorMain.outputDirectory(null, false)).isEqualTo(Path.of("results"));
        assertThat(LoadGeneratorMain.outputDirectory(dir, true)).isEqualTo(dir);
        assertThat(run("--help")).isZero();
        assertThat(stdout().replaceAll("\\s+", " ")).contains("results/url with --url");
    }

    @Test
    void invalidArgumentsExitTwoWithAMessageNamingTheValue() {
        assertRefused("--requests", "0").isEqualTo("--requests must be >= 1, was 0" + System.lineSeparator()
                + "Run with --help for the options." + System.lineSeparator());

        assertRefused("--users", "300", "--requests", "200")
                .contains("--users must be in 1..200 (--requests 200), was 300: lower --users or raise "
                        + "--requests");

        assertRefused("--users", "200", "--hot-share", "0.95")
                .contains("--users must be in 1..100 (--requests 2000 less the hot user's 1900), was 200");

        assertRefused("--hot-share", "1").contains("--hot-share must be >= 0 and < 1, was 1.0");

        assertRefused("--hot-share", "-0.5").contains("--hot-share must be >= 0 and < 1, was -0.5");

        assertRefused("--replicas", "0").contains("--replicas must be >= 1, was 0");

        assertRefused("--url", "http://127.0.0.1:1", "--strategy", "a b")
                .contains("--strategy must be 1-40 letters, digits, '_' or '-', was 'a b'");

        assertRefused("--replicas", "17").contains("--replicas must be <= 16 (each a proxy in this JVM), was 17");

        assertRefused("--hot-share", "0.5", "--scenario", "failure")
                .contains("--hot-share shapes the uniform, heterogeneous and hotkey scenarios' users, not failure");

        assertRefused("--rate", "0.0001", "--requests", "2", "--strategy", "rr")
                .contains("--rate 1.0E-4 sends --requests 2 and --warmup 100 in 283.3 h: at most 24 h; raise --rate or send fewer");

        assertRefused("--interval", "10s", "--strategy", "rr")
                .contains("--interval sets --duration's progress lines: give --duration too, or leave --interval out");

        // A --duration run sends for a time instead of --requests: given both, the count would only shape the users.
        assertRefused("--duration", "20s", "--requests", "300", "--strategy", "rr")
                .contains("--duration sends for a time instead of --requests: give one of them, was --requests 300 "
                        + "and --duration '20s'");

        assertRefused("--rate", "10", "--scenario", "tenants")
                .contains("--rate and --duration run the uniform or heterogeneous scenario, not hotkey, failure, hang "
                        + "or fleet, nor the others: --scenario named tenants");

        assertRefused("--url", "http://127.0.0.1:99999", "--strategy", "rr")
                .contains("--url must be http(s)://host[:port][/path] without query, was 'http://127.0.0.1:99999'");

        assertRefused("--replicas", "2", "--url", "http://127.0.0.1:1", "--strategy", "rr")
                .contains("--replicas 2 runs the uniform, heterogeneous and hotkey scenarios in-process");

        assertRefused("--replicas", "2", "--scenario", "failure")
                .contains("in-process in a closed loop: not with --url, --rate or --duration");

        assertRefused("--replicas", "2", "--scenario", "fleet")
                .contains("in-process in a closed loop: not with --url, --rate or --duration");

        assertRefused("--rate", "50", "--scenario", "fleet")
                .contains("--rate and --duration run the uniform or heterogeneous scenario, not hotkey, "
                        + "failure, hang or fleet");

        assertRefused("--scenario", "hotkey", "--strategy", "rr,pid")
                .contains("--scenario hotkey runs ch and avn (each plain and bounded); --strategy named "
                        + "neither: rr,pid");

        assertRefused("--scenario", "tenants", "--strategy", "ch").contains("--scenario tenants runs rr only "
                + "(its variants compare tenants through the queue); --strategy named: ch");
        assertRefused("--scenario", "slow", "--strategy", "ch,pid").contains("--scenario slow runs rr only "
                + "(its variants compare a slow agent with and without hedging); --strategy named: ch,pid");

        assertRefused("--url", "http://127.0.0.1:1", "--strategy", "rr", "--scenario", "hotkey")
                .contains("with --url, --scenario must be one scenario");

        assertRefused("--strategy", "nope").contains("unknown strategy 'nope'");

        assertRefused("--url", "http://127.0.0.1:1")
                .contains("with --url, --strategy must name the running balancer's strategy once: one of "
                        + "rr, ch, pid, avn, lr, or another label of 1-40 letters, digits, '_' or '-' "
                        + "(e.g. --strategy nginx); it was not given").doesNotContain("null");

        assertRefused("--url", "ftp://host", "--strategy", "rr").contains("--url must be http(s)://");

        assertRefused("--agent-delay-min-ms", "9", "--agent-delay-max-ms", "1")
                .contains("--agent-delay-min-ms must be <= --agent-delay-max-ms (1), was 9");

        assertRefused("--scenario", "mixed")
                .contains("--scenario must be uniform, heterogeneous, hotkey, failure, hang, agents, busy, fleet, "
                        + "gray or all, was 'mixed'");
        assertRefused("--scenario", "mixed").contains("was 'mixed' (or, by name only: brownout, slow, tenants)");

        assertRefused("--url", "http://127.0.0.1:1", "--strategy", "rr", "--scenario", "all")
                .contains("with --url, --scenario must be one scenario");

        assertRefused("--warmup", "-1").contains("--warmup must be >= 0, was -1");

        assertRefused("--timeout-ms", "0").contains("--timeout-ms must be >= 1, was 0").doesNotContain("timeoutMs");

        assertRefused("--concurrency", "0").contains("--concurrency must be in 1..1000, was 0");

        assertRefused("--scenario", "failure", "--failure-users", "0")
                .contains("failure scenario: --failure-users must be in 1..");
        // Without --failure-users, fewer requests than 100 are shared by fewer users (was: refused, naming
        // --failure-users, which was not given), in the default's proportion of 6 requests each.
        assertThat(LoadOptions.defaultFailureUsers(600)).isEqualTo(100);
        assertThat(LoadOptions.defaultFailureUsers(6000)).isEqualTo(100);
        assertThat(LoadOptions.defaultFailureUsers(90)).isEqualTo(15);
        assertThat(LoadOptions.defaultFailureUsers(3)).isEqualTo(1);
        // Library users keep the builder's field names.
        assertThatThrownBy(() -> new LoadTestConfig(2000, 200, 10, 42, 0, 500, 100, 0))
                .hasMessage("timeoutMs must be >= 1, was 0");

        assertThat(run("--requests", "many")).isEqualTo(2);
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void everyRefusalNamesTheOptionAsTypedAndItsValueWithoutJavaNames() throws Exception {
        assertRefused("--agent-delay-min-ms", "200", "--agent-delay-max-ms", "100")
                .contains("--agent-delay-min-ms must be <= --agent-delay-max-ms (100), was 200");
        assertRefused("--agent-delay-min-ms", "-1").contains("--agent-delay-min-ms must be in 0..3600000, was -1");
        assertRefused("--strategy", "nosuch").contains("--strategy: unknown strategy 'nosuch'; known: rr,");
        assertRefused("--strategy", "rr,RR").contains("--strategy lists a strategy twice: rr,RR");
        // Was picocli's "Invalid value for option '--requests': '99999999999' is not an int", without the bound.
        assertRefused("--requests", "99999999999").contains("--requests must be a whole number up to 2147483647, was '99999999999'");
        assertRefused("--users", "1e3").contains("--users must be a whole number up to 2147483647, was '1e3'");
        assertRefused("--seed", "x").contains("--seed must be a whole number up to 9223372036854775807, was 'x'");
        assertRefused("--rate", "fast").contains("--rate must be a number, was 'fast'");
        assertRefused("--requests", " 300").contains("--requests must be a whole number up to 2147483647, was ' 300'");
        assertRefused("--users", "\u0663\u0660").contains("--users must be a whole number up to 2147483647, was '\u0663\u0660'");
        assertRefused("--timeout-ms", "99999999999").contains("--timeout-ms must be <= 3600000, was 99999999999");
        Path file = Files.writeString(dir.resolve("afile"), "x");
        assertRefused("--out", file.toString(), "--strategy", "rr").contains("--out " + file
                + " is not a writable directory: a file, not a directory");
        assertThat(stderr()).doesNotContain("delayMinMs", "Exception", "Ms ");
    }

    @Test
    void theReplicasLimitIsOneListInTheHelpAndTheRefusal() {
        for (String s : List.of("busy", "agents", "failure")) {
            assertRefused("--replicas", "2", "--scenario", s).contains("--replicas 2 runs the uniform, heterogeneous "
                    + "and hotkey scenarios in-process in a closed loop: not with --url, --rate or --duration, nor "
                    + "--scenario " + s);
        }
        assertThat(run("--help")).isZero();
        assertThat(stdout().replaceAll("\\s+", " ")).contains("Only the uniform, heterogeneous and hotkey scenarios, "
                + "in-process in a closed loop: not with --url, --rate or --duration;");
    }

    @Test
    void nothingIsPrintedBeforeARefusalAndABadUrlIsRefusedBeforeTheRelaunch() {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(LoadGeneratorMain.execute(o, e, true, "--url", "localhost:8000", "--strategy", "rr")).isEqualTo(2);
        assertThat(stderr()).contains("--url must be http(s)://");
        for (String[] args : List.of(new String[] {"--strategy", "rr,rr"}, new String[] {"--interval", "5s"},
                new String[] {"--agent-delay-min-ms", "-1"}, new String[] {"--out", "/proc/nope"})) {
            List<String> all = new java.util.ArrayList<>(List.of(args));
            all.addAll(List.of("--requests", "30", "--scenario", "uniform"));
            assertRefused(all.toArray(String[]::new));
        }
        assertThat(stdout()).isEmpty();
    }

    /** --requests given to scenarios that send their own counts is said, as --warmup's is. */
    @Test
    void requestsGivenToAScenarioWithItsOwnCountIsSaid() {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(LoadGeneratorMain.execute(o, e, true, "--scenario", "slow,failure,uniform", "--strategy", "rr",
                "--requests", "300", "--out", dir.toString())).as(stderr()).isZero();
        assertThat(stdout()).contains("--requests 300 is not used by the slow scenario (it sends its own count)")
                .contains("--requests 300 is not used by the failure scenario (--failure-requests sets its count)")
                .doesNotContain("by the uniform scenario");
        out.reset();
        assertThat(LoadGeneratorMain.execute(o, e, true, "--scenario", "slow", "--strategy", "rr", "--out",
                dir.toString())).isZero();
        assertThat(stdout()).doesNotContain("--requests");
    }

    /**
     * Counts no run can hold, times no clock run will see through, slivers of intervals, and options of
     * a scenario that does not run: refused before anything starts, as every bad value; an option a
     * scenario or --url does not use is said, as --requests' is.
     */
    @Test
    void everyOptionIsCheckedAndBoundedBeforeAnythingStartsAndOneNotUsedIsSaid() {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        String[][] refused = {
            {"--requests", "2147483647"}, {"--warmup", "2147483647"},
            {"--scenario", "failure", "--failure-requests", "2147483647"},
            {"--scenario", "uniform", "--failure-requests", "-7"}, {"--scenario", "uniform", "--failure-users", "0"},
            {"--rate", "10", "--duration", "999999h"}, {"--duration", "2s", "--interval", "1ms"},
            {"--duration", "2s", "--interval", "0"}};
        String[] said = {
            "--requests must be <= 1000000, was 2147483647",
            "--warmup must be <= 1000000, was 2147483647",
            "--failure-requests must be <= 1000000, was 2147483647",
            "--failure-requests must be >= 3 (three phases), was -7",
            "failure scenario: --failure-users must be in 1..",
            "--duration must be at most 24h, was '999999h'",
            "--interval must be at least 1s, was '1ms'",
            "--interval must be at least 1s, was '0'"};
        assertThat(LoadGeneratorMain.execute(o, e, true, "--rate", "1e-300", "--strategy", "rr", "--out", dir.toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("in more than 1,000,000 h: at most 24 h");
        for (int i = 0; i < refused.length; i++) {
            err.reset();
            List<String> args = new java.util.ArrayList<>(List.of(refused[i]));
            args.addAll(List.of("--strategy", "rr", "--out", dir.toString()));
            assertThat(LoadGeneratorMain.execute(o, e, true, args.toArray(String[]::new))).as(String.join(" ", args))
                    .isEqualTo(2);
            assertThat(stderr()).as(String.join(" ", args)).contains(said[i]).doesNotContain("Exception");
        }
        assertThat(stdout()).isEmpty();
        assertThat(LoadGeneratorMain.execute(o, e, true, "--scenario", "busy,uniform", "--strategy", "rr", "--users", "9",
                "--requests", "90", "--out", dir.toString())).as(stderr()).isZero();
        assertThat(stdout()).contains("--users 9 is not used by the busy scenario (it has its own users)")
                .doesNotContain("by the uniform scenario");
        out.reset();
        assertThat(LoadGeneratorMain.execute(o, e, true, "--url", "http://127.0.0.1:1", "--strategy", "rr",
                "--agent-delay-min-ms", "3", "--out", dir.toString())).as(stderr()).isZero();
        assertThat(stdout()).contains("--agent-delay-min-ms is not used with --url (the agents are the balancer's)");
    }

    /** A run stopped by a signal says what it leaves: report.md is written as each scenario ends. */
    @Test
    void aRunStoppedMidwaySaysWhatItLeaves() {
        assertThat(LoadGeneratorMain.interruptedLine("uniform", 0, Path.of("results")))
                .isEqualTo("Interrupted in the uniform scenario: its runs are not written; no scenario had finished, "
                        + "nothing was written.");
        assertThat(LoadGeneratorMain.interruptedLine("agents", 5, Path.of("results")))
                .isEqualTo("Interrupted in the agents scenario: its runs are not written; report.md, the JSON and the "
                        + "charts of the 5 scenarios finished before are in results.");
    }

    /** An empty --out would write into the working directory: refused, as every other empty value. */
    @Test
    void anEmptyOutIsRefused() {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(LoadGeneratorMain.execute(o, e, true, "--out=", "--scenario", "uniform")).isEqualTo(2);
        assertThat(stderr()).startsWith("--out must name a directory, was ''");
        assertThat(stdout()).isEmpty();
    }

    @Test
    void noticesComeAfterTheChecksAndOnlyForWhatRuns() {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(LoadGeneratorMain.execute(o, e, true, "--replicas", "2", "--strategy", "rr", "--requests", "30",
                "--out", dir.toString())).as(stderr()).isZero();
        assertThat(stdout()).contains("--users not given: 3 users sharing 30 requests").doesNotContain("hotkey");
        assertThat(LoadGeneratorMain.execute(o, e, true, "--strategy", "rr", "--scenario", "uniform", "--requests",
                "15", "--out", dir.toString())).isZero();
        assertThat(stdout()).contains("--users not given: 1 user sharing 15 requests");
        // --requests below 2,000 leaves the default 200 users fewer than 10 requests each: said, as --help says it.
        assertThat(LoadGeneratorMain.execute(o, e, true, "--strategy", "ch", "--scenario", "uniform,hotkey", "--requests",
                "300", "--out", dir.toString())).isZero();
        assertThat(stdout()).contains("--users not given: 200 users sharing 300 requests, fewer than 10 each: "
                + "stickiness says little; give --users")
                .contains("--users not given: 200 users besides the hot user, sharing the 240 requests not from it "
                        + "(hotkey scenario), fewer than 10 each: stickiness says little; give --users");
        assertThat(LoadGeneratorMain.execute(o, e, true, "--scenario", "tenants", "--warmup", "10", "--out",
                dir.toString())).isZero();
        assertThat(stdout()).contains("--warmup 10 is not used by the tenants scenario");
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void anOutThatIsNotAWritableDirectoryExitsTwoBeforeAnyLoadWithOneLine() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");

        int code = run("--out", file.resolve("sub").toString(), "--strategy", "rr", "--scenario", "uniform",
                "--requests", "100", "--warmup", "0");

        assertThat(code).isEqualTo(2);
        assertThat(stderr()).startsWith("--out " + file.resolve("sub") + " is not a writable directory: ")
                .doesNotContain("\tat ").hasLineCount(1);
        assertThat(stdout()).doesNotContain("[rr]").doesNotContain("requests, ");
        assertThat(LoadGeneratorMain.unusableOutput(Path.of("/proc/x"))).startsWith("--out /proc/x is not a writable "
                + "directory: ");
        assertThat(LoadGeneratorMain.unusableOutput(dir.resolve("new/deeper"))).isNull();
        assertThat(dir.resolve("new/deeper")).isEmptyDirectory();
    }

    @Test
    void aWriteFailingAtTheEndPrintsOneLineAndExitsOneWithoutAStackTrace() throws Exception {
        Files.createDirectory(dir.resolve(MarkdownReport.FILE));
        int code;
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().host("127.0.0.1").port(0).delayMs(0, 0).build())) {
            code = run("--url", agent.baseUrl(), "--strategy", "external", "--requests", "5", "--users", "5",
                    "--warmup", "0", "--timeout-ms", "500", "--out", dir.toString());
        }

        assertThat(code).isEqualTo(1);
        assertThat(stderr()).startsWith("could not write the results into --out " + dir + ": ")
                .doesNotContain("\tat ").hasLineCount(1);
    }

    @Test
    void aUrlRunWithAHotUserSaysWhereTheHotUserWentAndHowStickyTheOthersStayed() throws Exception {
        int code;
        try (StubAgent agent = StubAgent.start(AgentConfig.custom().host("127.0.0.1").port(0).delayMs(0, 0).build())) {
            code = run("--url", agent.baseUrl(), "--strategy", "external", "--requests", "20", "--users", "5",
                    "--hot-share", "0.5", "--warmup", "0", "--timeout-ms", "2000", "--out", dir.toString());
        }

        assertThat(code).isZero();
        assertThat(stdout()).contains("external: max/mean 1.000, other users' stickiness 1.000, hot user 0 on 1 (A1 10) agent(s)");
    }

    @Test
    void helpListsTheOptionsAndExitsZero() {
        assertThat(run("--help")).isZero();
        assertThat(stdout()).contains("--url", "--strategy", "--requests", "--users", "--concurrency", "--seed",
                "--out", "--timeout-ms", "--scenario", "--warmup", "--hot-share", "--replicas", "Exit codes");
        String help = stdout().replaceAll("\\s+", " ");
        assertThat(help).contains("gray, fleet, brownout)", "less the errors a scenario allows",
                "or a tenth of their requests when they are fewer than 200", "--timeout-ms=MS Per-request timeout, ms, 1..3600000");
    }
}
