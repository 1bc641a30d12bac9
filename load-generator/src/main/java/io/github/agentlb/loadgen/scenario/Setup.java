package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import java.io.PrintStream;
import java.util.List;

/**
 * What the scenarios run with, from the command line. Immutable; runs at the same time share it
 * (and its {@link #stdout()}, each printing whole lines).
 *
 * @param template   the agents' common settings (delays); ids, ports and seeds are the scenarios'
 * @param strategies the strategies asked for, in order
 * @param load       the main job's load: requests, users, concurrency, seed (also of the agents' delays),
 *                   timeout, warm-up, hot share
 * @param hotLoad    the hotkey scenario's load (its own hot share and users), or {@code null}
 * @param faultLoad  the failure and hang scenarios' load ({@code --failure-requests}), or {@code null}
 * @param pacing     the uniform and heterogeneous runs' pacing
 * @param replicas   proxies per run of the uniform, heterogeneous and hotkey scenarios
 * @param stdout     where progress goes
 */
public record Setup(AgentConfig template, List<String> strategies, LoadTestConfig load, LoadTestConfig hotLoad,
                    LoadTestConfig faultLoad, Pacing pacing, int replicas, PrintStream stdout) {

    public Setup {
        strategies = List.copyOf(strategies);
    }

    /** The seed of the request order and of the agents' delays. */
    public long seed() {
        return load.seed();
    }

    /** {@link #load()} with a scenario's own {@code requests} over {@code users}, no hot user. */
    public LoadTestConfig load(int requests, int users) {
        return new LoadTestConfig(requests, users, load.concurrency(), load.seed(), load.timeoutMs(),
                LoadTestConfig.DEFAULT_PROGRESS_EVERY, load.warmup(), 0);
    }

    /** Prints {@code result}'s lines as one block; returns it. */
    public Result print(Result result) {
        synchronized (stdout) {
            result.lines().forEach(stdout::println);
        }
        return result;
    }
}
