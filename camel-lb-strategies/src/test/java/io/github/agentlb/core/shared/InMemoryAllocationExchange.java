package io.github.agentlb.core.shared;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@link AllocationExchange} held in memory for tests: it keeps the listener it was started
 * with and, in order, every allocation published and every share of observations, and answers
 * nothing back on its own (a test plays the store through {@link #listener()}). It describes
 * itself as {@code "memory"} and counts its closes; its replica count and id are the interface's
 * defaults unless given.
 */
public class InMemoryAllocationExchange implements AllocationExchange {

    private final List<Allocation> published = new CopyOnWriteArrayList<>();
    private final List<Observations> shared = new CopyOnWriteArrayList<>();
    private final AtomicInteger closes = new AtomicInteger();
    private final int replicas;
    private final String replicaId;
    private volatile Listener listener;

    /** One replica, with the interface's default id. */
    public InMemoryAllocationExchange() {
        this.replicas = AllocationExchange.super.replicas();
        this.replicaId = AllocationExchange.super.replicaId();
    }

    /** {@code replicas} replicas, this one named {@code replicaId}. */
    public InMemoryAllocationExchange(int replicas, String replicaId) {
        this.replicas = replicas;
        this.replicaId = replicaId;
    }

    @Override
    public int replicas() {
        return replicas;
    }

    @Override
    public String replicaId() {
        return replicaId;
    }

    @Override
    public void start(Object context, Listener listener) {
        this.listener = listener;
    }

    /** The listener of the last {@link #start}, or null before it. */
    public Listener listener() {
        return listener;
    }

    @Override
    public void publish(Allocation allocation) {
        published.add(allocation);
    }

    /** Every allocation published so far, oldest first; the live list. */
    public List<Allocation> published() {
        return published;
    }

    @Override
    public void share(Observations observations) {
        shared.add(observations);
    }

    /** Every share of observations so far, oldest first; the live list. */
    public List<Observations> shared() {
        return shared;
    }

    @Override
    public String describe() {
        return "memory";
    }

    @Override
    public void close() {
        closes.incrementAndGet();
    }

    /** How many times {@link #close()} was called. */
    public int closes() {
        return closes.get();
    }
}
