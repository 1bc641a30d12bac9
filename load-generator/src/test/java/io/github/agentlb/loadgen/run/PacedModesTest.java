package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.loadgen.cli.LoadGeneratorMain;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.test.AvailablePortFinder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Tag("e2e")
@Timeout(60)
class PacedModesTest {

    private static final long MS = 1_000_000;

    @TempDir
    Path dir;

    /** An agent that moves the injected clock 100 ms forward for each request it answers. */
    private static final class ClockAgent extends RouteBuilder {
        final int port = AvailablePortFinder.getNextAvailable();
        final AtomicLong clock;

        ClockAgent(AtomicLong clock) {
            this.clock = clock;
        }

        @Override
        public void configure() {
            from("netty-http:http://127.0.0.1:" + port + "/process?matchOnUriPrefix=true")
                    .process(e -> {
                        String path = e.getMessage().getHeader(Exchange.HTTP_URI, String.class);
                        clock.addAndGet(100 * MS);
                        e.getMessage().setBody("{\"agent_id\":\"A1\",\"request_id\":\""
                                + path.substring(path.lastIndexOf('/') + 1) + "\"}");
                    });
        }
    }

    /** A worker loop over a {@link ClockAgent} at {@code agentUrl}, completing {@code done} with the injected clock's time at its end. */
    @FunctionalInterface
    private interface Loop {
        WorkerLoopRoute route(LoadTestConfig config, String agentUrl, RequestSteps steps, CompletableFuture<Long> done);
    }

    /** A finished run: when it said it ended, the clock then, the outcomes, the answers the loop released. */
    private record Run(long endedAt, long clockAtEnd, List<TimedOutcome> outcomes, long releasedAnswers) {
    }

    /** Runs {@code loop} with 4 requests of 2 users planned, to its end. */
    private static Run run(LoadTestConfig config, AtomicLong clock, PacingCheck check, Loop loop) throws Exception {
        ClockAgent agent = new ClockAgent(clock);
        CamelContext server = CamelContexts.started(agent);
        CamelContext generator = new DefaultCamelContext();
        try {
            OutcomeRecorder recorder = new OutcomeRecorder("t", 4, 1_000, null, true, (o, from) -> { });
            CompletableFuture<Long> done = new CompletableFuture<>();
            WorkerLoopRoute route = loop.route(config, "http://127.0.0.1:" + agent.port,
                    new RequestSteps(recorder, n -> { }, clock::get, check), done);
            generator.addRoutes(route);
            generator.start();
            long endedAt = done.get(30, TimeUnit.SECONDS);
            return new Run(endedAt, clock.get(), recorder.timedOutcomes(), route.releasedAnswers());
        } finally {
            generator.stop();
            server.stop();
        }
    }

    private static LoadTestConfig fourRequests(int concurrency) {
        return new LoadTestConfig(4, 2, concurrency, 42, 5_000, 500, 100, 0);
    }

    private List<TimedOutcome> runWorkerLoop(int concurrency, AtomicLong clock, PacingCheck check) throws Exception {
        Run run = run(fourRequests(concurrency), clock, check, (config, agentUrl, steps, done) ->
                new WorkerLoopRoute(config.workload(), List.of(agentUrl), config, steps, clock::get, 1_000 * MS,
                        Long.MAX_VALUE, done));
        // The run's wall time on the injected clock: until the last answer, at or after the deadline.
        assertThat(run.endedAt()).isEqualTo(run.clockAtEnd()).isGreaterThanOrEqualTo(1_000 * MS);
        return run.outcomes();
    }

    @Test
    void aCountBoundClosedLoopSendsTheWorkloadOnceInItsOrderThenStops() throws Exception {
        AtomicLong clock = new AtomicLong();
        LoadTestConfig config = fourRequests(1);
        Run run = run(config, clock, new PacingCheck(), (c, agentUrl, steps, done) ->
                new WorkerLoopRoute(c.workload(), List.of(agentUrl), c, steps, clock::get, 0, c.requests(),
                        done));
        // One worker, 100 ms per answer on the injected clock: the four requests at 0, 100, 200, 300 ms, no more.
        assertThat(run.endedAt()).isEqualTo(400 * MS);
        List<TimedOutcome> outcomes = run.outcomes();
        assertThat(outcomes).extracting(TimedOutcome::sentAtNanos).containsExactly(0L, 100 * MS, 200 * MS, 300 * MS);
        assertThat(outcomes).extracting(o -> o.outcome().requestId())
                .containsExactlyElementsOf(config.workload().requests().stream()
                        .map(Workload.PlannedRequest::requestId).toList());
        assertThat(outcomes).extracting(o -> o.outcome().userId())
                .containsExactlyElementsOf(config.workload().requests().stream()
                        .map(Workload.PlannedRequest::userId).toList());
        assertThat(run.clockAtEnd()).isEqualTo(400 * MS);
        // Each of the four answers released by the loop before its next turn (the last one before the
        // turn that stops): none is held for the whole run (a soak used to keep every answer until its end).
        assertThat(run.releasedAnswers()).isEqualTo(4);
    }

