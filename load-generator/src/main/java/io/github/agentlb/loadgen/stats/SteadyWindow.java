package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import java.util.Collection;
import java.util.Optional;

/**
 * The part of a closed, count-bound run in which every worker had a request in flight: from the
 * first moment {@code concurrency} requests were in flight to the send of the last one. Before it the workers
 * start one by one (in a fresh Camel context, each opens its connection); after it they stop one
 * by one as the last answers come in (the drain). The run's throughput is the successful answers
 * that came within this window per second of it: the rate of the system under {@code concurrency}
 * clients. In a closed loop each answer in the window is followed at once by a send, so the count
 * is the window's sends less its boundary, whatever the latency distribution.
 *
 * <p>Why not the wall time: measured side by side with wrk at 100 workers and 6000 requests
 * ({@code compare-with-wrk.sh}), the workers took 170-300 ms to all be sending and the drain took
 * 130-150 ms (the slowest of the last 100 answers): successes over wall time read 2-5% below the
 * rate the same run held in between, which wrk's fixed-duration count (no drain) does not lose.
 *
 * @param fromNanos the first time {@code concurrency} requests were in flight, ns
 * @param toNanos   the send time of the last request, ns; greater than {@code fromNanos}
 * @param successes successful answers that completed within {@code [fromNanos, toNanos]}
 */
public record SteadyWindow(long fromNanos, long toNanos, long successes) {

    public SteadyWindow {
        if (toNanos <= fromNanos) {
            throw new IllegalArgumentException("toNanos must be > fromNanos, was " + toNanos + " <= " + fromNanos);
        }
        Check.atLeast("successes", successes, 0);
    }

    /**
     * The steady window of a run's outcomes, or empty when there is none: no more requests than
     * workers (every request was sent at the start), fewer than {@code concurrency} ever in flight
     * at once, or the last send not after that moment. An answer and a send at the same instant
     * count the answer first. O(n log n) in the outcomes.
     *
     * @param outcomes    every request of the run with its send time, in any order
     * @param concurrency the run's workers, >= 1
     * @throws IllegalArgumentException if {@code concurrency < 1}
     */
    public static Optional<SteadyWindow> of(Collection<TimedOutcome> outcomes, int concurrency) {
        Check.atLeast("concurrency", concurrency, 1);
        if (outcomes.size() <= concurrency) {
            return Optional.empty();
        }
        long from = firstTimeInFlight(outcomes, concurrency);
        long to = outcomes.stream().mapToLong(TimedOutcome::sentAtNanos).max().orElseThrow();
        if (from == Long.MAX_VALUE || to <= from) {
            return Optional.empty();
        }
        long successes = outcomes.stream()
                .filter(o -> o.outcome().kind() == RequestOutcome.Kind.SUCCESS)
                .mapToLong(TimedOutcome::completedAtNanos)
                .filter(done -> done >= from && done <= to)
                .count();
        return Optional.of(new SteadyWindow(from, to, successes));
    }

    /** The first time {@code level} requests were in flight at once, or {@link Long#MAX_VALUE} if never. */
    private static long firstTimeInFlight(Collection<TimedOutcome> outcomes, int level) {
        long[] sends = outcomes.stream().mapToLong(TimedOutcome::sentAtNanos).sorted().toArray();
        long[] answers = outcomes.stream().mapToLong(TimedOutcome::completedAtNanos).sorted().toArray();
        int inFlight = 0, answered = 0;
        for (long send : sends) {
            while (answered < answers.length && answers[answered] <= send) {
                answered++;
                inFlight--;
            }
            if (++inFlight >= level) {
                return send;
            }
        }
        return Long.MAX_VALUE;
    }

    /** Length of the window, ms. */
    public double lengthMs() {
        return (toNanos - fromNanos) / 1e6;
    }

    /** Successful answers per second of the window. */
    public double throughputRps() {
        return successes * 1e9 / (toNanos - fromNanos);
    }
}
