package io.github.agentlb.camel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.support.LifecycleStrategySupport;

/**
 * A balancer's gate and queue for when its agents are full ({@link FlowControl}): the Camel side of
 * {@link FairQueue}. Its gate ({@link QueueGate}, which counts places) lets an exchange through while
 * nobody waits and an agent that can take a request has a place not spoken for; with
 * {@code maxInFlightPerTenant} ({@link TenantPlaces}) its tenant must also be under the limit. Else
 * the exchange waits in the fair queue, holding no thread: {@link #process} returns {@code false} and its callback is called
 * when it is released (an exchange let through completed, another arrived while there is room, an
 * agent joined or was re-admitted, or an agent's rest or ejection ended: the timer wakes for it),
 * expires (a timer armed for the earliest deadline) or leaves ({@link QueuedExchange#leave()}).
 * A released exchange is balanced afresh on the state of that moment, from the reactive executor of
 * the thread that released it (no recursion when children answer synchronously).
 *
 * <p>Over 300 lines: the gate, the queue, its deadline timer and the release share one lock and
 * its fields, and each path (let through, wait, release, expire, leave, stop) must keep
 * the gate and the queue consistent under it.
 *
 * <p>Thread-safe: the fast path (nobody waits, room at the gate) is one CAS (under the lock with a
 * tenant limit, which counts each tenant's places); waiting, release, expiry
 * and leaving take this object's lock, held for queue operations only (callbacks run outside it).
 * A {@code queueSize} changed while exchanges wait takes effect once the queue is empty.
 */
final class RequestQueue {

    /** Runs an exchange's attempts on a state ({@link AttemptContext#run}). */
    interface Dispatcher {
        boolean dispatch(Exchange exchange, AsyncCallback callback, BalancerState state);
    }

    private final LongSupplier clock;
    private final Supplier<BalancerState> states;
    private final Dispatcher dispatcher;
    private final QueueGate gate = new QueueGate();
    /** Exchanges waiting: written under the lock, read without it by the fast path and completions. */
    private final AtomicInteger waiting = new AtomicInteger();
    /** With {@code maxInFlightPerTenant}: the places each tenant holds, under the lock. */
    private final TenantPlaces tenants = new TenantPlaces();
    /** The exchanges waiting, under the lock. */
    private final WaitingLine line = new WaitingLine();
    private final QueueTimer timer = new QueueTimer(this::wake);
    private final LifecycleStrategySupport whenStopping = new LifecycleStrategySupport() {
        @Override
        public void onContextStopping(CamelContext context) {
            draining = true;
            failWaiting();
        }
    };
    private CamelContext stopping;
    /** Set when the context begins to stop: nothing waits any more, it is answered at once. */
    private volatile boolean draining;
    private final QueueCounts counts = new QueueCounts();

    /** @param listeners where it listens for agents that join or are re-admitted, to release the waiting then */
    RequestQueue(LongSupplier clock, Supplier<BalancerState> states, Dispatcher dispatcher, Listeners listeners) {
        this.clock = clock;
        this.states = states;
        this.dispatcher = dispatcher;
        listeners.add((MembershipListener) agents -> capacityMayHaveGrown());
        listeners.add(new HealthListener() {
            @Override
            public void agentReadmitted(String agentId) {
                capacityMayHaveGrown();
            }

            @Override
            public void agentEjected(String agentId, Duration ejectionTime) {
                answerIfNoAgentToTry();
            }
        });
    }

    /** Uses {@code scheduler} for deadlines instead of a thread of its own; for tests, before the first exchange waits. */
    synchronized void useTimer(ScheduledExecutorService scheduler) {
        timer.use(scheduler);
    }

