package io.github.agentlb.agent.llm;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One agent's model of an LLM server: a {@link PrefixCache} (when {@link LlmShape#cacheEnabled()}),
 * at most {@link LlmShape#maxRunning()} requests generating at once and a FIFO queue of at most
 * {@link LlmShape#maxQueue()} waiting ones, and the counters a load test reads.
 *
 * <p>A request {@link #offer offers} its prompt blocks with a callback. When a slot is free it is
 * admitted at once: the cache is looked up and filled (at admission, as vLLM's scheduler does)
 * and the callback gets its {@link Admission}, with the time to first token
 * {@code baseFirstTokenNanos + shape.prefillNanos(uncached blocks)}. Otherwise it waits in the
 * queue and is admitted by the {@link #finish} of a running request, in arrival order; when the
 * queue is full the offer is refused and the caller answers 429. Nothing waits on a thread: the
 * callback runs on the thread that admits (the offering one, or the one that calls finish),
 * outside the model's lock, and must only hand the work on (e.g. to the connection's event loop).
 *
 * <p>The agent-side time to first token of a request is its wait in the queue (offer to
 * admission, on the model's clock) plus its computed {@link Admission#firstTokenNanos()}: what a
 * client next to the agent would see, without the network, the proxy or the client's own delays.
 * The model keeps the last {@value #FIRST_TOKEN_SAMPLES} of them ({@link #agentFirstTokenNanos()}).
 *
 * <p>Thread-safe: every method takes the model's lock for O(prompt blocks) at most.
 */
public final class LlmModel {

    /** {@code Retry-After} of a refused request, s. */
    public static final int RETRY_AFTER_SECONDS = 1;
    /** Agent-side times to first token kept, the most recent ones. */
    public static final int FIRST_TOKEN_SAMPLES = 1 << 16;

    /**
     * What admission decided for one request.
     *
     * @param promptBlocks    full blocks of the prompt
     * @param cachedBlocks    leading blocks found in the cache, 0..promptBlocks (0 without a cache)
     * @param firstTokenNanos time from admission to the first token, ns
     */
    public record Admission(int promptBlocks, int cachedBlocks, long firstTokenNanos) {
    }

    /** A snapshot of the load, as ORCA reports it. */
    public record Load(double kvCacheUsagePerc, int waiting, int running) {
    }

    /**
     * The model's counters since it was made, all read at one moment ({@link #counters()}).
     * Immutable.
     *
     * @param admitted             requests admitted
     * @param refused              requests refused because the queue was full
     * @param maxRunning           most requests ever generating at once
     * @param maxWaiting           most requests ever waiting at once
     * @param promptBlocks         full prompt blocks of the requests admitted
     * @param cachedBlocks         of {@code promptBlocks}, those found in the cache
     * @param firstTokenNanosTotal sum of the admitted requests' times to first token as computed, ns
     *                             (queueing excluded, see {@code queueNanosTotal})
     * @param queueNanosTotal      sum of the admitted requests' waits in the queue, offer to admission, ns
     */
    public record Counters(long admitted, long refused, int maxRunning, int maxWaiting, long promptBlocks,
                           long cachedBlocks, long firstTokenNanosTotal, long queueNanosTotal) {

        /** {@link #cachedBlocks()} / {@link #promptBlocks()}, 0 when no block was admitted. */
        public double cacheHitRate() {
            return promptBlocks == 0 ? 0 : (double) cachedBlocks / promptBlocks;
        }
    }

    /** One request's place in the model; {@link #finish} it exactly when the answer ends or the caller leaves. */
    public final class Ticket {
        private final long[] hashes;
        private final Consumer<Admission> onAdmit;
        private final long offeredNanos;
        private State state = State.WAITING;

        private Ticket(long[] hashes, Consumer<Admission> onAdmit, long offeredNanos) {
            this.hashes = hashes;
            this.onAdmit = onAdmit;
            this.offeredNanos = offeredNanos;
        }
    }

    private enum State { WAITING, RUNNING, DONE }

    private final LlmShape shape;
    private final long baseFirstTokenNanos;
    private final PrefixCache cache;
    private final LongSupplier clock;
    /** Ring of the last {@link #FIRST_TOKEN_SAMPLES} agent-side times to first token, ns. */
    private final long[] agentFirstToken = new long[FIRST_TOKEN_SAMPLES];
    private long queueNanosTotal;
    private final Deque<Ticket> waiting = new ArrayDeque<>();
    /** The cache blocks the running requests hold, each with how many hold it: the KV cache in use. */
    private final Map<Long, Integer> held = new HashMap<>();
    private int running;
    private int maxWaiting;
    private int maxRunning;
    private long admitted;
    private long refused;
    private long promptBlocks;
    private long cachedBlocks;
    private long firstTokenNanosTotal;
    private Admission lastAdmission;

    /**
     * @param shape               the model's knobs
     * @param baseFirstTokenNanos time to first token of a prompt entirely cached, ns, &gt;= 0
     * @throws IllegalArgumentException if baseFirstTokenNanos is negative
     */
    public LlmModel(LlmShape shape, long baseFirstTokenNanos) {
        this(shape, baseFirstTokenNanos, System::nanoTime);
    }

    /**
     * As {@link #LlmModel(LlmShape, long)} with the clock that times the queue wait.
     *
     * @param clock monotonic nanoseconds, e.g. {@code System::nanoTime}
     */
    public LlmModel(LlmShape shape, long baseFirstTokenNanos, LongSupplier clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.shape = Objects.requireNonNull(shape, "shape");
        if (baseFirstTokenNanos < 0) {
            throw new IllegalArgumentException("baseFirstTokenNanos must be >= 0, was " + baseFirstTokenNanos);
        }
        this.baseFirstTokenNanos = baseFirstTokenNanos;
        this.cache = shape.cacheEnabled() ? new PrefixCache(shape.blockChars(), shape.cacheBlocks()) : null;
    }

    /** The knobs. */
    public LlmShape shape() {
        return shape;
    }

    /** The block hashes of a prompt's canonical text, cut by this model's block size. */
    public long[] blocksOf(String promptText) {
        return PrefixCache.blockHashes(promptText, shape.blockChars());
    }

    /**
     * Offers a request. When admitted at once, {@code onAdmit} runs before this returns.
     *
     * @param hashes  the prompt's {@link #blocksOf block hashes}
     * @param onAdmit called once, on admission, outside the lock
     * @return the request's ticket, or null when refused (the queue is full)
     */
    public Ticket offer(long[] hashes, Consumer<Admission> onAdmit) {
        Ticket ticket = new Ticket(hashes.clone(), Objects.requireNonNull(onAdmit, "onAdmit"), clock.getAsLong());
        Admission admission;
        synchronized (this) {
            if (!shape.limited() || running < shape.maxRunning()) {
                admission = admit(ticket);
            } else if (waiting.size() < shape.maxQueue()) {
                waiting.addLast(ticket);
                maxWaiting = Math.max(maxWaiting, waiting.size());
                return ticket;
            } else {
                refused++;
                return null;
            }
        }
        ticket.onAdmit.accept(admission);
        return ticket;
    }

    /**
     * Ends a request: frees its slot (admitting the head of the queue, whose callback runs on this
     * thread) or takes it out of the queue. Idempotent; null is ignored.
     */
    public void finish(Ticket ticket) {
        if (ticket == null) {
            return;
        }
        Ticket next = null;
        Admission admission = null;
        synchronized (this) {
            if (ticket.state == State.WAITING) {
                waiting.remove(ticket);
            } else if (ticket.state == State.RUNNING) {
                running--;
                if (cache != null) {
                    for (long hash : ticket.hashes) {
                        held.computeIfPresent(hash, (h, n) -> n == 1 ? null : n - 1);
                    }
                }
                next = waiting.pollFirst();
                if (next != null) {
                    admission = admit(next);
                }
            }
            ticket.state = State.DONE;
        }
        if (next != null) {
            next.onAdmit.accept(admission);
        }
    }

    private Admission admit(Ticket ticket) {
        ticket.state = State.RUNNING;
        running++;
        maxRunning = Math.max(maxRunning, running);
        int hit = cache == null ? 0 : cache.admit(ticket.hashes);
        if (cache != null) {
            for (long hash : ticket.hashes) {
                held.merge(hash, 1, Integer::sum);
            }
        }
        Admission admission = new Admission(ticket.hashes.length, hit,
                baseFirstTokenNanos + shape.prefillNanos(ticket.hashes.length - hit));
        admitted++;
        promptBlocks += ticket.hashes.length;
        cachedBlocks += hit;
        firstTokenNanosTotal += admission.firstTokenNanos();
        long queued = Math.max(0, clock.getAsLong() - ticket.offeredNanos);
        queueNanosTotal += queued;
        agentFirstToken[(int) ((admitted - 1) % FIRST_TOKEN_SAMPLES)] = queued + admission.firstTokenNanos();
        lastAdmission = admission;
        return admission;
    }

    /**
     * The load now: the KV cache in use, the distinct blocks the running requests hold / capacity
     * (at most 1; 0 without a cache: cached blocks no request holds are free, as vLLM's block pool
     * counts them), queue length, requests running.
     */
    public synchronized Load load() {
        return new Load(cache == null ? 0 : Math.min(1.0, (double) held.size() / shape.cacheBlocks()), waiting.size(), running);
    }

    /** Requests generating now. */
    public synchronized int running() {
        return running;
    }

    /** Requests waiting for a slot now. */
    public synchronized int waiting() {
        return waiting.size();
    }

    /** The counters, all read at this moment. */
    public synchronized Counters counters() {
        return new Counters(admitted, refused, maxRunning, maxWaiting, promptBlocks, cachedBlocks,
                firstTokenNanosTotal, queueNanosTotal);
    }

    /**
     * The agent-side times to first token (queue wait + computed time to first token) of the last
     * {@link #FIRST_TOKEN_SAMPLES} admitted requests at most, ns, oldest first. O(samples).
     */
    public synchronized long[] agentFirstTokenNanos() {
        int n = (int) Math.min(admitted, FIRST_TOKEN_SAMPLES);
        if (admitted <= FIRST_TOKEN_SAMPLES) {
            return Arrays.copyOf(agentFirstToken, n);
        }
        int start = (int) (admitted % FIRST_TOKEN_SAMPLES);
        long[] out = new long[n];
        System.arraycopy(agentFirstToken, start, out, 0, n - start);
        System.arraycopy(agentFirstToken, 0, out, n - start, start);
        return out;
    }

    /** The last admission, or null before the first. */
    public synchronized Admission lastAdmission() {
        return lastAdmission;
    }
}
