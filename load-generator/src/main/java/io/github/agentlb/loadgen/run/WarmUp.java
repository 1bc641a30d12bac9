package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The warm-up every run mode sends before its measured load: a closed-loop run that is not
 * counted, and one line about it.
 */
public final class WarmUp {

    private WarmUp() {
    }

    /**
     * Sends {@code warmupConfig}'s load (closed loop, not counted), alternating across the balancer
     * replicas {@code targets}, and prints one line about it to {@code stdout}.
     */
    public static void send(PrintStream stdout, String strategy, List<String> targets, LoadTestConfig warmupConfig)
            throws Exception {
        LoadRunner.RunResult warm = new LoadRunner(warmupConfig, null).run(targets, strategy + " warm-up",
                started -> { });
        long failed = warm.outcomes().stream().filter(o -> o.kind() != RequestOutcome.Kind.SUCCESS).count();
        stdout.printf(Locale.ROOT, "[%s] warm-up: %d requests in %.1f s, %d failed (not counted)%n", strategy,
                warm.outcomes().size(), warm.durationNanos() / 1e9, failed);
    }
}
