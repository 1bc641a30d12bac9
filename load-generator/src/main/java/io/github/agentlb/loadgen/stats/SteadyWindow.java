package io.github.agentlb.loadgen.stats;

import io.github.agentlb.core.Check;
import java.util.Collection;
import java.util.Optional;

/**
 * The part of a closed, count-bound run in which every worker had a request in flight: from the
 * first moment {@code concurrency} requests were in flight to the last send, between the workers'
 * start one by one and the drain of the last answers. The run's throughput is the successes that
 * came within it per second of it: in a closed loop each answer in it is followed at once by a send.
 *
 * <p>Why not the wall time: side by side with wrk at 100 workers and 6000 requests
 * ({@code compare-with-wrk.sh}), the start took 170-300 ms and the drain 130-150 ms, so successes
 * over wall time read 2-5% below the rate held in between, which wrk's fixed-duration count keeps.
 *
 * @param fromNanos the first time {@code concurrency} requests were in flight, ns
 * @param toNanos   the send time of the last request, ns; greater than {@code fromNanos}
 * @param successes successful answers that completed within {@code [fromNanos, toNanos]}
 */
public record SteadyWindow(long fromNanos, long toNanos, long successes) {

    public SteadyWindow {
        Check.atLeast("toNanos", toNanos, fromNanos + 1);
        Check.atLeast("successes", successes, 0);
    }

    /**
     * The steady window of a run's outcomes (any order) with {@code concurrency} (>= 1) workers; empty
     * when no more requests than workers, never that many in flight, or the last send not after
     * that. An answer and a send at the same instant count the answer first. O(n log n).
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
        return Optional.of(new SteadyWindow(from, to, outcomes.stream().filter(o -> o.outcome().isSuccess())
                .mapToLong(TimedOutcome::completedAtNanos).filter(done -> done >= from && done <= to).count()));
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
