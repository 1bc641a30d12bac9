package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.avn.AdaptiveVirtualNodesConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which answers feed avn's load reports (only successful ones, never the client's headers) and
 * the JMX view of an evaluation; agents outside a route, one window of 30 requests.
 */
class AdaptiveVirtualNodeLBReportsTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    private final Map<String, String> cpuOf = new HashMap<>(Map.of("a", "0.10", "b", "0.10", "c", "0.90"));
    private final Map<String, Object> cpuSeenByAgent = new HashMap<>();
    private RuntimeException answerError;
    private final Map<String, Integer> statusOf = new HashMap<>();
    private AdaptiveVirtualNodeLB balancer;


    private ScriptedChild agent(String id) {
        return ScriptedChild.answering(id, (exchange, now) -> {
            cpuSeenByAgent.put(id, exchange.getIn().getHeader(AdaptiveVirtualNodeLB.CPU_HEADER));
            exchange.getMessage().setHeader(AdaptiveVirtualNodeLB.CPU_HEADER, cpuOf.get(id));
            exchange.getMessage().setHeader(AdaptiveVirtualNodeLB.MEMORY_HEADER, cpuOf.get(id));
            if (statusOf.containsKey(id)) {
                exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, statusOf.get(id));
            }
            if (answerError != null) {
                exchange.setException(answerError);
            }
        });
    }

    @BeforeEach
    void startBalancer() {
        balancer = new AdaptiveVirtualNodeLB();
        balancer.setAvnConfig(AdaptiveVirtualNodesConfig.custom().totalVirtualNodes(15)
                .evaluationWindow(30).maxMovesPerEvaluation(1).build());
        ScriptedChild.started(balancer, CAMEL.get(), agent("a"), agent("b"), agent("c"));
    }

    private void sendWindow(String clientCpu) {
        for (int user = 1; user <= 30; user++) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader("user_id", String.valueOf(user));
            exchange.getIn().setHeader(AdaptiveVirtualNodeLB.CPU_HEADER, clientCpu);
            balancer.process(exchange, sync -> { });
        }
    }

    @Test
    void anOverloadedAgentsReportsMoveOneVirtualNodeAndJmxShowsIt() {
        sendWindow(null);
        var evaluation = balancer.state().lastEvaluation().orElseThrow();
        assertThat(evaluation.usedUtilization()).isTrue();
        assertThat(evaluation.requests()).isEqualTo(30);
        assertThat(balancer.getReallocations()).isEqualTo(1).isEqualTo(balancer.getReallocations());
        assertThat(balancer.getImbalanceIndex()).isGreaterThan(0.1);
        assertThat(balancer.getImbalanceIndex()).isEqualTo(balancer.getImbalanceIndex());
        assertThat(balancer.getVirtualNodesByAgent()).containsEntry("c", 4).isEqualTo(balancer.getVirtualNodesByAgent());
    }

    @Test
    void errorAnswersFeedNoLoadReportEvenWithHeaders() {
        answerError = new IllegalStateException("HTTP 500");
        sendWindow(null);
        var evaluation = balancer.state().lastEvaluation().orElseThrow();
        assertThat(evaluation.requests()).as("an answer is still a request served").isEqualTo(30);
        assertThat(evaluation.usedUtilization()).as("request counts only").isFalse();
    }

    @Test
    void aClientsLoadHeaderNeverReachesAnAgent() {
        sendWindow("0.99");
        assertThat(cpuSeenByAgent).isNotEmpty();
        assertThat(cpuSeenByAgent.values()).containsOnlyNulls();
    }

    @Test
    void anEvaluationThatMovesPublishesOneNewStateAndLogsTheMove() {
        long generation = balancer.getGeneration();
        try (CapturedLog log = new CapturedLog(AdaptiveVirtualNodeLB.class.getName())) {
            sendWindow(null);
            assertThat(log.lines()).singleElement().asString()
                    .startsWith("INFO Reallocated a virtual node c -> ")
                    .endsWith(" vnodes=" + balancer.getVirtualNodesByAgent());
        }
        assertThat(balancer.getGeneration()).isEqualTo(generation + 1);
        assertThat(balancer.getVirtualNodesByAgent()).containsEntry("c", 4);
    }

    @Test
    void theGettersAndToStringShowTheSameEvaluation() {
        sendWindow(null);
        assertThat(balancer.getReallocations()).isEqualTo(1);
        assertThat(balancer.getImbalanceIndex()).isGreaterThan(0.1);
        assertThat(balancer.getVirtualNodesByAgent()).containsEntry("c", 4);
        assertThat(balancer.toString()).isEqualTo("AdaptiveVirtualNodeLB" + balancer.getVirtualNodesByAgent()
                + " S=" + balancer.getImbalanceIndex());
    }

    @Test
    void anAgentAnsweringErrorsCountsAsFullyLoaded() {
        cpuOf.put("c", "0.10");
        statusOf.put("c", 500);
        balancer.setOutlierEjection(io.github.agentlb.core.health.OutlierEjection.disabled());
        sendWindow(null);
        var evaluation = balancer.state().lastEvaluation().orElseThrow();
        assertThat(evaluation.usedUtilization()).as("c reported as fully loaded by its errors").isTrue();
        assertThat(evaluation.moves()).extracting(m -> m.from()).containsExactly("c");
    }

    @Test
    void eachDecisionSaysHowManyVirtualNodesTheChosenAgentHas() {
        try (CapturedLog log = new CapturedLog("io.github.agentlb.decision")) {
            Exchange exchange = new DefaultExchange(CAMEL.get());
            exchange.getIn().setHeader("user_id", "7");
            balancer.process(exchange, sync -> { });
            assertThat(log.lines()).singleElement().asString().endsWith(" vnodes=5");
        }
    }
}
