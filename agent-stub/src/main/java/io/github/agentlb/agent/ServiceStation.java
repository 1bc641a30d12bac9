package io.github.agentlb.agent;

import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A queueing station with {@code capacity} servers and an unbounded FIFO queue (an M/G/c
 * queue in Kendall's notation): a request is served at once while fewer than
 * {@code capacity} are in service, otherwise it waits; the completion of one request starts
 * the next waiting one. Its service delay is chosen when its service starts, not on arrival.
 *
 * <p>Nothing blocks: waiting is a {@link DelayScheduler} task, queueing an entry in a deque.
 * Thread-safe: counters and queue are guarded by one monitor held only for O(1) updates, never
 * while calling the scheduler or a {@link Customer}.
 */
public final class ServiceStation {

    /** Receives the outcome of one request: exactly one of the two methods is called, once. */
    public interface Customer {

        /**
         * The service delay is over; called on the scheduler's thread.
         *
         * @param load the station's load at this instant, counting this request as in service
         */
        void served(LoadSnapshot load);

        /** The request could not be scheduled (the station is stopping). */
        void rejected(RuntimeException cause);
    }

    private final AgentConfig config;
    private final DelayChooser delays;
    private final DelayScheduler scheduler;
    private final Object lock = new Object();
    private final ArrayDeque<Customer> waiting = new ArrayDeque<>();
    private int inService;

    /**
     * @param config capacity and load model parameters
     * @param delays chooser of each request's service delay
     * @param scheduler runs each completion after its delay
     */
    public ServiceStation(AgentConfig config, DelayChooser delays, DelayScheduler scheduler) {
        this.config = Objects.requireNonNull(config, "config");
        this.delays = Objects.requireNonNull(delays, "delays");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /** Admits a request: starts its service, or queues it when all servers are busy. */
    public void submit(Customer customer) {
        Objects.requireNonNull(customer, "customer");
        synchronized (lock) {
            if (!config.unlimitedCapacity() && inService >= config.capacity()) {
                waiting.addLast(customer);
                return;
            }
            inService++;
        }
        if (!startService(customer)) {
            releaseServer();
        }
    }

    /** The current load, not counting any request being answered. */
    public LoadSnapshot load() {
        synchronized (lock) {
            return LoadSnapshot.of(inService, waiting.size(), config);
        }
    }

    /** Requests in service now. */
    public int inService() {
        synchronized (lock) {
            return inService;
        }
    }

    /** Requests waiting for a server now. */
    public int queued() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    private boolean startService(Customer customer) {
        try {
            scheduler.schedule(() -> complete(customer), delays.nextDelayNanos());
            return true;
        } catch (RuntimeException e) {
            customer.rejected(e);
            return false;
        }
    }

    private void complete(Customer customer) {
        // Measured before the server is released, so the answer counts its own request.
        LoadSnapshot load = load();
        try {
            customer.served(load);
        } finally {
            releaseServer();
        }
    }

    /** Hands the freed server to the next waiting request, or frees it. */
    private void releaseServer() {
        // A loop, not recursion: when the scheduler rejects, the whole queue drains here.
        while (true) {
            Customer next;
            synchronized (lock) {
                next = waiting.pollFirst();
                if (next == null) {
                    inService--;
                    return;
                }
            }
            if (startService(next)) {
                return;
            }
        }
    }
}
