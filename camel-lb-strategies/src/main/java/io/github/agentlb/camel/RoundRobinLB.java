package io.github.agentlb.camel;

import io.github.agentlb.core.select.SmoothWeightedRoundRobin;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import io.github.agentlb.core.select.RoundRobin;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.camel.Exchange;

/**
 * Strict round-robin over the agents: A1, A2, A3, A1, ... After any N exchanges, also from many
 * concurrent callers, no agent has received more than one exchange more than another (a
 * lock-free counter, see {@link RoundRobin}). When the chosen agent fails (or is ejected), the
 * exchange takes the rotation's next turn, so a failed agent's share is spread over the others
 * as nginx does (one of three agents down: the other two get half each, not 2/3 and 1/3), then
 * any agent not yet tried; each agent at most once.
 *
 * <pre>{@code
 * from("netty-http:http://0.0.0.0:8000/process?matchOnUriPrefix=true")
 *     .errorHandler(noErrorHandler())                  // failover is the balancer's job
 *     .doTry()
 *         .loadBalance(new RoundRobinLB())
 *             .to("agent:http://localhost:8081")       // the agent's answer streams to the client as it arrives
 *             .to("agent:http://localhost:8082")
 *             .to("agent:http://localhost:8083")
 *         .end()
 *     .endDoTry()
 *     .doCatch(AgentsBusyException.class)              // every agent asked to rest: 429 (Retry-After is set)
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(429))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"agents busy\"}"))
 *     .doCatch(NoAgentAvailableException.class)        // every agent down: a JSON 503, no stack trace
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(503))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"no agent available\"}"))
 *     .doCatch(Exception.class)                        // failed or timed out before the answer began: a JSON 502
 *         .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(502))
 *         .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
 *         .setBody(constant("{\"error\":\"the agent failed or did not answer in time\"}"))
 *     .end()
 *     .removeHeaders("*", "Content-Type", "Retry-After", Exchange.HTTP_RESPONSE_CODE); // none of the request's
 * }</pre>
 *
 * <p>The example runs as written (a test compiles it): it needs {@code camel-netty-http} and
 * {@code camel-lb-http}, whose {@code agent:} endpoints stream each agent's answer to the client as
 * it arrives, holding no thread per call; each agent's id is its endpoint's address
 * ({@code http://localhost:8081}). When no agent can take an exchange it fails with
 * {@link NoAgentAvailableException} ({@link AgentsBusyException} when every agent asked to rest),
 * which the route answers as JSON (uncaught, netty-http would send the stack trace).
 *
 * <p>Thread-safe; O(1) per exchange.
 */
public class RoundRobinLB extends AgentLoadBalancerSupport {

    private final RoundRobin rotation = new RoundRobin();
    /** The turn of the weighted schedule, shared by the states' pickers. */
    private final AtomicLong weightedTurn = new AtomicLong();

    @Override
    public String strategyName() {
        return "rr";
    }

    /**
     * Equal weights (the default): the strict rotation. Unequal weights ({@link #setAgentWeight}):
     * nginx's smooth weighted round-robin over the weights, the failover order by weight.
     */
    @Override
    protected Picker newPicker(List<String> agentIds, Map<String, Double> weights) {
        if (agentIds.isEmpty()) {
            return exchange -> Selection.of(Collections.emptyIterator());
        }
        if (weights.values().stream().distinct().count() <= 1) {
            return exchange -> Selection.of(new Turns(rotation, agentIds));
        }
        SmoothWeightedRoundRobin.Schedule schedule = SmoothWeightedRoundRobin.Schedule.of(weights,
                SmoothWeightedRoundRobin.DEFAULT_RESOLUTION);
        return Candidates.weighted(schedule, agentIds.size(), weightedTurn);
    }

    /**
     * The candidates of one exchange, as {@link Candidates#drawing} with the rotation's turns and
     * {@link #rotationFrom} the first turn as the sweep, in one object: the first turn is taken
     * now, the rest only when a failover asks. No lambda nor second iterator per decision.
     */
    private static final class Turns implements Iterator<String> {
        private final RoundRobin rotation;
        private final List<String> agentIds;
        private final int first;
        /** Turns returned: the first, then up to n - 1 drawn from the rotation. */
        private int turns;
        private int swept;

        Turns(RoundRobin rotation, List<String> agentIds) {
            this.rotation = rotation;
            this.agentIds = agentIds;
            this.first = rotation.next(agentIds.size());
        }

        @Override
        public boolean hasNext() {
            return turns < agentIds.size() || swept < agentIds.size();
        }

        @Override
        public String next() {
            int n = agentIds.size();
            if (turns == 0) {
                turns++;
                return agentIds.get(first);
            }
            if (turns < n) {
                turns++;
                return agentIds.get(rotation.next(n));
            }
            if (swept >= n) {
                throw new NoSuchElementException();
            }
            return agentIds.get((first + swept++) % n);
        }
    }

    /** The agents in rotation order starting at {@code start}: the failover order of round-robin. */
    static Iterator<String> rotationFrom(int start, List<String> agentIds) {
        return new Iterator<>() {
            private int step;

            @Override
            public boolean hasNext() {
                return step < agentIds.size();
            }

            @Override
            public String next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return agentIds.get((start + step++) % agentIds.size());
            }
        };
    }
}
