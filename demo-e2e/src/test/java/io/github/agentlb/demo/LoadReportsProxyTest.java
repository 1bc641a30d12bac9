package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.camel.RoundRobinLB;
import io.github.agentlb.camel.http.ScriptedAgent;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The balancer, not the client, asks the agents for ORCA load reports; the client never sees them. */
@Tag("e2e")
@Timeout(60)
class LoadReportsProxyTest {

    private final Http http = new Http();

    private static ScriptedAgent reportingAgent() throws Exception {
        return ScriptedAgent.start((exchange, request) -> {
            exchange.getResponseHeaders().set("endpoint-load-metrics",
                    "TEXT named_metrics.kv_cache_usage_perc=0.2, named_metrics.num_requests_waiting=1");
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("{}".getBytes());
        });
    }

    /** GET r1 through the proxy, the client asking for load reports in format {@code ask}. */
    private HttpResponse<String> get(DemoProxy proxy, String ask) {
        return http.get(proxy.baseUrl() + "/process/r1?user_id=1", "endpoint-load-metrics-format", ask);
    }

    @Test
    void theAgentIsAskedAsTheBalancerIsSetWhateverTheClientSends() throws Exception {
        try (ScriptedAgent agent = reportingAgent()) {
            ProxyConfig config = ProxyConfig.builder().host("127.0.0.1").port(0).strategy("rr")
                    .agentUrls(agent.baseUrl()).build();
            try (DemoProxy asking = DemoProxy.start(config, () -> {
                RoundRobinLB rr = new RoundRobinLB();
                rr.setLoadReportFormat("TEXT");
                return rr;
            })) {
                HttpResponse<String> answer = get(asking, "JSON");
                assertThat(answer.statusCode()).isEqualTo(200);
                assertThat(answer.headers().firstValue("endpoint-load-metrics")).isEmpty();
                assertThat(agent.next().header("endpoint-load-metrics-format")).isEqualTo("TEXT");
            }
            try (DemoProxy silent = DemoProxy.start(config, RoundRobinLB::new)) {
                assertThat(get(silent, "TEXT").statusCode()).isEqualTo(200);
                assertThat(agent.next().header("endpoint-load-metrics-format")).isNull();
            }
        }
    }
}
