package io.github.agentlb.loadgen.config;

import io.github.agentlb.core.Check;
import java.util.Optional;

/**
 * The shape of a load run, validated at construction (the first bad field and its value named in
 * an {@link IllegalArgumentException}). Immutable.
 *
 * @param requests      requests sent, >= 1
 * @param users         distinct {@code user_id}s besides the hot user, 1..(requests - the hot user's requests)
 * @param concurrency   requests in flight at most (closed-loop workers, each an exchange of the
 *                      asynchronous {@code WorkerLoopRoute}, not a thread), 1..{@value #MAX_CONCURRENCY}
 * @param seed          seed of the request order
 * @param timeoutMs     per-request timeout, ms, 1..{@value #MAX_TIMEOUT_MS}
 * @param progressEvery a progress line every this many completed requests, >= 1
 * @param warmup        requests sent before the measured ones and not counted, >= 0 ({@link #warmupConfig()})
 * @param hotShare      the share of all requests sent by the hot user {@value Workload#HOT_USER}, in [0, 1)
 */
public record LoadTestConfig(int requests, int users, int concurrency, long seed, long timeoutMs, int progressEvery,
                             int warmup, double hotShare) {

    /** The defaults: 2000 requests (the assignment's) over 200 users (10 each), 10 workers, a second of warm-up. */
    public static final int DEFAULT_REQUESTS = 2000, DEFAULT_USERS = 200, DEFAULT_CONCURRENCY = 10,
            DEFAULT_PROGRESS_EVERY = 500, DEFAULT_WARMUP = 100;
    /** The default seed and per-request timeout, ms. */
    public static final long DEFAULT_SEED = 42, DEFAULT_TIMEOUT_MS = 5_000;
    /** Upper bound on {@link #timeoutMs()}, ms: an hour. */
    public static final long MAX_TIMEOUT_MS = 3_600_000;
    /** Upper bound on {@link #concurrency()}: a worker is not a thread ({@code WorkerLoopRoute}). */
    public static final int MAX_CONCURRENCY = 1_000;
    /**
     * Upper bound on {@link #requests()} and {@link #warmup()}: a count-bound run keeps every outcome
     * (about 200 bytes each) for its figures; a longer run is a soak ({@code --duration}), which keeps none.
     */
    public static final int MAX_REQUESTS = 1_000_000;

    /** @throws IllegalArgumentException naming the first bad field and its value, {@code users} last */
    public LoadTestConfig {
        Check.atLeast("requests", requests, 1);
        Check.atMost("requests", requests, MAX_REQUESTS);
        Check.inRange("concurrency", concurrency, 1, MAX_CONCURRENCY);
        Check.atLeast("timeoutMs", timeoutMs, 1);
        if (timeoutMs > MAX_TIMEOUT_MS) {
            throw new IllegalArgumentException("timeoutMs must be <= " + MAX_TIMEOUT_MS + ", was " + timeoutMs);
        }
        Check.atLeast("progressEvery", progressEvery, 1);
        Check.atLeast("warmup", warmup, 0);
        Check.atMost("warmup", warmup, MAX_REQUESTS);
        Workload.checkUsers(requests, users, hotShare);
    }

    public Workload workload() {
        return Workload.create(requests, users, seed, hotShare);
    }

    /**
     * The warm-up's load, empty when {@link #warmup()} is 0: {@code warmup} requests over the first
     * {@code min(users, warmup)} users, the same concurrency, timeout and hot share (unless that
     * leaves the others none), seed {@code seed + 1}, one progress line, no warm-up of its own. The
     * same users, so that what a balancer learns (PID weights, virtual nodes, a hot key) is about the
     * traffic then measured.
     */
    public Optional<LoadTestConfig> warmupConfig() {
        if (warmup == 0) {
            return Optional.empty();
        }
        int others = warmup - Workload.hotRequests(warmup, hotShare);
        double share = others >= 1 ? hotShare : 0;
        return Optional.of(new LoadTestConfig(warmup, Math.min(users, share == 0 ? warmup : others), concurrency,
                seed + 1, timeoutMs, warmup, 0, share));
    }
}
