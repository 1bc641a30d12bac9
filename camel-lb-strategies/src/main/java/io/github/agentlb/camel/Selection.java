package io.github.agentlb.camel;

import java.util.Iterator;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A strategy's decision for one exchange: the agents to try, preferred first, and what to log
 * about the decision.
 *
 * @param candidates agent ids in the order to try them, each at most once; the first is the choice,
 *                   the rest the failover order. Consumed lazily, only as far as failures require.
 * @param detail     makes the extra text of the decision's log line (for example
 *                   {@code user_id=42 hash=...}); called only when that line is logged, so the
 *                   request path builds no log text while the decision log is off. Client-supplied
 *                   values in it go through {@code AgentLoadBalancerSupport.loggable}.
 */
public record Selection(Iterator<String> candidates, Supplier<String> detail) {

    private static final Supplier<String> NONE = () -> "";

    public Selection {
        Objects.requireNonNull(candidates, "candidates");
        detail = detail == null ? NONE : detail;
    }

    /** A selection with no extra log detail. */
    public static Selection of(Iterator<String> candidates) {
        return new Selection(candidates, NONE);
    }
}
