package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.key.LongLivedStreams;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One agent's counters and marks: down hooks, attempts in flight, the rest after a busy answer and its trial. */
class AgentSlotTest {

    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final AgentSlot slot = new AgentSlot(ScriptedChild.naming("a"), false);

    @AfterEach
    void close() throws Exception {
        camel.close();
    }

    private Exchange post() {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "POST");
        return exchange;
    }

    @Test
    void aDownHookRegisteredAfterTheMarkRunsAtOnceAndStaysUnregistered() {
        AtomicInteger ended = new AtomicInteger();
        Runnable deregister = slot.whenDown(ended::incrementAndGet, () -> true);
        assertThat(ended.get()).isEqualTo(1);
        assertThat(slot.downHooks).isEmpty();
        assertThat(deregister).isSameAs(AttemptHooks.NOTHING);
    }

    @Test
    void aDownHookStaysRegisteredUntilItsDeregistrationRuns() {
        AtomicInteger ended = new AtomicInteger();
        Runnable end = ended::incrementAndGet;
        Runnable deregister = slot.whenDown(end, () -> false);
        assertThat(ended.get()).isZero();
        assertThat(slot.downHooks).containsExactly(end);
        deregister.run();
        assertThat(slot.downHooks).isEmpty();
        assertThat(ended.get()).isZero();
    }

    @Test
    void onlyTheLastAttemptToEndBringsTheCountTo0() {
        Exchange first = post();
        Exchange second = post();
        slot.sent(first);
        slot.sent(second);
        assertThat(slot.inFlight.get()).isEqualTo(2);
        assertThat(slot.ended(first)).isFalse();
        assertThat(slot.idle()).isFalse();
        assertThat(slot.ended(second)).isTrue();
        assertThat(slot.idle()).isTrue();
    }

    /**
     * Under an in-flight limit the place is taken when the agent is chosen, so that of two exchanges
     * choosing at once only one gets the last place; the attempt's send then counts it no second time,
     * and a long-lived stream gives its place back.
     */
    @Test
    void aReservedPlaceIsTheAttemptsCountAndTheLastPlaceGoesOnce() {
        assertThat(slot.reserve(2)).isTrue();
        assertThat(slot.reserve(2)).isTrue();
        assertThat(slot.reserve(2)).as("both places taken").isFalse();
        assertThat(slot.inFlight.get()).isEqualTo(2);
        Exchange first = post();
        Exchange stream = new DefaultExchange(camel);
        stream.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        stream.getIn().setHeader(LongLivedStreams.SESSION_ID, "s1");
        slot.sent(first, true);
        assertThat(slot.inFlight.get()).as("counted once").isEqualTo(2);
        slot.sent(stream, true);
        assertThat(slot.inFlight.get()).as("the stream's place given back").isEqualTo(1);
        assertThat(slot.streams.get()).isEqualTo(1);
        assertThat(slot.ended(stream)).isTrue();
        assertThat(slot.ended(first)).isTrue();
        assertThat(slot.idle()).isTrue();
    }

    @Test
    void theRestEndsAtItsInstantAndTheFirstRequestThenIsTheTrial() {
        long until = 5_000;
        slot.restUntil.set(until);
        assertThat(slot.resting(until - 1)).isTrue();
        assertThat(slot.resting(until)).as("over at its instant").isFalse();
        assertThat(slot.restingOrTrial(until - 1, 100)).isTrue();
        assertThat(slot.restingOrTrial(until, 100)).as("the trial, at the rest's end").isFalse();
        assertThat(slot.restUntil.get()).isZero();
        assertThat(slot.restingOrTrial(until, 100)).as("the others wait for the trial's answer").isTrue();
        assertThat(slot.resting(until + 99)).isTrue();
        assertThat(slot.resting(until + 100)).as("at most trialNanos").isFalse();
        slot.restingOrTrial(until + 50, 100);
        slot.trialAnswered();
        assertThat(slot.resting(until + 50)).isFalse();
    }
}
