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
 * <p>Immutable and thread-safe.
 */
public final class LoadReport {

    /** vLLM's named metric: the fraction of the KV cache in use, 0..1 ({@code vllm:kv_cache_usage_perc}). */
    public static final String KV_CACHE_USAGE_PERC = "kv_cache_usage_perc";
    /** Triton's (TensorRT-LLM backend) named metric for the same fraction. */
    public static final String KV_CACHE_UTILIZATION = "kv_cache_utilization";
    /** vLLM's named metric: requests waiting in the engine's queue ({@code vllm:num_requests_waiting}). */
    public static final String NUM_REQUESTS_WAITING = "num_requests_waiting";

    /** The report with no field. */
    public static final LoadReport EMPTY = new LoadReport(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Map.of());

    private final double cpuUtilization;
    private final double memUtilization;
    private final double applicationUtilization;
    private final double rpsFractional;
    private final double eps;
    private final Map<String, Double> namedMetrics;

    LoadReport(double cpuUtilization, double memUtilization, double applicationUtilization, double rpsFractional,
            double eps, Map<String, Double> namedMetrics) {
        this.cpuUtilization = cpuUtilization;
        this.memUtilization = memUtilization;
        this.applicationUtilization = applicationUtilization;
        this.rpsFractional = rpsFractional;
        this.eps = eps;
        this.namedMetrics = Collections.unmodifiableMap(new LinkedHashMap<>(namedMetrics));
    }

    /** @return CPU utilization, fraction >= 0 (may exceed 1); NaN when not reported */
    public double cpuUtilization() {
        return cpuUtilization;
    }

    /** @return memory utilization, fraction in [0, 1]; NaN when not reported */
    public double memUtilization() {
        return memUtilization;
    }

    /** @return application utilization, fraction >= 0 (may exceed 1); NaN when not reported */
    public double applicationUtilization() {
        return applicationUtilization;
    }

    /** @return requests per second served, >= 0; NaN when not reported */
    public double rpsFractional() {
        return rpsFractional;
    }

    /** @return errors per second, >= 0; NaN when not reported */
    public double eps() {
        return eps;
    }

    /** @return metric name (without the {@code named_metrics.} prefix) to value, in header order; unmodifiable */
    public Map<String, Double> namedMetrics() {
        return namedMetrics;
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

    /** @return whether no field was reported */
    public boolean isEmpty() {
        return Double.isNaN(cpuUtilization) && Double.isNaN(memUtilization) && Double.isNaN(applicationUtilization)
                && Double.isNaN(rpsFractional) && Double.isNaN(eps) && namedMetrics.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LoadReport r && Double.compare(cpuUtilization, r.cpuUtilization) == 0
                && Double.compare(memUtilization, r.memUtilization) == 0
                && Double.compare(applicationUtilization, r.applicationUtilization) == 0
                && Double.compare(rpsFractional, r.rpsFractional) == 0 && Double.compare(eps, r.eps) == 0
                && namedMetrics.equals(r.namedMetrics);
    }

    @Override
    public int hashCode() {
        int h = Double.hashCode(cpuUtilization);
        h = 31 * h + Double.hashCode(memUtilization);
        h = 31 * h + Double.hashCode(applicationUtilization);
        h = 31 * h + Double.hashCode(rpsFractional);
        h = 31 * h + Double.hashCode(eps);
        return 31 * h + namedMetrics.hashCode();
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
