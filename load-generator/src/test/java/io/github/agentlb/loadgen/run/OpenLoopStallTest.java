package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.LatencySummary;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.test.AvailablePortFinder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Open loop against an agent that stalls once: 100 req/s (one request every 10 ms), 200 requests,
 * request r0050 (index 49, due at 490 ms) stalls the agent for 300 ms. Worked out by hand for a
 * single-queue agent answering in 1 ms otherwise: request j = 49..82 completes at 790 + (j - 49) ms,
 * so its latency from its intended time 10 j ms is 741 - 9 j ms (300, 291, ..., 3); the other 166
 * take 1 ms. Sorted, rank r of 200: p50 (r 100) = 1 ms, p95 (r 190, the 24th stalled value from
 * the smallest) = 3 + 9 x 23 = 210 ms, p99 (r 198) = 3 + 9 x 31 = 282 ms, max 300 ms. Measured
 * from actual send times with one closed-loop worker (coordinated omission), the same stall shows
 * as one slow request: p99 1 ms.
 */
@Timeout(60)
class OpenLoopStallTest {

    private static final long MS = 1_000_000;

    @Test
    void latenciesFromIntendedSendTimesMatchTheHandComputedPercentiles() {
        AtomicLong clock = new AtomicLong();
        OutcomeRecorder recorder = new OutcomeRecorder("t", 200, 1_000, null, true, (o, from) -> { });
        PacingCheck check = new PacingCheck();
        RequestSteps steps = new RequestSteps(recorder, n -> { }, clock::get, check);
        OpenLoopRoute.Schedule schedule = new OpenLoopRoute.Schedule(100, 0, 200);
        Workload workload = Workload.create(200, 20, 1, 0);
        CamelContext camel = new DefaultCamelContext();
        long agentFreeAt = 0;
        for (int i = 0; i < 200; i++) {
            long intended = schedule.intendedNanos(i);
            Exchange exchange = new DefaultExchange(camel);
            exchange.setProperty(RequestSteps.REQUEST, workload.requestAt(i));
            exchange.setProperty(RequestSteps.INTENDED_AT, intended);
            clock.set(intended); // sent on time
            steps.prepare(exchange);
            long service = i == 49 ? 300 * MS : MS;
            agentFreeAt = Math.max(agentFreeAt, intended) + service;
            clock.set(agentFreeAt);
            exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
            exchange.getMessage().setBody("{\"agent_id\":\"A1\",\"request_id\":\"" + workload.requestAt(i).requestId() + "\"}");
            steps.recordAnswer(exchange);
        }
        LatencySummary latency = RunStatistics.of(recorder.timedOutcomes().stream().map(TimedOutcome::outcome).toList(),
                List.of("A1"), 0).latency();
        // HdrHistogram (3 significant digits) reports the highest value equivalent to the true one: within 0.1%.
        assertThat(latency.p50Ms()).isEqualTo(1.0);
        assertThat(latency.p95Ms()).isCloseTo(210.0, offset(0.21));
        assertThat(latency.p99Ms()).isCloseTo(282.0, offset(0.29));
        assertThat(latency.maxMs()).isEqualTo(300.0);
        assertThat(check.result(Double.NaN, 2, Double.NaN).lateSends()).isZero();

        LatencySummary.Recorder closedLoop = new LatencySummary.Recorder();
        for (int i = 0; i < 200; i++) {
            closedLoop.record(i == 49 ? 300 * MS : MS);
        }
        assertThat(closedLoop.summary().p99Ms()).isEqualTo(1.0);
    }

    /** An agent that answers at once, except that request r0050 stalls it: nothing is answered for 300 ms. */
    private static final class StallingAgent extends RouteBuilder {
        final int port = AvailablePortFinder.getNextAvailable();
        final AtomicLong stallEndsAtNanos = new AtomicLong();
        final java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public void configure() {
            from("netty-http:http://127.0.0.1:" + port + "/process?matchOnUriPrefix=true")
                    .process(e -> {
                        String path = e.getMessage().getHeader(Exchange.HTTP_URI, String.class);
                        String requestId = path.substring(path.lastIndexOf('/') + 1);
                        if (requestId.equals("r0050") && armed.compareAndSet(true, false)) {
                            stallEndsAtNanos.set(System.nanoTime() + 300 * MS);
                        }
                        long stallEnd = stallEndsAtNanos.get();
                        long wait = stallEnd - System.nanoTime();
                        // Rounded up to whole ms, so no answer comes before the stall's end.
                        e.setProperty("waitMs", stallEnd != 0 && wait > 0 ? (wait + MS - 1) / MS : 0);
                        e.getMessage().setBody("{\"agent_id\":\"A1\",\"request_id\":\"" + requestId + "\"}");
                    })
                    // Waits without holding a thread: Netty's event loops serve the generator's side too.
                    .delay(exchangeProperty("waitMs")).asyncDelayed();
        }
    }

    @Test
    @Tag("e2e")
    void aRealStallIsRecordedInFullByTheOpenLoop() throws Exception {
        StallingAgent agent = new StallingAgent();
        try (CamelContext server = CamelContexts.started(agent)) {
            LoadTestConfig config = new LoadTestConfig(200, 20, 10, 42, 5_000, 500, 0, 0);
            LoadRunner runner = new LoadRunner(config, new Pacing(100, null, Pacing.DEFAULT_INTERVAL), null);
            List<String> target = List.of("http://127.0.0.1:" + agent.port);
            runner.run(target, "warm-up", List.of("A1"), n -> { }, false); // a cold JVM lags its schedule
            agent.armed.set(true);
            LoadRunner.Result result = runner.run(target, "stall", List.of("A1"), n -> { }, false);
            LatencySummary latency = result.statistics().latency();
            assertThat(result.statistics().successes()).isEqualTo(200);
            // The hand-computed values are lower bounds whatever the machine does: a request due during the
            // stall cannot be answered before it ends, so request 49 + m waits at least 300 - 10 m ms from its
            // intended time (one period less allowed, for a neighbour sent out of order). How far above them
            // the figures land depends on this shared machine's load, so no upper bound is asserted; the
            // exact values are checked with an injected clock above. A closed loop reports p99 ~ 1 ms here.
            assertThat(latency.maxMs()).isGreaterThanOrEqualTo(300.0);
            assertThat(latency.p99Ms()).isGreaterThanOrEqualTo(280.0 - 10);
            assertThat(latency.p95Ms()).isGreaterThanOrEqualTo(200.0 - 10);
            assertThat(result.pace().selfCheck().sends()).isEqualTo(200);
            assertThat(result.maxInFlight()).isGreaterThanOrEqualTo(20);
        }
    }
}
