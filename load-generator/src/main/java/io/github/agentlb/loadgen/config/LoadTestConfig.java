package io.github.agentlb.loadgen.config;

import io.github.agentlb.core.Check;
import java.util.Optional;

/**
 * The shape of a load run: how many requests, over how many users, how many at a time, with which
 * seed and timeout. Validated at construction; build with {@link #custom()} (every setter validates at
 * once and throws {@link IllegalArgumentException} naming the field and the value) or take
 * {@link #ofDefaults()}. A record, so immutable and thread-safe.
 *
 * @param requests      requests sent, >= 1
 * @param users         distinct {@code user_id}s besides the hot user, 1..(requests - the hot user's requests)
 * @param concurrency   requests in flight at most (the closed loop's workers, each an exchange of the
 *                      asynchronous {@code WorkerLoopRoute}, not a thread), 1..{@value #MAX_CONCURRENCY}
 * @param seed          seed of the request order
 * @param timeoutMs     per-request timeout, ms, >= 1
 * @param progressEvery a progress line every this many completed requests, >= 1
 * @param warmup        requests sent before the measured ones and not counted, >= 0 (0 = none);
 *                      see {@link #warmupConfig()}
 * @param hotShare      the share of all requests sent by the hot user {@value Workload#HOT_USER},
 *                      fraction in [0, 1); 0 = no hot user (see {@link Workload#create(int, int, long, double)})
 */
public record LoadTestConfig(int requests, int users, int concurrency, long seed, long timeoutMs, int progressEvery,
                             int warmup, double hotShare) {

    /** The defaults: 2000 requests (the assignment's) over 200 users (10 each), 10 workers, a second of warm-up. */
    public static final int DEFAULT_REQUESTS = 2000, DEFAULT_USERS = 200, DEFAULT_CONCURRENCY = 10,
            DEFAULT_PROGRESS_EVERY = 500, DEFAULT_WARMUP = 100;
    public static final long DEFAULT_SEED = 42, DEFAULT_TIMEOUT_MS = 5_000;
    /**
     * Upper bound on {@link #concurrency()}. A worker is not a thread: the answer is recorded and
     * the next request sent on Netty's event loop ({@code WorkerLoopRoute}).
     */
    public static final int MAX_CONCURRENCY = 1_000;

    /**
     * Checks every value by the {@link Builder}'s setter of the same name, then {@code users} against
     * {@code requests} and {@code hotShare}.
     *
     * @throws IllegalArgumentException naming the first bad field and its value
     */
    public LoadTestConfig {
        custom().requests(requests).users(users).concurrency(concurrency).seed(seed).timeoutMs(timeoutMs)
                .progressEvery(progressEvery).warmup(warmup).hotShare(hotShare);
        Workload.checkUsers(requests, users, hotShare);
    }

    /** The defaults: 2000 requests, 200 users, 10 workers, seed 42, 5000 ms timeout, 100 warm-up requests, no hot user. */
    public static LoadTestConfig ofDefaults() {
        return custom().build();
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** A builder holding this configuration's values, to derive a variant. */
    public Builder toBuilder() {
        return custom().requests(requests).users(users).concurrency(concurrency).seed(seed).timeoutMs(timeoutMs)
                .progressEvery(progressEvery).warmup(warmup).hotShare(hotShare);
    }

    /** The seeded request order of this configuration. */
    public Workload workload() {
        return Workload.create(requests, users, seed, hotShare);
    }

    /**
     * The warm-up's load, empty when {@link #warmup()} is 0: {@code warmup} requests over the first
     * {@code min(users, warmup)} users of the measured run, the same concurrency and timeout, seed
     * {@code seed + 1} (another order), one progress line at the end, no warm-up of its own. The
     * same users, so that what a balancer learns in the warm-up (PID weights, adaptive virtual
     * nodes, a hot key's rate) is about the traffic then measured: with a hot user, it sends the
     * same share of the warm-up, unless that would leave no request to the others.
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

    /**
     * Builder of {@link LoadTestConfig}. Each setter validates its argument and throws
     * {@link IllegalArgumentException} naming field and value; {@link #build()} checks {@code users}
     * against {@code requests} and {@code hotShare}. Not thread-safe.
     */
    public static final class Builder {
        private int requests = DEFAULT_REQUESTS, users = DEFAULT_USERS, concurrency = DEFAULT_CONCURRENCY,
                progressEvery = DEFAULT_PROGRESS_EVERY, warmup = DEFAULT_WARMUP;
        private long seed = DEFAULT_SEED, timeoutMs = DEFAULT_TIMEOUT_MS;
        private double hotShare;

        private Builder() {
        }

        /** Requests to send, >= 1. */
        public Builder requests(int requests) {
            this.requests = Check.atLeast("requests", requests, 1);
            return this;
        }

        /**
         * Distinct users besides the hot user, 1..(requests - the hot user's requests); checked by {@link #build()},
         * as the bound depends on {@link #requests(int)} and {@link #hotShare(double)}.
         */
        public Builder users(int users) {
            this.users = users;
            return this;
        }

        /** Requests in flight at most, 1..{@value LoadTestConfig#MAX_CONCURRENCY}. */
        public Builder concurrency(int concurrency) {
            this.concurrency = Check.inRange("concurrency", concurrency, 1, MAX_CONCURRENCY);
            return this;
        }

        /** Seed of the request order. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Per-request timeout, ms, >= 1. */
        public Builder timeoutMs(long timeoutMs) {
            this.timeoutMs = Check.atLeast("timeoutMs", timeoutMs, 1);
            return this;
        }

        /** A progress line every this many completed requests, >= 1. */
        public Builder progressEvery(int progressEvery) {
            this.progressEvery = Check.atLeast("progressEvery", progressEvery, 1);
            return this;
        }

        /** Warm-up requests before the measured ones, >= 0. */
        public Builder warmup(int warmup) {
            this.warmup = Check.atLeast("warmup", warmup, 0);
            return this;
        }

        /**
         * The hot user's share of all requests, fraction in [0, 1); 0 (the default) = none; else
         * {@link IllegalArgumentException}.
         */
        public Builder hotShare(double hotShare) {
            Workload.hotRequests(requests, hotShare); // its check of the share's range
            this.hotShare = hotShare;
            return this;
        }

        /** @throws IllegalArgumentException if {@code users} is out of its range */
        public LoadTestConfig build() {
            return new LoadTestConfig(requests, users, concurrency, seed, timeoutMs, progressEvery, warmup, hotShare);
        }
    }
}
