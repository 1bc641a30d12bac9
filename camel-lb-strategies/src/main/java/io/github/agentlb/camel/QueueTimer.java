package io.github.agentlb.camel;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link RequestQueue}'s one wake-up: armed for the earliest moment something may change for
 * the exchanges waiting (a deadline, an agent's rest or ejection ending), re-armed only for an
 * earlier one. Its thread ({@code agentlb-queue-deadlines}, a daemon) is made at the first arming
 * unless a scheduler was given. Guarded by the queue's lock; not thread-safe.
 */
final class QueueTimer {

    private final Runnable wake;
    private ScheduledExecutorService scheduler;
    private boolean own;
    private ScheduledFuture<?> armed;
    private long armedFor;

    /** @param wake what runs when the timer fires (it takes the queue's lock and arms again as needed) */
    QueueTimer(Runnable wake) {
        this.wake = wake;
    }

    /** Uses {@code given} instead of a thread of its own; for tests, before the first arming. */
    void use(ScheduledExecutorService given) {
        scheduler = given;
        own = false;
    }

    /** Arms for {@code at} (ns, the queue's clock; {@code Long.MAX_VALUE}: nothing) unless armed at or before it. */
    void arm(long at, long now) {
        if (at == Long.MAX_VALUE || armed != null && armedFor - at <= 0) {
            return;
        }
        if (armed != null) {
            armed.cancel(false);
        }
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "agentlb-queue-deadlines");
                t.setDaemon(true);
                return t;
            });
            own = true;
        }
        armedFor = at;
        armed = scheduler.schedule(wake, Math.max(0, at - now), TimeUnit.NANOSECONDS);
    }

    /** The timer fired: nothing is armed now. */
    void fired() {
        armed = null;
    }

    /** Cancels the arming, and stops the thread it made. */
    void stop() {
        if (armed != null) {
            armed.cancel(false);
            armed = null;
        }
        if (own && scheduler != null) {
            scheduler.shutdownNow();
        }
        if (own) {
            scheduler = null;
        }
    }
}
