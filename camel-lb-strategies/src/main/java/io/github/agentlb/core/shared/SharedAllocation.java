package io.github.agentlb.core.shared;

import io.github.agentlb.core.Check;
import java.time.Duration;
import java.util.Objects;

/**
 * The shared-allocation feature of an {@code avn} balancer: present means on.
 *
 * @param exchange    the store and election the replicas share
 * @param localAfter  how long a follower that lost the store keeps routing on the last installed
 *                    allocation without learning; past it the replica evaluates on its own
 *                    (source {@link AllocationSource#LOCAL}) until the store is back and a newer
 *                    allocation arrives. Positive; {@value #DEFAULT_LOCAL_AFTER_SECONDS} s by default
 */
public record SharedAllocation(AllocationExchange exchange, Duration localAfter) {

    /** Default of {@link #localAfter()}, seconds. */
    public static final long DEFAULT_LOCAL_AFTER_SECONDS = 30;

    /** @throws IllegalArgumentException if {@code localAfter} is not positive */
    public SharedAllocation {
        Objects.requireNonNull(exchange, "exchange");
        Check.positive("localAfter", localAfter);
    }

    /** With the default {@link #localAfter()}. */
    public static SharedAllocation of(AllocationExchange exchange) {
        return new SharedAllocation(exchange, Duration.ofSeconds(DEFAULT_LOCAL_AFTER_SECONDS));
    }

    /** A copy with another {@link #localAfter()}. */
    public SharedAllocation withLocalAfter(Duration value) {
        return new SharedAllocation(exchange, value);
    }
}
