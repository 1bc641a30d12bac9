package io.github.agentlb.camel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.agentlb.core.health.OutlierEjection;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The AsyncProcessor contract of the balancer now that the first attempt runs on the caller's
 * thread: an exchange answered synchronously completes synchronously ({@code process}
 * returns {@code true}, the callback hears {@code true}), one answered from another thread
 * completes asynchronously, each exactly once, and a retry sees the exchange as it was before
 * the failed attempt.
 */
class AttemptsOnTheCallersThreadTest {

    @RegisterExtension
    static final StartedCamelContext CAMEL = new StartedCamelContext();

    /** What an agent does with an attempt. */
    private interface Script {
        void run(Exchange attempt, AsyncCallback callback);
    }

    private final Map<String, Script> scripts = new HashMap<>();
    /** What each agent saw when its attempt arrived: body, header X-Trace, property trace. */
    private final List<String> seen = new ArrayList<>();
    private final List<Boolean> callbacks = new ArrayList<>();
    private FixedOrderLB balancer;

    private ScriptedChild agent(String id) {
        return ScriptedChild.scripted(id, (attempt, callback) -> {
            seen.add(id + " body=" + attempt.getIn().getBody() + " header=" + attempt.getIn().getHeader("X-Trace")
                    + " property=" + attempt.getProperty("trace"));
            attempt.getMessage().setBody("answer of " + id);
            Script script = scripts.get(id);
            if (script == null) {
                callback.done(true);
                return true;
            }
            script.run(attempt, callback);
            return false;
        });
    }


    @BeforeEach
    void startBalancer() {
        balancer = new FixedOrderLB("a", "b", "c");
        balancer.setOutlierEjection(OutlierEjection.disabled());
        ScriptedChild.started(balancer, CAMEL.get(), agent("a"), agent("b"), agent("c"));
    }

    private Exchange request() {
        Exchange exchange = new DefaultExchange(CAMEL.get());
        exchange.getIn().setBody("ping");
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, "GET");
        return exchange;
    }

    private static final Script REFUSE_LEAVING_TRACES = (attempt, callback) -> {
        attempt.getIn().setHeader("X-Trace", "left by a failed attempt");
        attempt.setProperty("trace", "left by a failed attempt");
        attempt.setException(new ConnectException("Connection refused"));
        callback.done(true);
    };

    private static Script answeringFromAnotherThread(String agent) {
        return (attempt, callback) -> new Thread(() -> callback.done(false), "agent-" + agent + "-answer").start();
    }

    /** Sends a request whose answer comes from another thread; asserts it completed asynchronously, exactly once. */
    private Exchange completedAsynchronouslyOnce() throws InterruptedException {
        CountDownLatch completed = new CountDownLatch(1);
        Exchange exchange = request();
        boolean sync = balancer.process(exchange, doneSync -> {
            synchronized (callbacks) {
                callbacks.add(doneSync);
            }
            completed.countDown();
        });
        assertThat(completed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(sync).isFalse();
        synchronized (callbacks) {
            assertThat(callbacks).containsExactly(false);
        }
        return exchange;
    }

    @Test
    void aSynchronousAnswerCompletesTheExchangeSynchronously() {
        Exchange exchange = request();
        assertThat(balancer.process(exchange, callbacks::add)).isTrue();
        assertThat(callbacks).containsExactly(true);
        assertThat(exchange.getMessage().getBody()).isEqualTo("answer of a");
        assertThat(exchange.getProperty(AgentLb.AGENT_PROPERTY)).isEqualTo("a");
    }

    @Test
    void aSynchronousFailoverStillCompletesSynchronously() {
        scripts.put("a", REFUSE_LEAVING_TRACES);
        Exchange exchange = request();
        assertThat(balancer.process(exchange, callbacks::add)).isTrue();
        assertThat(callbacks).containsExactly(true);
        assertThat(exchange.getMessage().getBody()).isEqualTo("answer of b");
        assertThat(exchange.getException()).isNull();
    }

    @Test
    void aRetrySeesTheExchangeAsItWasBeforeTheFailedAttempt() {
        scripts.put("a", REFUSE_LEAVING_TRACES);
        Exchange exchange = request();
        balancer.process(exchange, callbacks::add);
        assertThat(seen).containsExactly("a body=ping header=null property=null", "b body=ping header=null property=null");
        assertThat(exchange.getMessage().getHeader("X-Trace")).isNull();
        assertThat(exchange.getProperty("trace")).isNull();
    }

    @Test
    void anAnswerFromAnotherThreadCompletesTheExchangeAsynchronouslyOnce() throws InterruptedException {
        scripts.put("a", answeringFromAnotherThread("a"));
        Exchange exchange = completedAsynchronouslyOnce();
        assertThat(exchange.getMessage().getBody()).isEqualTo("answer of a");
    }

    @Test
    void anAnswerFromAnotherThreadAfterAFailoverCompletesAsynchronously() throws InterruptedException {
        scripts.put("a", REFUSE_LEAVING_TRACES);
        scripts.put("b", answeringFromAnotherThread("b"));
        Exchange exchange = completedAsynchronouslyOnce();
        assertThat(exchange.getMessage().getBody()).isEqualTo("answer of b");
        assertThat(seen).containsExactly("a body=ping header=null property=null", "b body=ping header=null property=null");
    }
}