    /**
     * Lets the exchange through the gate, queues it, or refuses it when the queue is full.
     *
     * @return as {@link org.apache.camel.AsyncProcessor#process}: {@code false} while it waits
     */
    boolean process(Exchange exchange, AsyncCallback callback, BalancerState state) {
        FlowControl flow = state.config.flowControl();
        long now = clock.getAsLong();
        String tenant;
        try {
            tenant = flow.tenantOf(exchange); // read for every exchange: a failing expression shows at once, not under load
        } catch (Throwable e) { // a user's expression: even a checked exception thrown sneakily, or an Error
            return QueueAnswers.failed(exchange, callback, e);
        }
        boolean limited = flow.tenantLimited();
        boolean through;
        if (!limited) {
            through = waiting.get() == 0 && gate.tryAdmit(QueueGate.free(state, now));
        } else {
            synchronized (this) {
                tenants.seen(tenant, now);
                through = waiting.get() == 0 && tenants.hasRoom(tenant, flow.maxInFlightPerTenant(), now)
                        && gate.tryAdmit(QueueGate.free(state, now));
                if (through) {
                    tenants.take(tenant);
                }
            }
        }
        if (through) {
            return dispatcher.dispatch(exchange, new QueuePermit(this, exchange, callback, false, null, tenant, limited,
                    now, now + flow.queueTimeout().toNanos()), state);
        }
        if (draining || QueueGate.noAgentToTry(state)) {
            QueueAnswers.noAgentToTry(exchange, draining, state);
            callback.done(true);
            return true;
        }
        WaitingExchange w = new WaitingExchange(this, exchange, callback, now);
        List<WaitingExchange> expiredNow;
        List<WaitingExchange> releasedNow;
        boolean full;
        WaitingExchange displaced = null;
        synchronized (this) {
            expiredNow = expireLocked(now);
            long deadline = now + flow.queueTimeout().toNanos();
            full = !line.offer(w, flow, tenant, deadline, false, false);
            if (full) {
                // A full queue makes room for a tenant less backlogged than another (FairQueue#displaceFor).
                displaced = line.displaceFor(flow.bandOf(exchange), tenant);
                full = displaced == null || !line.offer(w, flow, tenant, deadline, false, false);
                counts.rejectedFull++;
            }
            // Published before the gate is read again: a completion that frees a place after that read
            // then sees someone waiting and releases (no lost wake-up).
            waiting.set(line.size());
            releasedNow = releaseLocked(state, now);
            armLocked(now);
        }
        QueueAnswers.expired(expiredNow, clock.getAsLong());
        dispatch(releasedNow);
        if (displaced != null) {
            QueueAnswers.full(displaced.exchange, flow);
            displaced.callback.done(false);
        }
        if (full) {
            QueueAnswers.full(exchange, flow);
            callback.done(true);
            return true;
        }
        return false;
    }

    /**
     * Sends an exchange let through back to wait: its agent answered busy and no other could take it
     * ({@link QueuePermit#waitAgain}). It gives its place back and waits with the deadline of its first
     * arrival, ahead of its tenant's later arrivals, released as any other (not at once: its place is the
     * one it could not use).
     *
     * @return false, changing nothing, when the queue is off or full, the deadline has passed, or no
     *     agent can take a request (every one rests: the busy answer is the client's)
     */
    boolean waitAgain(QueuePermit permit) {
        BalancerState state = states.get();
        FlowControl flow = state.config.flowControl();
        long now = clock.getAsLong();
        if (!flow.queued() || draining || permit.deadlineNanos - now <= 0 || state.openAgents(now) + state.trialsDue(now) == 0
                || !permit.mayWaitAgain()) {
            return false;
        }
        permit.waitsAgain();
        List<WaitingExchange> expiredNow;
        boolean waits;
        synchronized (this) {
            expiredNow = expireLocked(now);
            waits = line.offer(new WaitingExchange(this, permit.exchange, permit.callback, permit.sinceNanos), flow,
                    permit.tenant, permit.deadlineNanos, true, permit.entry != null);
            if (waits) {
                gate.left(permit);
                if (permit.counted) {
                    tenants.give(permit.tenant);
                }
                waiting.set(line.size());
                armLocked(now);
            }
        }
        QueueAnswers.expired(expiredNow, clock.getAsLong());
        return waits;
    }

    /** The exchange of {@code permit} took an agent's place: its first attempt was sent ({@link QueueGate#placed}). */
    void placed(QueuePermit permit) {
        if (gate.placed(permit)) {
            capacityMayHaveGrown();
        }
    }

    /** An exchange let through completed: its place frees, and the queue's next may go. */
    void completed(QueuePermit permit) {
        gate.left(permit);
        if (permit.counted) {
            synchronized (this) {
                tenants.give(permit.tenant);
            }
        }
        double tokens = permit.entry == null ? 0 : FlowControl.outputTokens(permit.exchange);
        if (tokens > 0) {
            synchronized (this) {
                line.charge(permit.entry, tokens);
            }
        }
        capacityMayHaveGrown();
    }

    /**
     * Agents may take more than before (a place freed, an agent joined or was re-admitted or marked
     * up): the waiting go while there is room. Its rests' and ejections' ends by time are the
     * timer's ({@link #wake}).
     */
    void capacityMayHaveGrown() {
        if (waiting.get() > 0 && !answerIfNoAgentToTry()) {
            List<WaitingExchange> releasedNow;
            synchronized (this) {
                long now = clock.getAsLong();
                releasedNow = releaseLocked(states.get(), now);
                armLocked(now);
            }
            dispatch(releasedNow);
        }
    }

