package example;

import io.github.agentlb.camel.ConsistentHashLB;
import io.github.agentlb.camel.PidWeightedLB;
import io.github.agentlb.metrics.LoadBalancerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;

/** Compiles against the library, its agent component and its optional Micrometer binder with versions from the BOM only. */
public class UserRoute extends RouteBuilder {
    @Override
    public void configure() {
        PidWeightedLB pid = new PidWeightedLB();
        new LoadBalancerMetrics(pid).bindTo(new SimpleMeterRegistry());
        from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true&bridgeEndpoint=true")
            .errorHandler(noErrorHandler())
            .loadBalance(new ConsistentHashLB())
                .to("agent:http://localhost:8081?firstByteTimeout=5m")
            .end()
            .removeHeaders("*", "Content-Type", Exchange.HTTP_RESPONSE_CODE);
    }
}
