package io.github.agentlb.loadgen.report;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.stats.Timeline;

/**
 * What the JSON reports of every kind of run write alike: a figure that may not have been observed
 * (NaN, written as JSON {@code null}), the settings of the measured load and a {@link Timeline} of
 * answers per agent per bucket. Stateless and thread-safe.
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
}
