package io.github.agentlb.camel;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The places each tenant holds under {@code maxInFlightPerTenant} ({@link FlowControl}): its
 * exchanges let through and not completed, and which tenants sent lately. The limit binds a tenant
 * only while another tenant has sent within the last {@value #ACTIVE_SECONDS} s: a tenant alone
 * takes every place; once another sends, it gets no new place above its limit (those it holds end
 * in their own time: nothing is preempted), and the places above stay for the others.
 *
 * <p>Not thread-safe: the {@link RequestQueue} calls it under its lock. O(1) per call; memory: one
 * entry per tenant holding a place.
 */
final class TenantPlaces {

    /** How long after its last request a tenant still counts as sending, s. */
    static final long ACTIVE_SECONDS = 1;
    private static final long ACTIVE_NANOS = TimeUnit.SECONDS.toNanos(ACTIVE_SECONDS);

    private final Map<String, Integer> held = new HashMap<>();
    /** Whether the queue's last release kept a place free because every tenant waiting was at its limit. */
    boolean placeKept;
    /** The tenant that sent last and when (ns); then the last other tenant to send and when. */
    private String last;
    private long lastNanos;
    private String other;
    private long otherNanos;

    /** A request of {@code tenant} arrived at {@code now} (ns). */
    void seen(String tenant, long now) {
        if (!tenant.equals(last)) {
            other = last;
            otherNanos = lastNanos;
            last = tenant;
        }
        lastNanos = now;
    }

    /** Whether {@code tenant} may take one more place at {@code now}: under {@code limit}, or no other tenant sent lately. */
    boolean hasRoom(String tenant, int limit, long now) {
        if (held.getOrDefault(tenant, 0) < limit) {
            return true;
        }
        boolean othersIsLast = !tenant.equals(last);
        String someoneElse = othersIsLast ? last : other;
        return someoneElse == null || now - (othersIsLast ? lastNanos : otherNanos) > ACTIVE_NANOS;
    }

    /**
     * When a tenant held at its limit may next find room because a sender stops counting as
     * sending ({@value #ACTIVE_SECONDS} s after its last request), ns; {@link Long#MAX_VALUE} when
     * no such moment is ahead of {@code now}.
     */
    long nextActivityEnd(long now) {
        long next = Long.MAX_VALUE;
        if (last != null && lastNanos + ACTIVE_NANOS + 1 - now > 0) {
            next = lastNanos + ACTIVE_NANOS + 1;
        }
        if (other != null && otherNanos + ACTIVE_NANOS + 1 - now > 0 && (next == Long.MAX_VALUE || otherNanos - lastNanos < 0)) {
            next = otherNanos + ACTIVE_NANOS + 1;
        }
        return next;
    }

    void take(String tenant) {
        held.merge(tenant, 1, Integer::sum);
    }

    void give(String tenant) {
        held.computeIfPresent(tenant, (t, n) -> n == 1 ? null : n - 1);
    }
}
