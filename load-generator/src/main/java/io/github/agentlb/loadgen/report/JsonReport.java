package io.github.agentlb.loadgen.report;

import static io.github.agentlb.loadgen.scenario.Result.map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.scenario.Result;
import io.github.agentlb.loadgen.stats.IntervalSeries;
import io.github.agentlb.loadgen.stats.LatencySummary;
import io.github.agentlb.loadgen.stats.PaceReport;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.SoakVerdict;
import io.github.agentlb.loadgen.stats.Timeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Writes a {@link Result} as {@code report-<scenario>-<variant>.json} with Jackson, every scenario's in
 * the same top-level shape (load-generator/README.md, "The JSON reports"); an absent part is {@code null}
 * (or empty), never missing. Latencies in ms, times in s, shares as fractions 0..1; a figure not observed
 * (NaN) is {@code null}. Stateless and thread-safe.
 */
public final class JsonReport {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .registerModule(new SimpleModule().addSerializer(Double.class, new StdSerializer<>(Double.class) {
                @Override
                public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
                    if (Double.isFinite(value)) {
                        gen.writeNumber(value);
                    } else {
                        gen.writeNull();
                    }
                }
            }));

    private JsonReport() {
    }

    /** Writes {@code r} as {@link Result#fileName()} into {@code dir} (created if missing); returns the file. */
    public static Path write(Result r, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(r.fileName());
        JSON.writeValue(file.toFile(), document(r));
        return file;
    }

    private static Map<String, Object> document(Result r) {
        Map<String, Object> d = map("scenario", r.scenario(), "variant", r.variant(), "strategy", r.strategy(),
                "target", r.target(), "embedded", r.embedded());
        LoadTestConfig c = r.load();
        // The requests sent: a timed run's count is its duration's, not --requests.
        d.put("load", map("requests", r.totals().requests(), "users", c.users(), "concurrency", c.concurrency(), "seed", c.seed(),
                "timeout_ms", c.timeoutMs(), "warmup_requests", c.warmup(), "hot_share", c.hotShare(),
                "replicas", r.replicas()));
        RunStatistics s = r.totals();
        counts(d, s);
        d.put("client_errors", r.clientErrors());
        d.put("agents", perAgent(s, a -> {
            Map<String, Object> agent = map("count", a.count(), "share", a.share());
            agent.putAll(latency(a.latency()));
            return agent;
        }));
        d.putAll(map("mean_per_agent", s.meanPerAgent(), "spread", s.spread(), "variance", s.variance(),
                "cv", s.coefficientOfVariation(), "max_over_mean", s.maxOverMean(), "stickiness", s.stickiness(),
                "sticky_users", s.stickyUsers(), "answered_users", s.answeredUsers(), "latency", latency(s.latency()),
                "throughput_rps", s.throughputRps(), "duration_ms", s.durationMs(),
                "throughput_window_ms", s.steady() == null ? null : s.steady().lengthMs()));
        Map<String, Object> phases = new LinkedHashMap<>();
        r.phases().forEach(p -> {
            Map<String, Object> phase = map("opened_by", p.openedBy(), "from_s", p.fromS());
            counts(phase, p.stats());
            phase.putAll(map("client_errors", p.stats().clientErrors(), "duration_ms", p.stats().durationMs(),
                    "requests_per_agent", perAgent(p.stats(), a -> a.count()), "p50_ms", p.stats().latency().p50Ms(),
                    "p99_ms", p.stats().latency().p99Ms(), "max_ms", p.stats().latency().maxMs()));
            phase.putAll(p.figures());
            phases.put(p.name(), phase);
        });
        d.put("phases", phases);
        d.put("figures", r.figures());
        d.put("checks", r.checks().stream().map(k -> map("name", k.name(), "passed", k.passed(), "detail", k.detail()))
                .toList());
        d.put("passed", r.passed());
        d.put("failures", r.failures());
        d.put("timeline", timeline(r.timeline()));
        d.put("pace", pace(r.pace(), r.totals().successes()));
        return d;
    }

    private static void counts(Map<String, Object> node, RunStatistics s) {
        node.putAll(map("requests", s.requests(), "successes", s.successes(), "errors", s.errors(),
                "timeouts", s.timeouts(), "error_statuses", s.errorStatuses()));
    }

    private static Map<String, Object> perAgent(RunStatistics s, Function<RunStatistics.AgentSummary, Object> value) {
        Map<String, Object> map = new LinkedHashMap<>();
        s.agents().forEach((id, a) -> map.put(id, value.apply(a)));
        return map;
    }

    private static Map<String, Object> latency(LatencySummary l) {
        return map("mean_ms", l.meanMs(), "p50_ms", l.p50Ms(), "p95_ms", l.p95Ms(), "p99_ms", l.p99Ms(),
                "max_ms", l.maxMs());
    }

    private static Map<String, Object> timeline(Timeline t) {
        return t == null ? null : map("bucket_s", t.bucketSeconds(), "answered", t.answeredPerAgent(), "failed",
                t.failed());
    }

    /** {@code kept_pace} null when nothing was answered ({@code answered} 0), as {@link PaceReport#selfCheckLines}. */
    private static Map<String, Object> pace(PaceReport pace, long answered) {
        if (pace == null) {
            return null;
        }
        PacingCheck.Result c = pace.selfCheck();
        // A closed loop has no rate, and an untimed run no intervals: null, as every figure not observed.
        Map<String, Object> p = map("open_loop", pace.pacing().openLoop(),
                "rate_per_second", pace.pacing().openLoop() ? pace.pacing().ratePerSecond() : null,
                "duration_s", pace.pacing().timed() ? pace.pacing().duration().toMillis() / 1e3 : null,
                "interval_s", pace.pacing().timed() ? pace.pacing().interval().toMillis() / 1e3 : null,
                "self_check", map("kept_pace", answered == 0 ? null : c.keptPace(), "sends", c.sends(),
                        "late_sends", c.lateSends(), "p99_lag_ms", c.p99LagMs(), "max_lag_ms", c.maxLagMs(),
                        "worker_gap_share", c.gapShare(),
                        "p99_worker_gap_ms", c.p99GapMs(), "jvm_cpu_share", c.cpuShare(), "cores", c.cores(),
                        "jvm_cpu_ms_per_request", c.cpuMsPerRequest()));
        SoakVerdict v = pace.verdict();
        p.put("intervals", pace.intervals().stream().map(JsonReport::interval).toList());
        p.put("verdict", v == null ? null : map("pass", v.pass(), "failures", v.failures(), "window_s", v.windowSec(),
                "last_window_s", v.lastWindowSec(), "first_p99_ms", v.firstP99Ms(), "last_p99_ms", v.lastP99Ms(), "latency_drift", v.latencyDrift(),
                "first_heap_after_gc_mb", v.firstHeapMb(), "last_heap_after_gc_mb", v.lastHeapMb(),
                "heap_drift", v.heapDrift(), "line", v.line()));
        return p;
    }

    private static Map<String, Object> interval(IntervalSeries.Interval i) {
        return map("start_s", i.startSeconds(), "length_s", i.lengthSeconds(), "requests", i.requests(),
                "successes", i.successes(), "errors", i.errors(), "timeouts", i.timeouts(),
                "throughput_rps", i.throughputRps(), "p50_ms", i.p50Ms(), "p99_ms", i.p99Ms(),
                "heap_after_gc_mb", i.heapAfterGcMb(), "live_threads", i.liveThreads() < 0 ? null : i.liveThreads());
    }
}
