package io.github.agentlb.camel;

import java.util.Iterator;
import java.util.Objects;

/**
 * A strategy's decision for one exchange: the agents to try, preferred first, and what to log
 * about the decision.
 *
 * @param candidates agent ids in the order to try them, each at most once; the first is the choice,
 *                   the rest the failover order. Consumed lazily, only as far as failures require.
 * @param detail     extra text for the decision's log line (for example {@code user_id=42 hash=...}), may be
 *                   empty; client-supplied values in it go through {@code AgentLoadBalancerSupport.loggable}
 */
public record Selection(Iterator<String> candidates, String detail) {

    public Selection {
        Objects.requireNonNull(candidates, "candidates");
        detail = detail == null ? "" : detail;
    }

    /** A selection with no extra log detail. */
    public static Selection of(Iterator<String> candidates) {
        return new Selection(candidates, "");
    }
}
