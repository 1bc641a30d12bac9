package io.github.agentlb.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.netty.NettyConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/** A request's deadline (open loop: intended send time plus the timeout) and the message each send starts from. */
class RequestStepsTest {

    private static final long MS = 1_000_000;

    private final AtomicLong clock = new AtomicLong();
    private final OutcomeRecorder recorder = new OutcomeRecorder("t", 10, 1_000, null, true, (o, from) -> { });
    private final RequestSteps steps = new RequestSteps(recorder, n -> { }, clock::get, new PacingCheck());
    private final Workload workload = Workload.create(10, 2, 1, 0);
    private final CamelContext camel = new DefaultCamelContext();

    private Exchange planned(int i, long intendedMs, long timeoutMs) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.setProperty(RequestSteps.REQUEST, workload.requestAt(i));
        exchange.setProperty(RequestSteps.INTENDED_AT, intendedMs * MS);
        exchange.setProperty(RequestSteps.DEADLINE_AT, (intendedMs + timeoutMs) * MS);
        return exchange;
    }

    private void answerAt(Exchange exchange, long atMs) {
        clock.set(atMs * MS);
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        exchange.getMessage().setBody("{\"agent_id\":\"A1\",\"request_id\":\""
                + exchange.getProperty(RequestSteps.REQUEST, Workload.PlannedRequest.class).requestId() + "\"}");
        steps.recordAnswer(exchange);
    }

    @Test
    void aLateSendGetsWhatIsLeftOfItsTimeoutAndAnAnswerAfterTheDeadlineIsATimeout() {
        Exchange late = planned(0, 0, 80);
        clock.set(30 * MS); // sent 30 ms after its intended time
        steps.prepare(late);
        assertThat(late.getMessage().getHeader(NettyConstants.NETTY_REQUEST_TIMEOUT, Long.class)).isEqualTo(50L);
        answerAt(late, 100); // 70 ms after the send, 100 ms after the intended time

        Exchange inTime = planned(1, 10, 80);
        clock.set(10 * MS);
        steps.prepare(inTime);
        answerAt(inTime, 85);

        assertThat(recorder.timedOutcomes()).extracting(o -> o.outcome().kind())
                .containsExactly(RequestOutcome.Kind.TIMEOUT, RequestOutcome.Kind.SUCCESS);
        assertThat(recorder.timedOutcomes().get(1).outcome().latencyNanos()).isEqualTo(75 * MS);
    }

    @Test
    void eachSendStartsFromANewMessageSoNoPreviousAnswerIsCarriedOver() {
        Exchange exchange = planned(0, 0, 80);
        exchange.getMessage().setHeader("X-Agent-Utilization", "0.5");
        exchange.getMessage().setBody("the previous answer");

        steps.prepare(exchange);

        assertThat(exchange.getMessage().getHeaders()).doesNotContainKey("X-Agent-Utilization")
                .containsEntry(Exchange.HTTP_PATH, "/process/" + workload.requestAt(0).requestId());
        assertThat(exchange.getMessage().getBody()).isNull();
    }
}
