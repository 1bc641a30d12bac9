package io.github.agentlb.agent.http;

import static io.github.agentlb.agent.http.RequestFramingTest.answers;
import static io.github.agentlb.agent.http.RequestFramingTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestReadTimeout}'s idle clock, on the server's pipeline on Netty's embedded channel
 * with its time frozen and advanced by hand: a connection that sends no byte of a request for the
 * client timeout on a new connection, or nginx's keep-alive time after an answer, is closed
 * without an answer; never while a request is read, answered, or its answer written.
 */
class IdleConnectionTest {

    private static final long TIMEOUT_MS = 1_000;
    private static final long KEPT_ALIVE_MS = RequestReadTimeout.KEEP_ALIVE_TIMEOUT_MS;

    private static EmbeddedChannel pipeline(RequestFramingTest.Camel camel) {
        return frozen(RequestFramingTest.handlers(camel, TIMEOUT_MS));
    }

    /**
     * A channel whose time is frozen before {@code handlers} are added, so that the clocks they start
     * at once count from the frozen time (frozen after, the time the handlers took to be added, a
     * class load on a loaded machine, would count as waited).
     */
    private static EmbeddedChannel frozen(ChannelHandler... handlers) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        channel.pipeline().addLast(handlers);
        return channel;
    }

    /** The channel stays open for {@code ms} less a millisecond, and is closed at {@code ms}. */
    private static void assertClosedAfter(EmbeddedChannel channel, long ms) {
        advance(channel, ms - 1);
        assertThat(channel.isOpen()).isTrue();
        advance(channel, 1);
        assertThat(channel.isOpen()).isFalse();
    }

    private static void advance(EmbeddedChannel channel, long ms) {
        channel.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
    }

    /** A connection whose request of 1,000 bytes was handed on with its first 100 (a body that streams) and answered at once. */
    private static EmbeddedChannel answeredBeforeItsBodyEnded() {
        RequestReadTimeout timeout = new RequestReadTimeout(TIMEOUT_MS);
        HeldBodies held = new HeldBodies(16, 16, 0, 1 << 20, (head, prefix) -> true);
        RequestFramingTest.Camel camel = new RequestFramingTest.Camel();
        EmbeddedChannel channel = frozen(timeout.bytes(), new Http11ServerCodec(4096, 8192, 8192),
                new StreamedBodies(held, 1 << 20), new JsonLimitAggregator(1 << 20, held), timeout.requests(),
                new OneRequestAtATime(), Http1Only.INSTANCE, camel);
        send(channel, "POST /process/a HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + "x".repeat(100));
        assertThat(camel.received).as("handed on with its first bytes, answered at once").hasSize(1);
        return channel;
    }

    private static final String GET = "GET /process/a HTTP/1.1\r\nHost: x\r\n\r\n";

    /**
     * A request whose body streams (handed on after its first bytes) and was answered before its
     * body ended (an agent's early 429 or 200, passed on kept alive): the rest of its body, then the
     * client's silence for the client timeout, closes the connection without a second answer, as
     * nginx ends a body it discards (before: a 408 after the answer, which a client would take for
     * the answer of its next request).
     */
    @Test
    void aStreamedBodyAnsweredBeforeItEndedAndThenSilentIsClosedWithoutASecondAnswer() {
        EmbeddedChannel channel = answeredBeforeItsBodyEnded();
        send(channel, "y".repeat(300)); // more of the body, after the answer
        assertClosedAfter(channel, TIMEOUT_MS);
        assertThat(answers(channel)).containsExactly("200 ");
        channel.finishAndReleaseAll();
    }

    /**
     * The same with no byte after the answer: the client owes the rest of its body, so the client
     * timeout runs, not the keep-alive time (was: closed after 75 s).
     */
    @Test
    void aStreamedBodyAnsweredBeforeItEndedWhoseClientThenSendsNothingIsClosedAfterTheClientTimeout() {
        EmbeddedChannel channel = answeredBeforeItsBodyEnded();
        assertClosedAfter(channel, TIMEOUT_MS);
        assertThat(answers(channel)).containsExactly("200 ");
        channel.finishAndReleaseAll();
    }

    @Test
    void aNewConnectionThatSendsNoByteIsClosedWithoutAnAnswerAfterTheTimeout() {
        EmbeddedChannel channel = pipeline(new RequestFramingTest.Camel());

        assertClosedAfter(channel, TIMEOUT_MS);
        assertThat(answers(channel)).isEmpty();
        channel.finishAndReleaseAll();
    }

    @Test
    void aKeptAliveConnectionIsClosedWithoutAnAnswerAfterTheKeepAliveTimeFromItsLastAnswer() {
        RequestFramingTest.Camel camel = new RequestFramingTest.Camel();
        EmbeddedChannel channel = pipeline(camel);
        advance(channel, TIMEOUT_MS - 1);
        send(channel, GET);
        advance(channel, KEPT_ALIVE_MS - 1); // longer than the client timeout: kept alive, 75 s as nginx
        assertThat(channel.isOpen()).isTrue();
        send(channel, GET); // the clock starts again from this answer
        assertClosedAfter(channel, KEPT_ALIVE_MS);
        assertThat(answers(channel)).containsExactly("200 ", "200 ");
        assertThat(camel.received).hasSize(2);
        channel.finishAndReleaseAll();
    }

    @Test
    void aRequestInFlightAndItsAnswerStreamedForLongAreNotCutThenTheConnectionIsIdle() {
        RequestFramingTest.HeldCamel camel = new RequestFramingTest.HeldCamel();
        EmbeddedChannel channel = pipeline(camel);
        send(channel, GET);
        advance(channel, 10 * TIMEOUT_MS); // the agent has not answered yet
        assertThat(channel.isOpen()).isTrue();
        camel.head();
        advance(channel, 100 * TIMEOUT_MS); // the answer streams
        assertThat(channel.isOpen()).isTrue();
        camel.end();
        assertClosedAfter(channel, KEPT_ALIVE_MS);
        assertThat(answers(channel)).containsExactly("200 ");
        channel.finishAndReleaseAll();
    }

    @Test
    void aRequestHalfArrivedGetsThe408NotASilentClose() {
        EmbeddedChannel channel = pipeline(new RequestFramingTest.Camel());
        advance(channel, TIMEOUT_MS / 2);
        send(channel, "GET /process/a HTTP/1.1\r\n");
        advance(channel, TIMEOUT_MS);

        assertThat(channel.isOpen()).isFalse();
        assertThat(answers(channel)).containsExactly("408 {\"error\":\"request timeout\",\"detail\":\"the request did not "
                + "arrive within 1000 ms\"}");
        channel.finishAndReleaseAll();
    }
}
