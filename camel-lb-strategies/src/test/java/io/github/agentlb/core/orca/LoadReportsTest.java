package io.github.agentlb.core.orca;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The header forms of the xDS ORCA specification, Triton's client documentation, vLLM's
 * {@code orca_metrics.py} and Envoy's {@code orca_parser_test.cc}, with their values.
 */
class LoadReportsTest {

    private final List<String> ignored = new ArrayList<>();

    private LoadReport parse(String header) {
        return LoadReports.parse(header, ignored::add);
    }

    @Test
    void textExampleOfTheSpecificationAndTritonsDocumentation() {
        LoadReport report = parse("TEXT cpu_utilization=0.3, mem_utilization=0.8, rps_fractional=10.0, eps=1, "
                + "named_metrics.custom_metric_util=0.4");
        assertThat(report.cpuUtilization()).isEqualTo(0.3);
        assertThat(report.memUtilization()).isEqualTo(0.8);
        assertThat(report.rpsFractional()).isEqualTo(10.0);
        assertThat(report.eps()).isEqualTo(1.0);
        assertThat(report.namedMetrics()).containsExactly(Map.entry("custom_metric_util", 0.4));
        assertThat(report.applicationUtilization()).isNaN();
        assertThat(ignored).isEmpty();
    }

    @Test
    void jsonExampleOfTheSpecificationAndTritonsDocumentation() {
        LoadReport report = parse("JSON {\"cpu_utilization\": 0.3, \"mem_utilization\": 0.8, \"rps_fractional\": 10.0, "
                + "\"eps\": 1, \"named_metrics\": {\"custom-metric-util\": 0.4}}");
        assertThat(report).isEqualTo(parse("TEXT cpu_utilization=0.3, mem_utilization=0.8, rps_fractional=10.0, eps=1, "
                + "named_metrics.custom-metric-util=0.4"));
        assertThat(ignored).isEmpty();
    }

    @Test
    void vllmsTextAndJsonForms() {
        LoadReport text = parse("TEXT named_metrics.kv_cache_usage_perc=0.4, named_metrics.num_requests_waiting=2.0");
        LoadReport json = parse("JSON {\"named_metrics\": {\"kv_cache_usage_perc\": 0.4, \"num_requests_waiting\": 2.0}}");
        assertThat(text).isEqualTo(json);
        assertThat(text.kvCacheUsage()).isEqualTo(0.4);
        assertThat(text.requestsWaiting()).isEqualTo(2.0);
        assertThat(text.cpuUtilization()).isNaN();
        assertThat(ignored).isEmpty();
    }

    @Test
    void tritonsKvCacheMetricCountsAsKvCacheUsage() {
        LoadReport report = parse("TEXT named_metrics.kv_cache_utilization=0.980000, named_metrics.max_token_capacity=1024");
        assertThat(report.kvCacheUsage()).isEqualTo(0.98);
        assertThat(report.namedMetric("max_token_capacity")).isEqualTo(1024.0);
    }

    @Test
    void envoysFullExampleWithEqualsAndWithColons() {
        String equals = "TEXT cpu_utilization=0.7,application_utilization=0.8,mem_utilization=0.9,"
                + "rps_fractional=1000,eps=2,named_metrics.foo=123,named_metrics.bar=0.2,utilization.total=0.5";
        LoadReport report = parse(equals);
        assertThat(report.cpuUtilization()).isEqualTo(0.7);
        assertThat(report.applicationUtilization()).isEqualTo(0.8);
        assertThat(report.memUtilization()).isEqualTo(0.9);
        assertThat(report.rpsFractional()).isEqualTo(1000.0);
        assertThat(report.eps()).isEqualTo(2.0);
        assertThat(report.namedMetrics()).containsExactly(Map.entry("foo", 123.0), Map.entry("bar", 0.2));
        assertThat(ignored).containsExactly("utilization.total=0.5: not read");
        assertThat(parse(equals.replace('=', ':'))).isEqualTo(report);
    }

    @Test
    void envoysJsonExampleAndProto3JsonNames() {
        LoadReport report = parse("JSON {\"cpu_utilization\": 0.7, \"application_utilization\": 0.8, "
                + "\"mem_utilization\": 0.9, \"rps_fractional\": 1000, \"eps\": 2, "
                + "\"named_metrics\": {\"foo\": 123,\"bar\": 0.2}, \"utilization\": {\"total\": 0.5}}");
        assertThat(report.applicationUtilization()).isEqualTo(0.8);
        assertThat(report.namedMetrics()).containsExactly(Map.entry("foo", 123.0), Map.entry("bar", 0.2));
        assertThat(parse("JSON {\"cpuUtilization\": \"0.7\", \"namedMetrics\": {\"foo\": \"123\"}}"))
                .isEqualTo(parse("TEXT cpu_utilization=0.7, named_metrics.foo=123"));
    }

    @Test
    void applicationAndCpuUtilizationMayExceedOneButMemoryMayNot() {
        LoadReport report = parse("TEXT application_utilization=1.5, cpu_utilization=1.2, mem_utilization=1.01");
        assertThat(report.applicationUtilization()).isEqualTo(1.5);
        assertThat(report.cpuUtilization()).isEqualTo(1.2);
        assertThat(report.memUtilization()).isNaN();
        assertThat(ignored).containsExactly("mem_utilization=1.01: above 1");
    }