    @Test
    void aTimeBoundClosedLoopStopsSendingAtTheDeadline() throws Exception {
        AtomicLong clock = new AtomicLong();
        PacingCheck check = new PacingCheck();
        List<TimedOutcome> outcomes = runWorkerLoop(1, clock, check);
        // One worker, 100 ms per answer on the injected clock, deadline 1000 ms: sends at 0, 100, ..., 900.
        assertThat(outcomes).extracting(TimedOutcome::sentAtNanos)
                .containsExactly(0L, 100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS, 600 * MS, 700 * MS, 800 * MS,
                        900 * MS);
        assertThat(outcomes).allSatisfy(o -> assertThat(o.outcome().isSuccess()).isTrue());
        assertThat(outcomes).extracting(o -> o.outcome().requestId())
                .containsExactly("r0001", "r0002", "r0003", "r0004", "r0005", "r0006", "r0007", "r0008", "r0009", "r0010");
        // The clock stood still between an answer and the next send: no gap, the worker kept pace.
        PacingCheck.Result result = check.result(Double.NaN, 2, Double.NaN);
        assertThat(result.gaps()).isEqualTo(9);
        assertThat(result.gapShare()).isZero();
    }

    @Test
    void noWorkerSendsAfterTheDeadlineAndEverySentRequestIsRecorded() throws Exception {
        AtomicLong clock = new AtomicLong();
        List<TimedOutcome> outcomes = runWorkerLoop(3, clock, new PacingCheck());
        assertThat(outcomes).allSatisfy(o -> assertThat(o.sentAtNanos()).isLessThan(1_000 * MS));
        // Each answer moves the clock 100 ms: at least 10 requests, at most 10 + the two other workers' last sends.
        assertThat(outcomes.size()).isBetween(10, 12);
        assertThat(clock.get()).isEqualTo(outcomes.size() * 100 * MS);
    }

    @Test
    void theCommandLineRunsAnOpenLoopForADurationWithASoakReport() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = LoadGeneratorMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                "--strategy", "rr", "--rate", "50", "--duration", "2s", "--interval", "1s", "--warmup", "20",
                "--agent-delay-min-ms", "0", "--agent-delay-max-ms", "2", "--out", dir.toString());
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(stdout).isZero();
        JsonNode json = new ObjectMapper().readTree(dir.resolve("report-uniform-rr.json").toFile());
        assertThat(json.get("requests").asInt()).isEqualTo(100);
        assertThat(json.at("/pace/open_loop").asBoolean()).isTrue();
        assertThat(json.at("/pace/self_check/sends").asInt()).isEqualTo(100);
        long inIntervals = 0;
        for (JsonNode interval : json.at("/pace/intervals")) {
            inIntervals += interval.get("requests").asLong();
            assertThat(interval.has("heap_after_gc_mb")).isTrue();
        }
        assertThat(inIntervals).isEqualTo(100);
        assertThat(json.at("/pace/verdict/failures").asInt()).isZero();
        String report = Files.readString(dir.resolve("report.md"));
        assertThat(report).contains("## Pacing and self-check", "## Soak: rr, uniform scenario", "Verdict: ",
                "![soak rr](soak_rr.png)");
        assertThat(dir.resolve("soak_rr.png")).isNotEmptyFile();
        assertThat(stdout).contains("open loop at 50 req/s (constant schedule), for 2s", "Self-check:", "Verdict: ");
    }

    @Test
    void pacedRunsRefuseTheFaultScenarios() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LoadGeneratorMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--rate", "10", "--scenario", "failure");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--rate and --duration run the uniform or heterogeneous");
        err.reset();
        code = LoadGeneratorMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--rate", "0");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--rate must be in (0, 100000], was 0.0");
    }
}
