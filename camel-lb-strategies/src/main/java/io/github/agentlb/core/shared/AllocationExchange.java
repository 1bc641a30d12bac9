package io.github.agentlb.core.shared;

/**
 * What a balancer replica needs of a shared store to share its allocation: leadership among the
 * replicas of one balancer id, one versioned value written by compare-and-set, and a way for
 * followers to hand the leader their {@link Observations}. Implemented by
 * a backend (ZooKeeper in {@code camel-lb-zookeeper}); the balancer calls it from its lifecycle
 * and, for {@link #publish}, from the thread that evaluated.
 *
 * <p>Contract: no method blocks on the store's I/O (a request thread may call {@link #publish} and
 * {@link #share});
 * events arrive on the backend's threads, in order per kind.
 */
public interface AllocationExchange extends AutoCloseable {

    /** The replica's side of the exchange: events from the backend. */
    interface Listener {
        /** The stored allocation changed (also its first read); well-formed, not yet validated against members. */
        void allocationChanged(Allocation allocation);

        /** The stored allocation could not be read (corrupt or foreign data); the last good one stays. */
        void allocationUnreadable(String detail);

        /** The stored allocation was deleted (by hand, or its store wiped); the one installed stays. Nothing by default. */
        default void allocationDeleted() {
        }

        /** This replica became the leader ({@code true}) or stopped leading. */
        void leadershipChanged(boolean leader);

        /** The store became reachable ({@code true}) or unreachable. */
        void connectionChanged(boolean connected);

        /**
         * A {@link #publish} finished: written, or rejected because the stored value changed since
         * this replica last read it (a compare-and-set on a stale version) or the store failed.
         */
        void published(Allocation allocation, boolean written, String detail);

        /**
         * While this replica leads: another replica shared what it observed ({@link #share}). Each
         * (replica, sequence) comes at most once; this replica's own shares and sequences not
         * above the last taken from that replica do not come. By default ignored.
         */
        default void observed(Observations observations) {
        }
    }

    /**
     * Joins the store and the leader election. May wait for the connection up to the backend's
     * connect timeout (at route start, never per request); an unreachable store is reported as
     * {@link Listener#connectionChanged(boolean) connectionChanged(false)}, not thrown.
     *
     * @param context the object the backend may need from its host (a {@code CamelContext} for
     *                camel-zookeeper), or null
     */
    void start(Object context, Listener listener) throws Exception;

    /**
     * Writes {@code allocation} if the stored value is still the one this replica last read
     * (compare-and-set); the outcome comes as {@link Listener#published}. Returns at once.
     */
    void publish(Allocation allocation);

    /**
     * A follower's observations for the leader ({@link Listener#observed}): returns at once; the
     * backend may drop them (the store unreachable, or this replica's previous share still being
     * written), as the leader learns from the next. By default dropped.
     */
    default void share(Observations observations) {
    }

    /** This replica's id among the replicas, as {@link Observations#replicaId()}; stable while started. */
    default String replicaId() {
        return "replica-" + Integer.toHexString(System.identityHashCode(this));
    }

    /**
     * The replicas of this balancer id in the election now, this one included; 1 when unknown.
     * The leader evaluates every {@code evaluationWindow / replicas} of its own requests, about
     * {@code evaluationWindow} of all. Never blocks (a cached figure).
     */
    default int replicas() {
        return 1;
    }

    /** A short description for logs and health details, e.g. {@code zookeeper://host:2181/agentlb/proxy}. */
    String describe();

    /** Leaves the election and the store. */
    @Override
    void close();
}
