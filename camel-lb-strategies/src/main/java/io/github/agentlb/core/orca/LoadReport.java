package io.github.agentlb.core.orca;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One ORCA load report of an agent, as the xDS {@code OrcaLoadReport} message
 * ({@code cncf/xds}, {@code xds/data/orca/v3/orca_load_report.proto}) carries it: the standard
 * utilizations and rates, and the application's named metrics. A field the agent did not report
 * reads as NaN; a report with no field at all is {@link #isEmpty() empty}.
 *
 * <p>Ranges, as the proto's validation rules state them (values outside are dropped by
 * {@link LoadReports}, so a report holds only values in range):
 * <ul>
 *   <li>{@link #cpuUtilization()}: fraction of the available CPU, >= 0; may exceed 1 when the
 *       agent runs over its soft limit.</li>
 *   <li>{@link #memUtilization()}: fraction of the available memory, in [0, 1].</li>
 *   <li>{@link #applicationUtilization()}: the application's own utilization, >= 0; may exceed 1
 *       as cpu utilization may.</li>
 *   <li>{@link #rpsFractional()}, {@link #eps()}: requests and errors per second, >= 0.</li>
 *   <li>{@link #namedMetrics()}: opaque finite values >= 0, e.g. vLLM's
 *       {@value #KV_CACHE_USAGE_PERC} (a fraction, despite its name) and
 *       {@value #NUM_REQUESTS_WAITING} (a count).</li>
 * </ul>
 *
 * <p>A record, so immutable and thread-safe; its constructor checks those ranges.
 *
 * @param cpuUtilization         CPU utilization, fraction >= 0 (may exceed 1); NaN when not reported
 * @param memUtilization         memory utilization, fraction in [0, 1]; NaN when not reported
 * @param applicationUtilization application utilization, fraction >= 0 (may exceed 1); NaN when not reported
 * @param rpsFractional          requests per second served, >= 0; NaN when not reported
 * @param eps                    errors per second, >= 0; NaN when not reported
 * @param namedMetrics           metric name (without the {@code named_metrics.} prefix) to value, in header
 *                               order; copied, unmodifiable
 */
public record LoadReport(double cpuUtilization, double memUtilization, double applicationUtilization,
                         double rpsFractional, double eps, Map<String, Double> namedMetrics) {

    /** vLLM's named metric: the fraction of the KV cache in use, 0..1 ({@code vllm:kv_cache_usage_perc}). */
    public static final String KV_CACHE_USAGE_PERC = "kv_cache_usage_perc";
    /** Triton's (TensorRT-LLM backend) named metric for the same fraction. */
    public static final String KV_CACHE_UTILIZATION = "kv_cache_utilization";
    /** vLLM's named metric: requests waiting in the engine's queue ({@code vllm:num_requests_waiting}). */
    public static final String NUM_REQUESTS_WAITING = "num_requests_waiting";
    /** vLLM's count of requests generating now ({@code vllm:num_requests_running}) as a named metric. */
    public static final String NUM_REQUESTS_RUNNING = "num_requests_running";

    /** The report with no field. */
    public static final LoadReport EMPTY = new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Map.of());

    /**
     * Checks the ranges above and copies the named metrics.
     *
     * @throws IllegalArgumentException naming the field and the value if one is out of its range (a value that
     *     {@link LoadReports} drops), or a named metric's name is empty
     * @throws NullPointerException if {@code namedMetrics}, a name or a value is null
     */
    public LoadReport {
        reported(LoadReports.CPU_UTILIZATION, cpuUtilization, Double.MAX_VALUE);
        reported(LoadReports.MEM_UTILIZATION, memUtilization, 1);
        reported(LoadReports.APPLICATION_UTILIZATION, applicationUtilization, Double.MAX_VALUE);
        reported(LoadReports.RPS_FRACTIONAL, rpsFractional, Double.MAX_VALUE);
        reported(LoadReports.EPS, eps, Double.MAX_VALUE);
        namedMetrics.forEach((name, value) -> {
            if (name.isEmpty()) {
                throw new IllegalArgumentException("a named metric's name must not be empty, was \"\"");
            }
            if (!(Double.isFinite(value) && value >= 0)) {
                throw new IllegalArgumentException(
                        LoadReports.NAMED_METRICS_PREFIX + name + " must be finite and >= 0, was " + value);
            }
        });
        namedMetrics = Collections.unmodifiableMap(new LinkedHashMap<>(namedMetrics));
    }

    /** A field is NaN (not reported) or finite, {@code >= 0} and {@code <= max}. */
    private static void reported(String field, double value, double max) {
        if (!Double.isNaN(value) && !(value >= 0 && value <= max)) {
            throw new IllegalArgumentException(field + " must be NaN (not reported) or "
                    + (max == 1 ? "in 0..1" : "finite and >= 0") + ", was " + value);
        }
    }

    /** @return the named metric {@code name}; NaN when not reported */
    public double namedMetric(String name) {
        Double value = namedMetrics.get(name);
        return value == null ? Double.NaN : value;
    }

    /**
     * @return the KV cache in use, fraction: vLLM's {@value #KV_CACHE_USAGE_PERC}, else Triton's
     *     {@value #KV_CACHE_UTILIZATION}; NaN when neither was reported
     */
    public double kvCacheUsage() {
        double vllm = namedMetric(KV_CACHE_USAGE_PERC);
        return Double.isNaN(vllm) ? namedMetric(KV_CACHE_UTILIZATION) : vllm;
    }

    /** @return the requests waiting in the agent's queue ({@value #NUM_REQUESTS_WAITING}); NaN when not reported */
    public double requestsWaiting() {
        return namedMetric(NUM_REQUESTS_WAITING);
    }

    /** @return the requests generating at the agent ({@value #NUM_REQUESTS_RUNNING}); NaN when not reported */
    public double requestsRunning() {
        return namedMetric(NUM_REQUESTS_RUNNING);
    }

    /**
     * The requests at the agent that a balancer's own count does not see: with
     * {@value #NUM_REQUESTS_RUNNING} reported, running plus waiting minus the balancer's own
     * requests that the report counts, at least 0 (the requests of other balancers, e.g. the other
     * replicas in front of the same agents); without it, the requests waiting (queued there by
     * other balancers), 0 when neither was reported.
     *
     * @param own the balancer's requests on the agent when the report was made, >= 0
     * @return a count, >= 0
     */
    public double requestsBeyond(int own) {
        double waiting = requestsWaiting();
        double running = requestsRunning();
        if (Double.isNaN(running)) {
            return Double.isNaN(waiting) ? 0 : waiting;
        }
        return Math.max(0, running + (Double.isNaN(waiting) ? 0 : waiting) - own);
    }

    /** @return whether no field was reported */
    public boolean isEmpty() {
        return Double.isNaN(cpuUtilization) && Double.isNaN(memUtilization) && Double.isNaN(applicationUtilization)
                && Double.isNaN(rpsFractional) && Double.isNaN(eps) && namedMetrics.isEmpty();
    }

    /** {@code LoadReport{cpu_utilization=0.3, named_metrics.kv_cache_usage_perc=0.4}}: reported fields only. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("LoadReport{");
        field(s, LoadReports.CPU_UTILIZATION, cpuUtilization);
        field(s, LoadReports.MEM_UTILIZATION, memUtilization);
        field(s, LoadReports.APPLICATION_UTILIZATION, applicationUtilization);
        field(s, LoadReports.RPS_FRACTIONAL, rpsFractional);
        field(s, LoadReports.EPS, eps);
        namedMetrics.forEach((name, value) -> field(s, LoadReports.NAMED_METRICS_PREFIX + name, value));
        return s.append('}').toString();
    }

    private static void field(StringBuilder s, String name, double value) {
        if (!Double.isNaN(value)) {
            if (s.charAt(s.length() - 1) != '{') {
                s.append(", ");
            }
            s.append(name).append('=').append(value);
        }
    }
}
