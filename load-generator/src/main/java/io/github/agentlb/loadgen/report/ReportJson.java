package io.github.agentlb.loadgen.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.stats.PhasedReport;
import io.github.agentlb.loadgen.stats.RunStatistics;
import io.github.agentlb.loadgen.stats.Timeline;
import java.util.function.Function;

/**
 * What the JSON reports of every kind of run write alike: a figure that may not have been observed
 * (NaN, written as JSON {@code null}), the settings of the measured load, a {@link Timeline} of
 * answers per agent per bucket, the answers of each agent and the phases of a {@link PhasedReport}.
 * Stateless and thread-safe.
 */
public final class ReportJson {

    private ReportJson() {
    }

    /**
     * Puts {@code value} as {@code field} of {@code node}, or JSON {@code null} when it is NaN.
     *
     * @param node  the object written to
     * @param field the field's name
     * @param value the figure, in the field's unit, or NaN when not observed
     */
    public static void putNumber(ObjectNode node, String field, double value) {
        if (Double.isNaN(value)) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }

    /**
     * Puts the settings of the measured load into {@code root}: {@code users}, {@code concurrency},
     * {@code seed} and {@code warmup_requests}, in that order.
     */
    public static void putLoad(ObjectNode root, LoadTestConfig load) {
        root.put("users", load.users());
        root.put("concurrency", load.concurrency());
        root.put("seed", load.seed());
        root.put("warmup_requests", load.warmup());
    }

    /**
     * Puts {@code timeline} as the object {@code timeline} of {@code root}: {@code bucket_s}, the
     * buckets' width in s, and {@code answered}, agent id to its answers in each bucket.
     *
     * @return the {@code timeline} object, for the fields a run adds to it
     */
    public static ObjectNode putTimeline(ObjectNode root, Timeline timeline) {
        ObjectNode node = root.putObject("timeline");
        node.put("bucket_s", timeline.bucketSeconds());
        ObjectNode answered = node.putObject("answered");
        timeline.answeredPerAgent().forEach((agent, counts) -> putCounts(answered.putArray(agent), counts));
        return node;
    }

    /** Appends {@code counts} to {@code array}, in order. */
    public static void putCounts(ArrayNode array, long[] counts) {
        for (long c : counts) {
            array.add(c);
        }
    }

    /**
     * Puts the agents of {@code statistics} as the object {@code field} of {@code node}: each agent's
     * id to its count of successful requests, in the statistics' order.
     */
    public static void putAgentCounts(ObjectNode node, String field, RunStatistics statistics) {
        ObjectNode counts = node.putObject(field);
        statistics.agents().forEach((id, a) -> counts.put(id, a.count()));
    }

    /**
     * Puts the phases of {@code report} as the object {@code phases} of {@code root}: per phase, in
     * the report's order, an object named {@code label} of the phase that {@code fields} fills.
     *
     * @param <P> the run's phase
     */
    public static <P> void putPhases(ObjectNode root, PhasedReport<P> report, Function<? super P, String> label,
                                     PhaseFields<? super P> fields) {
        ObjectNode phases = root.putObject("phases");
        report.phases().forEach((phase, s) -> fields.put(phases.putObject(label.apply(phase)), phase, s));
    }

    /**
     * What a report writes of one phase into the phase's object.
     *
     * @param <P> the run's phase
     */
    @FunctionalInterface
    public interface PhaseFields<P> {
        /** Puts the fields of {@code phase}, whose requests' statistics are {@code statistics}, into {@code node}. */
        void put(ObjectNode node, P phase, RunStatistics statistics);
    }
}
