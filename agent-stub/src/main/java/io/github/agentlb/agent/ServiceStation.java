package io.github.agentlb.agent;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A queueing station with {@code capacity} servers and an unbounded FIFO queue (an M/G/c
 * queue in Kendall's notation): a request is served at once while fewer than
 * {@code capacity} are in service, otherwise it waits; the completion of one request starts
 * the next waiting one. Its service delay is chosen when its service starts, not on arrival.
 *
 * <h2>Reported load</h2>
 * Each answer carries the station's utilization averaged over time, not counted at the
 * instant of the answer: an exponentially weighted moving average of {@code n(t)} = requests in
 * service + queued, with time constant {@link #LOAD_TIME_CONSTANT}, integrated exactly between
 * changes of {@code n} (it is constant in between):
 * <pre>
 *   avg(t + dt) = n + (avg(t) - n) * exp(-dt / tau)
 * </pre>
 * Why: a count taken when a request is answered samples {@code n} at departures, and that is
 * not the time average a utilization means, by an amount that differs between a small and a
 * large station. Measured on the load generator's heterogeneous scenario (capacities 6, 6, 3)
 * behind the PID balancer, which averages the reports of each control period: with the count
 * including the answered request the small agent ended 0.09 to 0.12 of utilization below the
 * others, with the count excluding it 0.05 to 0.11 above them, with this average 0.00 to 0.05
 * below (utilization max/mean 1.05 to 1.11 against 1.01 to 1.03; 3 to 6 runs each at 250 ms
 * and 1 s control periods). Robinhood's agents (Dropbox, 2024) likewise report a smoothed
 * load. {@link #load()} stays the count at the instant, for a sampler that averages it itself.
 *
 * <p>Nothing blocks: waiting is a {@link DelayScheduler} task, queueing an entry in a deque.
 * Thread-safe: counters and queue are guarded by one monitor held only for O(1) updates, never
 * while calling the scheduler or a {@link Customer}.
 */
public final class ServiceStation {

    /**
     * Time constant of the reported load's moving average: 250 ms, about 2.5 mean service times
     * of the default 50-150 ms delays, short enough to follow a balancer's 1 s control period.
     */
    public static final Duration LOAD_TIME_CONSTANT = Duration.ofMillis(250);

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
    private final LongSupplier nanoClock;
    private final double timeConstantNanos = LOAD_TIME_CONSTANT.toNanos();
    private int inService;
    private double averageInSystem;
    private long averagedUntilNanos;

    /**
     * A station timed by {@link System#nanoTime()}.
     *
     * @param config capacity and load model parameters
     * @param delays chooser of each request's service delay
     * @param scheduler runs each completion after its delay
     */
    public ServiceStation(AgentConfig config, DelayChooser delays, DelayScheduler scheduler) {
        this(config, delays, scheduler, System::nanoTime);
    }

    /**
     * @param config capacity and load model parameters
     * @param delays chooser of each request's service delay
     * @param scheduler runs each completion after its delay
     * @param nanoClock monotonic clock, ns, for the reported load's time average
     */
    public ServiceStation(AgentConfig config, DelayChooser delays, DelayScheduler scheduler, LongSupplier nanoClock) {
        this.config = Objects.requireNonNull(config, "config");
        this.delays = Objects.requireNonNull(delays, "delays");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.averagedUntilNanos = nanoClock.getAsLong();
    }

    /** Admits a request: starts its service, or queues it when all servers are busy. */
    public void submit(Customer customer) {
        Objects.requireNonNull(customer, "customer");
        synchronized (lock) {
            advanceAverage();
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

    /**
     * The load an answer reports: counts now, utilization and CPU averaged over time (see the
     * class comment).
     */
    public LoadSnapshot reportedLoad() {
        synchronized (lock) {
            advanceAverage();
            return LoadSnapshot.of(inService, waiting.size(), averageInSystem, config);
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
        // Taken before the server is released: the average runs up to the end of this service.
        LoadSnapshot load = reportedLoad();
        try {
            customer.served(load);
        } finally {
            releaseServer();
        }
    }

    /** Brings the time average up to now; called under the lock before {@code n} changes. */
    private void advanceAverage() {
        long now = nanoClock.getAsLong();
        long elapsed = now - averagedUntilNanos;
        if (elapsed > 0) {
            double inSystem = inService + waiting.size();
            averageInSystem = inSystem + (averageInSystem - inSystem) * Math.exp(-elapsed / timeConstantNanos);
            averagedUntilNanos = now;
        }
    }

    /** Hands the freed server to the next waiting request, or frees it. */
    private void releaseServer() {
        // A loop, not recursion: when the scheduler rejects, the whole queue drains here.
        while (true) {
            Customer next;
            synchronized (lock) {
                advanceAverage();
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