    private List<WaitingExchange> releaseLocked(BalancerState state, long now) {
        List<WaitingExchange> out = List.of();
        int free = QueueGate.free(state, now);
        FlowControl flow = state.config.flowControl();
        tenants.placeKept = false;
        while (line.size() > 0 && gate.tryAdmit(free)) {
            WaitingExchange w = line.poll(flow.tenantLimited() ? t -> tenants.hasRoom(t, flow.maxInFlightPerTenant(), now) : null);
            if (w == null) {
                // Every tenant waiting is at its limit: the place stays free for another tenant, until
                // the other tenants stop sending (the timer wakes then, armLocked).
                gate.unused();
                tenants.placeKept = true;
                break;
            }
            if (flow.tenantLimited()) {
                w.tenant = w.entry.tenant();
                tenants.take(w.tenant);
            }
            long waited = now - w.sinceNanos;
            counts.released(waited);
            if (out.isEmpty()) {
                out = new ArrayList<>(2);
            }
            out.add(w);
        }
        waiting.set(line.size());
        return out;
    }

    /**
     * When no agent is left to try ({@link QueueGate#noAgentToTry}), answers the exchanges waiting
     * (counted as expired): the queue waits for agents that are full or resting, not for failing
     * ones. Asked when an agent is ejected or marked down and before a release.
     *
     * @return whether it answered them
     */
    private boolean answerIfNoAgentToTry() {
        BalancerState state = states.get();
        if (waiting.get() == 0 || !QueueGate.noAgentToTry(state)) {
            return false;
        }
        List<WaitingExchange> out;
        synchronized (this) {
            out = line.pollAll();
            waiting.set(0);
            counts.expired += out.size();
        }
        QueueAnswers.noAgentToTry(out, state);
        return true;
    }

    private List<WaitingExchange> expireLocked(long now) {
        List<WaitingExchange> out = line.expire(now);
        counts.expired += out.size();
        waiting.set(line.size());
        return out;
    }

    /**
     * Arms the timer for the earliest deadline, or the earlier end of an agent's rest or ejection
     * while exchanges wait ({@link BalancerState#nextOpeningNanos}), or of another tenant's sending
     * while a place is kept free for it ({@link TenantPlaces#nextActivityEnd}).
     */
    private void armLocked(long now) {
        timer.arm(line.nextDeadline(), now); // the timer keeps the earliest instant it is armed for
        if (line.size() > 0) {
            timer.arm(states.get().nextOpeningNanos(now), now);
            if (tenants.placeKept) {
                timer.arm(tenants.nextActivityEnd(now), now);
            }
        }
    }

    /** The timer fired: the waiting whose deadline passed expire, and the others go if agents opened. */
    private void wake() {
        List<WaitingExchange> expiredNow;
        List<WaitingExchange> releasedNow;
        synchronized (this) {
            timer.fired();
            long now = clock.getAsLong();
            expiredNow = expireLocked(now);
            releasedNow = line.size() == 0 ? List.of() : releaseLocked(states.get(), now);
            armLocked(now);
        }
        QueueAnswers.expired(expiredNow, clock.getAsLong());
        dispatch(releasedNow);
    }

    private void dispatch(List<WaitingExchange> releasedNow) {
        for (WaitingExchange w : releasedNow) {
            QueuePermit permit = new QueuePermit(this, w.exchange, w.callback, true, w.entry, w.entry.tenant(),
                    w.tenant != null, w.sinceNanos, w.entry.deadlineNanos());
            w.exchange.getContext().getCamelContextExtension().getReactiveExecutor()
                    .schedule(() -> dispatcher.dispatch(w.exchange, permit, states.get()));
        }
    }

    /** {@link QueuedExchange#leave()} of {@code w}. */
    boolean leave(WaitingExchange w) {
        synchronized (this) {
            if (!line.remove(w)) {
                return false;
            }
            counts.left++;
            waiting.set(line.size());
        }
        QueueAnswers.left(w);
        return true;
    }

    /**
     * Fails the exchanges waiting as soon as {@code context} begins to stop, as {@link #stop} does:
     * they have reached no agent, and their clients get the answer (503, another replica may serve
     * them) while their connections are still open, not when the shutdown timeout ends.
     */
    void start(CamelContext context) {
        draining = false;
        stopping = context;
        context.addLifecycleStrategy(whenStopping);
    }

    /** Fails every exchange still waiting (the balancer stops) and stops the timer it made. */
    void stop() {
        if (stopping != null) {
            stopping.getLifecycleStrategies().remove(whenStopping);
            stopping = null;
        }
        failWaiting();
    }

    private void failWaiting() {
        List<WaitingExchange> out;
        synchronized (this) {
            out = line.pollAll();
            waiting.set(0);
            timer.stop();
        }
        QueueAnswers.stopped(out);
    }

    /** The figures, the capacity {@code flow}'s while nothing waits. */
    synchronized QueueFigures figures(FlowControl flow) {
        return line.figures(counts, gate.through(), flow);
    }
}
