package io.github.agentlb.loadgen.config;

/** Load configurations of tests: the defaults, or the defaults with another size. */
public final class TestConfigs {

    private TestConfigs() {
    }

    /** The defaults: 2000 requests, 200 users, 10 workers, seed 42, 5000 ms timeout, 100 warm-up requests. */
    public static LoadTestConfig defaults() {
        return of(LoadTestConfig.DEFAULT_REQUESTS, LoadTestConfig.DEFAULT_USERS);
    }

    /** {@code requests} over {@code users}, every other value the default. */
    public static LoadTestConfig of(int requests, int users) {
        return new LoadTestConfig(requests, users, LoadTestConfig.DEFAULT_CONCURRENCY, LoadTestConfig.DEFAULT_SEED,
                LoadTestConfig.DEFAULT_TIMEOUT_MS, LoadTestConfig.DEFAULT_PROGRESS_EVERY, LoadTestConfig.DEFAULT_WARMUP,
                0);
    }
}
