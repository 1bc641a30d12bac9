package io.github.agentlb.camel.http;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * The meters of {@code agent:} endpoints, names in one place; loaded only when Micrometer is on
 * the class path. Tag {@value #TAG_AGENT}: the agent's address ({@code http://host:port}).
 * <ul>
 *   <li>{@value #ACTIVE}: calls in flight, from the request's send to the answer's last byte
 *       (Envoy's {@code upstream_rq_active}); gauge.</li>
 *   <li>{@value #ANSWERS}: answers by status class, tag {@value #TAG_STATUS} {@code 1xx} to
 *       {@code 5xx}; counter.</li>
 *   <li>{@value #BYTES}: answer body bytes passed to clients; counter, base unit bytes.</li>
 * </ul>
 * In Prometheus text: {@code agentlb_agent_requests_active}, {@code agentlb_agent_answers_total},
 * {@code agentlb_agent_answer_bytes_total}. Registered at an agent's first call, removed when no
 * producer of its address is left (the agent left its balancer, or the routes stopped).
 */
final class AgentMetrics {

    /** Gauge of calls in flight. */
    static final String ACTIVE = "agentlb.agent.requests.active";
    /** Counter of answers by status class. */
    static final String ANSWERS = "agentlb.agent.answers";
    /** Counter of answer bytes passed to clients. */
    static final String BYTES = "agentlb.agent.answer.bytes";
    static final String TAG_AGENT = "agent";
    static final String TAG_STATUS = "status";

    private AgentMetrics() {
    }

    /**
     * Registers {@code stats}' meters in {@code registry} (an object of type {@code MeterRegistry}).
     *
     * @return what removes them from the registry again
     */
    static Runnable bind(AgentStats stats, Object registry) {
        MeterRegistry meters = (MeterRegistry) registry;
        List<Meter> bound = new ArrayList<>();
        bound.add(Gauge.builder(ACTIVE, stats, AgentStats::active).description("Calls to the agent in flight")
                .tag(TAG_AGENT, stats.agent()).register(meters));
        bound.add(FunctionCounter.builder(BYTES, stats, AgentStats::bytes).description("Answer bytes passed to clients")
                .baseUnit("bytes").tag(TAG_AGENT, stats.agent()).register(meters));
        for (int i = 0; i < AgentStats.STATUS_CLASSES.length; i++) {
            int index = i;
            bound.add(FunctionCounter.builder(ANSWERS, stats, s -> s.answers(index)).description("Answers of the agent by status class")
                    .tag(TAG_AGENT, stats.agent()).tag(TAG_STATUS, AgentStats.STATUS_CLASSES[i]).register(meters));
        }
        return () -> bound.forEach(meters::remove);
    }
}