    /** A KV cache in use is a fraction (despite vLLM's name): above 1 it is ignored, as memory's, not a saturated agent. */
    @Test
    void kvCacheUseAboveOneIsIgnored() {
        LoadReport report = parse("TEXT named_metrics.kv_cache_usage_perc=1.5, named_metrics.kv_cache_utilization=2, "
                + "named_metrics.num_requests_waiting=7");
        assertThat(report.kvCacheUsage()).isNaN();
        assertThat(report.namedMetrics()).containsExactly(Map.entry("num_requests_waiting", 7.0));
        assertThat(ignored).containsExactly("named_metrics.kv_cache_usage_perc=1.5: above 1",
                "named_metrics.kv_cache_utilization=2: above 1");
        assertThat(parse("TEXT named_metrics.kv_cache_usage_perc=1.0").kvCacheUsage()).isEqualTo(1.0);
    }

    @Test
    void badEntriesAreIgnoredAndTheRestKept() {
        LoadReport report = parse("TEXT cpu_utilization=abc, mem_utilization=NaN, application_utilization=-1, "
                + "eps=1e400, rps_fractional=0x1p3, named_metrics.q=-2, named_metrics.=3, cpu_utilization=\"0.7\", "
                + "named_metrics.kv_cache_usage_perc=0.5, named_metrics.kv_cache_usage_perc=0.9, rps=7, nonsense, "
                + "named_metrics.f=1f");
        assertThat(report.namedMetrics()).containsExactly(Map.entry("kv_cache_usage_perc", 0.5));
        assertThat(report.cpuUtilization()).isNaN();
        assertThat(ignored).containsExactly(
                "cpu_utilization=abc: not a decimal number",
                "mem_utilization=NaN: not a decimal number",
                "application_utilization=-1: negative",
                "eps=1e400: not finite",
                "rps_fractional=0x1p3: not a decimal number",
                "named_metrics.q=-2: negative",
                "named_metrics.=3: empty metric name",
                "cpu_utilization=\"0.7\": not a decimal number",
                "named_metrics.kv_cache_usage_perc=0.9: repeated",
                "rps=7: not read",
                "nonsense: not a name=value pair",
                "named_metrics.f=1f: not a decimal number");
    }

    @Test
    void repeatedStandardFieldKeepsTheFirst() {
        assertThat(parse("TEXT cpu_utilization=0.7,cpu_utilization=0.8").cpuUtilization()).isEqualTo(0.7);
        assertThat(ignored).containsExactly("cpu_utilization=0.8: repeated");
    }

    @Test
    void badJsonValuesAreIgnoredAndTheRestKept() {
        LoadReport report = parse("JSON {\"cpu_utilization\": \"NaN\", \"mem_utilization\": -0.1, "
                + "\"eps\": 1e400, \"application_utilization\": true, \"named_metrics\": {\"num_requests_waiting\": 3, "
                + "\"x\": \"abc\", \"y\": {\"z\": 1}}}");
        assertThat(report.namedMetrics()).containsExactly(Map.entry("num_requests_waiting", 3.0));
        assertThat(report.cpuUtilization()).isNaN();
        assertThat(report.memUtilization()).isNaN();
        assertThat(report.eps()).isNaN();
        assertThat(ignored).containsExactly(
                "cpu_utilization=NaN: not a finite number",
                "mem_utilization=-0.1: negative",
                "eps=1e400: not a finite number",
                "application_utilization=true: not a finite number",
                "named_metrics.x=abc: not a finite number",
                "named_metrics.y={: not a finite number");
    }

    @Test
    void whollyGarbledHeadersGiveTheEmptyReport() {
        assertThat(parse(null)).isSameAs(LoadReport.EMPTY);
        assertThat(parse("")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("   ")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("BIN CZqZmZmZmbk/MQAAAAAAAABAQg4KA2ZvbxGamZmZmZm5P0IOCgNiYXIRmpmZmZmZyT8=")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("BAD random-value")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("JSON {\"cpu_utilization\":0.3,\"named_metrics\":{\"kv_cache")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("JSON {\"cpu_utilization\": 0.7")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("JSON not-a-valid-json-string")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("JSON [0.3]")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("JSON {\"cpu_utilization\": 0.7} trailing")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("TEXT")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("TEXT not-a-list-of-key-value-pairs")).isSameAs(LoadReport.EMPTY);
        // "TEXT" alone has no entry to tell of.
        assertThat(ignored).hasSize(11);
        assertThat(ignored.subList(0, 5)).containsExactly("empty header", "empty header", "empty header",
                "BIN (base64 protobuf) form not supported", "unsupported form 'BAD'");
        assertThat(ignored.get(5)).startsWith("garbled JSON report (");
        assertThat(ignored.get(8)).isEqualTo("JSON report is not an object");
        assertThat(ignored.get(9)).startsWith("garbled JSON report (Unrecognized token 'trailing'");
        assertThat(ignored.get(10)).isEqualTo("not-a-list-of-key-value-pairs: not a name=value pair");
    }

