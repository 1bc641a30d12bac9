package io.github.agentlb.core.orca;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Parses the ORCA {@code endpoint-load-metrics} answer header into a {@link LoadReport}. The
 * value starts with its form, a space, then the report (the xDS ORCA specification's in-line
 * per-request format; Envoy's {@code source/common/orca/orca_parser.cc}):
 * <ul>
 *   <li>{@code TEXT cpu_utilization=0.3, mem_utilization=0.8, rps_fractional=10.0, eps=1,
 *       named_metrics.custom_metric_util=0.4}: comma-separated {@code name=value} pairs (Envoy
 *       also takes {@code name:value}), map fields flattened as {@code named_metrics.<name>}.
 *       vLLM answers {@code TEXT named_metrics.kv_cache_usage_perc=0.4,
 *       named_metrics.num_requests_waiting=2.0} (its {@code orca_metrics.py}); Triton's client
 *       documentation shows the example above.</li>
 *   <li>{@code JSON {"cpu_utilization": 0.3, "named_metrics": {"kv_cache_usage_perc": 0.4}}}:
 *       the proto3 JSON form of {@code OrcaLoadReport}, read with Jackson's streaming parser;
 *       field names also in lowerCamelCase, numbers also as strings, as proto3 JSON allows.</li>
 *   <li>{@code BIN <base64 protobuf>}: not supported; the header is ignored.</li>
 * </ul>
 * The form's name is matched without regard to case.
 *
 * <h2>What is ignored</h2>
 * Parsing never throws. An entry is ignored, and the rest kept, when its name is unknown
 * ({@code rps}, {@code utilization.*} and {@code request_cost.*} are not read), its value is not
 * a decimal number ({@code abc}, {@code "0.7"} in TEXT, {@code 0x1p3}), not finite ({@code NaN},
 * {@code 1e400}), negative, or out of its field's range ({@code mem_utilization} and the KV cache's
 * named metrics above 1; see
 * {@link LoadReport}), its name repeats an earlier entry (the first one counts), or it is past
 * the {@value #MAX_NAMED_METRICS}th named metric. The whole header gives {@link LoadReport#EMPTY}
 * when it is blank, of another form, or JSON that does not parse to one object (truncated,
 * trailing text). Each ignored entry or header is told to the caller's {@code ignored} consumer
 * in a few words, for a DEBUG log line.
 *
 * <p>Stateless and thread-safe; O(length of the header).
 */
public final class LoadReports {

    /** The answer header that carries the report. */
    public static final String HEADER = "endpoint-load-metrics";
    /** The request header that asks for it, valued {@code TEXT} or {@code JSON}. */
    public static final String FORMAT_HEADER = "endpoint-load-metrics-format";
    /** Named metrics kept per report; further ones are ignored. */
    public static final int MAX_NAMED_METRICS = 64;

    static final String CPU_UTILIZATION = "cpu_utilization";
    static final String MEM_UTILIZATION = "mem_utilization";
    static final String APPLICATION_UTILIZATION = "application_utilization";
    static final String RPS_FRACTIONAL = "rps_fractional";
    static final String EPS = "eps";
    static final String NAMED_METRICS_PREFIX = "named_metrics.";
    private static final String NAMED_METRICS = "named_metrics";

    /** A plain decimal number: digits, an optional point and exponent; no hex, no {@code f}/{@code d} suffix. */
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final JsonFactory JSON = new JsonFactory();

    private LoadReports() {
    }

    /** {@link #parse(String, Consumer)} with ignored entries left untold. */
    public static LoadReport parse(String headerValue) {
        return parse(headerValue, reason -> { });
    }

    /**
     * Parses one {@code endpoint-load-metrics} value.
     *
     * @param headerValue the header's value, e.g. {@code TEXT cpu_utilization=0.3}; null or blank
     *                    gives an empty report
     * @param ignored     told of each ignored entry, or of the whole header, in a few words
     *                    (e.g. {@code cpu_utilization=abc: not a decimal number})
     * @return the report; {@link LoadReport#EMPTY} when nothing usable was found
     */
    public static LoadReport parse(String headerValue, Consumer<String> ignored) {
        if (headerValue == null || headerValue.isBlank()) {
            ignored.accept("empty header");
            return LoadReport.EMPTY;
        }
        String value = headerValue.strip();
        int space = value.indexOf(' ');
        String form = (space < 0 ? value : value.substring(0, space)).toUpperCase(Locale.ROOT);
        String body = space < 0 ? "" : value.substring(space + 1).strip();
        Fields fields = new Fields(ignored);
        switch (form) {
            case "TEXT" -> parseText(body, fields);
            case "JSON" -> {
                if (!parseJson(body, fields)) {
                    return LoadReport.EMPTY;
                }
            }
            case "BIN" -> {
                ignored.accept("BIN (base64 protobuf) form not supported");
                return LoadReport.EMPTY;
            }
            default -> {
                ignored.accept("unsupported form '" + shorten(form) + "'");
                return LoadReport.EMPTY;
            }
        }
        return fields.report();
    }

    private static void parseText(String body, Fields fields) {
        for (String entry : body.split(",")) {
            String trimmed = entry.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            int equals = trimmed.indexOf('=');
            int colon = trimmed.indexOf(':');
            int split = equals < 0 ? colon : colon < 0 ? equals : Math.min(equals, colon);
            if (split <= 0 || split == trimmed.length() - 1) {
                fields.ignore(trimmed, "not a name=value pair");
                continue;
            }
            String name = trimmed.substring(0, split).strip();
            String number = trimmed.substring(split + 1).strip();
            if (!DECIMAL.matcher(number).matches()) {
                fields.ignore(trimmed, "not a decimal number");
                continue;
            }
            if (name.startsWith(NAMED_METRICS_PREFIX)) {
                fields.named(name.substring(NAMED_METRICS_PREFIX.length()), Double.parseDouble(number), trimmed);
            } else {
                fields.field(name, Double.parseDouble(number), trimmed);
            }
        }
    }

    /** @return false when the body is not one whole JSON object (the report is then empty) */
    private static boolean parseJson(String body, Fields fields) {
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                fields.ignored.accept("JSON report is not an object");
                return false;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = snakeCase(parser.currentName());
                JsonToken token = parser.nextToken();
                if (name.equals(NAMED_METRICS) && token == JsonToken.START_OBJECT) {
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        String metric = parser.currentName();
                        parser.nextToken();
                        double number = jsonNumber(parser, fields, NAMED_METRICS_PREFIX + metric);
                        if (!Double.isNaN(number)) {
                            fields.named(metric, number, NAMED_METRICS_PREFIX + metric + "=" + parser.getText());
                        }
                        parser.skipChildren();
                    }
                } else if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                    fields.ignore(name, "not read");
                    parser.skipChildren();
                } else {
                    double number = jsonNumber(parser, fields, name);
                    if (!Double.isNaN(number)) {
                        fields.field(name, number, name + "=" + parser.getText());
                    }
                }
            }
            if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
                fields.ignored.accept("JSON report has text after its object");
                return false;
            }
            return true;
        } catch (JsonProcessingException e) {
            fields.ignored.accept("garbled JSON report (" + shorten(e.getOriginalMessage()) + ")");
            return false;
        } catch (IOException e) {
            // Not thrown when parsing a String; kept apart so that the message above stays short.
            fields.ignored.accept("garbled JSON report");
            return false;
        }
    }

    /** A JSON number, or a string holding a decimal number (proto3 JSON); NaN, told, otherwise. */
    private static double jsonNumber(JsonParser parser, Fields fields, String name) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
            double value = parser.getValueAsDouble();
            if (Double.isFinite(value)) {
                return value;
            }
        } else if (token == JsonToken.VALUE_STRING && DECIMAL.matcher(parser.getText()).matches()) {
            double value = Double.parseDouble(parser.getText());
            if (Double.isFinite(value)) {
                return value;
            }
        }
        fields.ignore(name + "=" + parser.getText(), "not a finite number");
        return Double.NaN;
    }

    /** proto3 JSON's lowerCamelCase names to the proto's names ({@code cpuUtilization} to {@code cpu_utilization}). */
    private static String snakeCase(String name) {
        return switch (name) {
            case "cpuUtilization" -> CPU_UTILIZATION;
            case "memUtilization" -> MEM_UTILIZATION;
            case "applicationUtilization" -> APPLICATION_UTILIZATION;
            case "rpsFractional" -> RPS_FRACTIONAL;
            case "namedMetrics" -> NAMED_METRICS;
            default -> name;
        };
    }

    private static String shorten(String text) {
        if (text == null) {
            return "";
        }
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }

    /** The fields read so far, each checked against its range; not thread-safe (one per parse). */
    private static final class Fields {
        private final Consumer<String> ignored;
        private final Set<String> seen = new HashSet<>();
        private final Map<String, Double> named = new LinkedHashMap<>();
        private double cpu = Double.NaN;
        private double mem = Double.NaN;
        private double application = Double.NaN;
        private double rps = Double.NaN;
        private double eps = Double.NaN;

        Fields(Consumer<String> ignored) {
            this.ignored = ignored;
        }

        void ignore(String entry, String why) {
            ignored.accept(shorten(entry) + ": " + why);
        }

        void field(String name, double value, String entry) {
            if (!Double.isFinite(value)) {
                ignore(entry, "not finite");
                return;
            }
            if (value < 0) {
                ignore(entry, "negative");
                return;
            }
            switch (name) {
                case CPU_UTILIZATION, APPLICATION_UTILIZATION, RPS_FRACTIONAL, EPS -> { }
                case MEM_UTILIZATION -> {
                    if (value > 1) {
                        ignore(entry, "above 1");
                        return;
                    }
                }
                default -> {
                    ignore(entry, "not read");
                    return;
                }
            }
            if (!seen.add(name)) {
                ignore(entry, "repeated");
                return;
            }
            switch (name) {
                case CPU_UTILIZATION -> cpu = value;
                case MEM_UTILIZATION -> mem = value;
                case APPLICATION_UTILIZATION -> application = value;
                case RPS_FRACTIONAL -> rps = value;
                default -> eps = value;
            }
        }

        void named(String metric, double value, String entry) {
            if (metric.isEmpty()) {
                ignore(entry, "empty metric name");
            } else if (!Double.isFinite(value)) {
                ignore(entry, "not finite");
            } else if (value < 0) {
                ignore(entry, "negative");
            } else if (value > 1 && (metric.equals(LoadReport.KV_CACHE_USAGE_PERC) || metric.equals(LoadReport.KV_CACHE_UTILIZATION))) {
                ignore(entry, "above 1");
            } else if (named.containsKey(metric)) {
                ignore(entry, "repeated");
            } else if (named.size() >= MAX_NAMED_METRICS) {
                ignore(entry, "more than " + MAX_NAMED_METRICS + " named metrics");
            } else {
                named.put(metric, value);
            }
        }

        LoadReport report() {
            if (seen.isEmpty() && named.isEmpty()) {
                return LoadReport.EMPTY;
            }
            return new LoadReport(cpu, mem, application, rps, eps, named);
        }
    }
}
