package io.github.agentlb.bench;

import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdAware;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * A child that answers at once: it touches nothing and completes synchronously, so a benchmark
 * through a balancer measures the balancer alone. Its id (an agent URI such as
 * {@code http://agent-7:8080}) is what our balancers take as the agent id. Counts its calls
 * (plain field: one benchmark thread).
 *
 * <p>With {@code -Dbench.childSetsProperty=true} (a JVM option: {@code -jvmArgsAppend}) it sets one
 * exchange property on the exchange it is given, as the {@code agent:} child does (the agent's
 * address): in Camel 4.18 the first property of an exchange creates its property map, which a
 * balancer that sets a property of its own on each attempt would otherwise be charged for alone.
 */
final class NoOpAgent extends AsyncProcessorSupport implements IdAware {

    /** Whether each call sets one exchange property, as a real child does. */
    private static final boolean SETS_PROPERTY = Boolean.getBoolean("bench.childSetsProperty");

    private String id;
    long calls;

    NoOpAgent(String id) {
        this.id = id;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        calls++;
        if (SETS_PROPERTY) {
            exchange.setProperty("bench.agent", id);
        }
        callback.done(true);
        return true;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public void setId(String id) {
        this.id = id;
    }

    @Override
    public String toString() {
        return id;
    }

    static AsyncProcessor[] fleet(int agents) {
        AsyncProcessor[] out = new AsyncProcessor[agents];
        for (int i = 0; i < agents; i++) {
            out[i] = new NoOpAgent("http://agent-" + (i + 1) + ":8080");
        }
        return out;
    }
}
