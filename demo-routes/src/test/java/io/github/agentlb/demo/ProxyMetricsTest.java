package io.github.agentlb.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProxyMetricsTest {

    @Test
    void eachStrategyAgentAndStatusHasOneTimerThatEveryRequestOfItRecordsInto() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ProxyMetrics metrics = new ProxyMetrics(registry);

        metrics.recordRequest("rr", "http://a:1", 200, 5_000_000);
        metrics.recordRequest("rr", "http://a:1", 200, 7_000_000);
        metrics.recordRequest("rr", "http://a:1", 503, 1_000_000);
        metrics.recordRequest("rr", null, 503, 2_000_000);

        assertThat(registry.find(ProxyMetrics.REQUESTS).timers()).hasSize(3);
        Timer ok = registry.get(ProxyMetrics.REQUESTS).tags("strategy", "rr", "agent", "http://a:1", "status", "200").timer();
        assertThat(ok.count()).isEqualTo(2);
        assertThat(ok.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(12.0);
        assertThat(registry.get(ProxyMetrics.REQUESTS).tags("agent", "http://a:1", "status", "503").timer().count()).isEqualTo(1);
        Timer none = registry.get(ProxyMetrics.REQUESTS).tags("agent", ProxyMetrics.NO_AGENT, "status", "503").timer();
        assertThat(none.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2.0);
    }
}
