package io.github.agentlb.loadgen.stats;

import io.github.agentlb.loadgen.config.Pacing;
import java.util.List;

/**
 * How a run was paced and whether the generator kept pace; for a time-bound run also its figures
 * per interval and its verdict (else empty and {@code null}).
 */
public record PaceReport(Pacing pacing, PacingCheck.Result selfCheck, List<IntervalSeries.Interval> intervals,
                         SoakVerdict verdict) {

    public PaceReport {
        intervals = List.copyOf(intervals);
    }

    /** The self-check's lines, or, when nothing was answered, one line saying so ("kept pace" would mislead). */
    public List<String> selfCheckLines(long answered) {
        return answered == 0
                ? List.of("Self-check: no request was answered, so this run measured nothing of the system.")
                : selfCheck.lines();
    }

    /** A count-bound run's report: no intervals, no verdict. */
    public static PaceReport counted(Pacing pacing, PacingCheck.Result selfCheck) {
        return new PaceReport(pacing, selfCheck, List.of(), null);
    }
}
