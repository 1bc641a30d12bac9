package io.github.agentlb.loadgen.run;

import static io.github.agentlb.loadgen.stats.SeriesClock.MS;
import static io.github.agentlb.loadgen.stats.SeriesClock.START;
import static io.github.agentlb.loadgen.stats.SeriesClock.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.stats.IntervalSeries;
import org.junit.jupiter.api.Test;

class LoadRunnerProgressTest {

    @Test
    void progressLineNamesTheIntervalAndItsFigures() {
        IntervalSeries series = new IntervalSeries(START, 10_000 * MS, Long.MAX_VALUE);
        series.record(START + 12_000 * MS, ok(100));
        series.sampleJvm(START + 15_000 * MS, 48L << 20, 85);
        assertThat(LoadRunner.progressLine("rr", series.intervals(START + 20_000 * MS).get(1)))
                .isEqualTo("[rr] 0:10-0:20: 1 requests, 0.1 req/s, p50 100.0 ms, p99 100.0 ms, 0 errors, 0 timeouts, "
                        + "heap after GC 48.0 MB, 85 threads");
    }

    @Test
    void anIntervalWithNothingAnsweredHasNoLatency() {
        IntervalSeries series = new IntervalSeries(START, 5_000 * MS, 20_000 * MS);
        assertThat(LoadRunner.progressLine("hung", series.intervals(START + 20_000 * MS).get(1)))
                .isEqualTo("[hung] 0:05-0:10: 0 requests, 0.0 req/s, p50 n/a, p99 n/a, 0 errors, 0 timeouts");
    }

    @Test
    void everyIntervalIsPrintedOnceTheLastWhenTheRunIsOver() {
        IntervalSeries series = new IntervalSeries(START, 10_000 * MS, 30_000 * MS);
        series.record(START + 25_000 * MS, ok(100));
        series.record(START + 30_050 * MS, ok(100));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        LoadRunner.IntervalPrinter printer = new LoadRunner.IntervalPrinter("rr", series,
                new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));

        printer.printOver(START + 21_000 * MS);
        printer.printOver(START + 31_000 * MS);
        printer.printOver(START + 40_000 * MS);
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8).lines())
                .extracting(l -> l.substring(0, l.indexOf(": "))).containsExactly("[rr] 0:00-0:10", "[rr] 0:10-0:20");

        printer.printRest(series.intervals(START + 30_000 * MS));
        printer.printRest(series.intervals(START + 30_000 * MS));
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8).lines()).hasSize(3).last()
                .isEqualTo("[rr] 0:20-0:30: 2 requests, 0.2 req/s, p50 100.0 ms, p99 100.0 ms, 0 errors, 0 timeouts");
    }
}
