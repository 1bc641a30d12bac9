package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.orca.LoadReports;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;

/**
 * A route over two scripted agents that answer as vLLM does: an ORCA report only when the request
 * asks for one. The balancer asks, reads A1's saturated report, and the next requests avoid A1
 * until the report is stale (the balancer's clock is the test's).
 */
class LoadReportRouteTest extends CamelTestSupport {

    private static final long MS = 1_000_000L;

    private final AtomicLong clock = new AtomicLong();
    private final RoundRobinLB balancer = new RoundRobinLB();
    /** Agent to the ask header each request carried, in order. */
    private final Map<String, List<Object>> asked = new ConcurrentHashMap<>();

    @Override
    protected RoutesBuilder createRouteBuilder() {
        balancer.useNanoClock(clock::get);
        balancer.setLoadReportFormat("TEXT");
        balancer.nameAgent("direct://a1", "A1");
        balancer.nameAgent("direct://a2", "A2");
        return new RouteBuilder() {
            @Override
            public void configure() {
                errorHandler(noErrorHandler());
                agent("a1", "TEXT named_metrics.kv_cache_usage_perc=0.92, named_metrics.num_requests_waiting=7.0");
                agent("a2", "TEXT named_metrics.kv_cache_usage_perc=0.1, named_metrics.num_requests_waiting=0.0");
                from("direct:start").loadBalance(balancer).to("direct:a1").to("direct:a2");
            }

            private void agent(String name, String report) {
                from("direct:" + name).process(exchange -> {
                    Object format = exchange.getIn().getHeader(LoadReports.FORMAT_HEADER);
                    asked.computeIfAbsent(name, n -> new ArrayList<>()).add(format);
                    exchange.getMessage().setBody(name);
                    if ("TEXT".equals(format)) {
                        exchange.getMessage().setHeader(LoadReports.HEADER, report);
                    }
                });
            }
        };
    }

    private Exchange send() {
        return template.request("direct:start", e -> e.getIn().setBody("ping"));
    }

    private List<String> sequence(int requests) {
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            agents.add(send().getMessage().getBody(String.class));
        }
        return agents;
    }

    @Test
    void theNextRequestsAvoidTheAgentWhoseReportSaysItIsSaturated() {
        Exchange first = send();
        assertThat(first.getMessage().getBody(String.class)).isEqualTo("a1");
        assertThat(first.getMessage().getHeaders()).doesNotContainKeys(LoadReports.HEADER, LoadReports.FORMAT_HEADER);
        assertThat(first.getProperty(AgentLb.LOAD_REPORT_PROPERTY).toString())
                .isEqualTo("LoadReport{named_metrics.kv_cache_usage_perc=0.92, named_metrics.num_requests_waiting=7.0}");

        assertThat(sequence(4)).containsExactly("a2", "a2", "a2", "a2");
        assertThat(asked.get("a1")).containsExactly("TEXT");
        assertThat(asked.get("a2")).containsOnly("TEXT").hasSize(4);

        clock.addAndGet(200 * MS + 1);
        assertThat(sequence(2)).contains("a1");
    }

    /** The ask for a report is the balancer's: a client's is removed when no format is set, and replaced when one is. */
    @Test
    void aClientsAskForALoadReportNeverReachesTheAgent() {
        for (String format : new String[] {null, "JSON"}) {
            Exchange attempt = new org.apache.camel.support.DefaultExchange(context);
            attempt.getIn().setHeader(LoadReports.FORMAT_HEADER, "TEXT");
            attempt.getIn().setHeader(LoadReports.HEADER, "TEXT forged=1");
            LoadReporting.prepare(attempt, format);
            assertThat(attempt.getIn().getHeader(LoadReports.FORMAT_HEADER)).as(format).isEqualTo(format);
            assertThat(attempt.getIn().getHeaders()).doesNotContainKey(LoadReports.HEADER);
        }
    }
}
