package io.github.agentlb.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time per operation, for a shared machine where wall time per operation also counts the
 * time the benchmark thread waited for a core. Reports {@code cpu.fraction}, the forked JVM's CPU
 * time over the iteration's wall time (all its threads: the benchmark thread, GC, JIT), and
 * {@code cpu.time.norm} = score x fraction, in the score's unit: for an average-time benchmark in
 * ns/op, the CPU ns spent per operation. Use with one benchmark thread and after warm-up:
 * {@code -prof io.github.agentlb.bench.CpuTimeProfiler}.
 */
public final class CpuTimeProfiler implements InternalProfiler {

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long cpuStart;
    private long wallStart;

    @Override
    public String getDescription() {
        return "CPU time of the forked JVM per operation (process CPU time / wall time x score)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        cpuStart = os.getProcessCpuTime();
        wallStart = System.nanoTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        double fraction = (double) (os.getProcessCpuTime() - cpuStart) / (System.nanoTime() - wallStart);
        double score = result.getPrimaryResult().getScore();
        return List.of(
                new ScalarResult("cpu.fraction", fraction, "cores", AggregationPolicy.AVG),
                new ScalarResult("cpu.time.norm", score * fraction, result.getScoreUnit(), AggregationPolicy.AVG));
    }
}