    @Test
    void formNameIgnoresCaseAndReportPrintsItsFields() {
        LoadReport report = parse("text cpu_utilization=0.3, named_metrics.num_requests_waiting=2");
        assertThat(report.toString()).isEqualTo("LoadReport{cpu_utilization=0.3, named_metrics.num_requests_waiting=2.0}");
        assertThat(LoadReport.EMPTY.toString()).isEqualTo("LoadReport{}");
        assertThat(LoadReport.EMPTY.isEmpty()).isTrue();
        assertThat(report.isEmpty()).isFalse();
    }

    @Test
    void namedMetricsAreCapped() {
        StringBuilder header = new StringBuilder("TEXT ");
        for (int i = 0; i <= LoadReports.MAX_NAMED_METRICS; i++) {
            header.append("named_metrics.m").append(i).append('=').append(i).append(',');
        }
        assertThat(parse(header.toString()).namedMetrics()).hasSize(LoadReports.MAX_NAMED_METRICS);
        assertThat(ignored).containsExactly("named_metrics.m64=64: more than 64 named metrics");
    }

    @Test
    void aSeparatorAtTheStartOfAnEntryIsNoPair() {
        LoadReport report = parse("TEXT =0.5, :0.5, =a:1, :a=1, cpu_utilization=, eps:, rps_fractional=2");
        assertThat(report.rpsFractional()).isEqualTo(2.0);
        assertThat(ignored).containsExactly(
                "=0.5: not a name=value pair",
                ":0.5: not a name=value pair",
                "=a:1: not a name=value pair",
                ":a=1: not a name=value pair",
                "cpu_utilization=: not a name=value pair",
                "eps:: not a name=value pair");
    }

    @Test
    void theFirstOfEqualsAndColonSplitsAnEntry() {
        LoadReport report = parse("TEXT named_metrics.a=1:2, named_metrics.b:3=4, named_metrics.c:5");
        assertThat(report.namedMetrics()).containsExactly(Map.entry("c", 5.0));
        assertThat(ignored).containsExactly(
                "named_metrics.a=1:2: not a decimal number",
                "named_metrics.b:3=4: not a decimal number");
    }

    @Test
    void zeroIsInRangeAndMemoryUtilizationMayBeExactlyOne() {
        LoadReport report = parse("TEXT cpu_utilization=0, mem_utilization=1, application_utilization=0.0, "
                + "rps_fractional=0, eps=0, named_metrics.q=0");
        assertThat(report.cpuUtilization()).isEqualTo(0.0);
        assertThat(report.memUtilization()).isEqualTo(1.0);
        assertThat(report.applicationUtilization()).isEqualTo(0.0);
        assertThat(report.rpsFractional()).isEqualTo(0.0);
        assertThat(report.eps()).isEqualTo(0.0);
        assertThat(report.namedMetrics()).containsExactly(Map.entry("q", 0.0));
        assertThat(report.isEmpty()).isFalse();
        assertThat(ignored).isEmpty();
    }

    @Test
    void aNamedMetricTooLargeForADoubleIsNotFinite() {
        LoadReport report = parse("TEXT named_metrics.big=1e400, named_metrics.ok=1");
        assertThat(report.namedMetrics()).containsExactly(Map.entry("ok", 1.0));
        assertThat(ignored).containsExactly("named_metrics.big=1e400: not finite");
    }

    @Test
    void entriesAreShortenedToFortyCharactersWhenTold() {
        String forty = "named_metrics." + "x".repeat(21) + "=abcd";
        String fortyOne = "named_metrics." + "x".repeat(22) + "=abcd";
        assertThat(forty).hasSize(40);
        parse("TEXT " + forty + ", " + fortyOne);
        assertThat(ignored).containsExactly(
                forty + ": not a decimal number",
                fortyOne.substring(0, 40) + "...: not a decimal number");
    }

    @Test
    void jsonObjectsAndArraysOutsideNamedMetricsAreToldAsNotRead() {
        LoadReport report = parse("JSON {\"utilization\": {\"total\": 0.5}, \"request_cost\": [1, 2], "
                + "\"cpuUtilization\": 0.25}");
        assertThat(report.cpuUtilization()).isEqualTo(0.25);
        assertThat(ignored).containsExactly("utilization: not read", "request_cost: not read");
    }

    @Test
    void jsonWithASecondValueAfterItsObjectGivesTheEmptyReport() {
        assertThat(parse("JSON {\"cpu_utilization\": 0.7} {\"eps\": 1}")).isSameAs(LoadReport.EMPTY);
        assertThat(parse("JSON {\"cpu_utilization\": 0.7} 5")).isSameAs(LoadReport.EMPTY);
        assertThat(ignored).containsExactly("JSON report has text after its object",
                "JSON report has text after its object");
    }

    @Test
    void jsonThatIsNoObjectIsToldOnce() {
        assertThat(parse("JSON 0.5")).isSameAs(LoadReport.EMPTY);
        assertThat(ignored).containsExactly("JSON report is not an object");
    }
}
