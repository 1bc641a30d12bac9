package io.github.agentlb.agent.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;

/**
 * ORCA load reports in an HTTP header, as vLLM sends them: when a request carries
 * {@value #REQUEST_HEADER} {@code TEXT} or {@code JSON} (any case), the answer carries
 * <pre>
 * endpoint-load-metrics: TEXT named_metrics.kv_cache_usage_perc=0.25, named_metrics.num_requests_waiting=2.0, named_metrics.num_requests_running=4.0
 * endpoint-load-metrics: JSON {"named_metrics":{"kv_cache_usage_perc":0.25,"num_requests_waiting":2.0,"num_requests_running":4.0}}
 * </pre>
 * Names and layout from vLLM's {@code vllm/entrypoints/openai/orca_metrics.py}
 * ({@code create_orca_header}: TEXT pairs joined by {@code ", "}, JSON {@code {"named_metrics": ...}},
 * values as doubles), which reports {@code kv_cache_usage_perc} (a fraction 0..1 despite its name)
 * and {@code num_requests_waiting}; {@code num_requests_running} is added under vLLM's Prometheus
 * name. ORCA's native HTTP format: gRFC A51 and {@code xds/data/orca/v3/orca_load_report.proto}.
 * Pure and thread-safe.
 */
public final class OrcaReport {

    /** The request header asking for a report. */
    public static final String REQUEST_HEADER = "endpoint-load-metrics-format";
    /** The answer header carrying it. */
    public static final String RESPONSE_HEADER = "endpoint-load-metrics";

    private static final ObjectMapper JSON = new ObjectMapper();

    private OrcaReport() {
    }

    /**
     * The {@value #RESPONSE_HEADER} value for {@code format}, or null when the format is absent or
     * neither TEXT nor JSON (vLLM then sends no header either).
     *
     * @param format the {@value #REQUEST_HEADER} value as received, may be null
     * @param load   the load to report
     */
    public static String header(String format, LlmModel.Load load) {
        if (format == null) {
            return null;
        }
        String f = format.trim().toUpperCase(Locale.ROOT);
        if (f.equals("TEXT")) {
            return "TEXT named_metrics.kv_cache_usage_perc=" + load.kvCacheUsagePerc()
                    + ", named_metrics.num_requests_waiting=" + (double) load.waiting()
                    + ", named_metrics.num_requests_running=" + (double) load.running();
        }
        if (f.equals("JSON")) {
            ObjectNode report = JSON.createObjectNode();
            report.putObject("named_metrics")
                    .put("kv_cache_usage_perc", load.kvCacheUsagePerc())
                    .put("num_requests_waiting", (double) load.waiting())
                    .put("num_requests_running", (double) load.running());
            return "JSON " + report;
        }
        return null;
    }
}
