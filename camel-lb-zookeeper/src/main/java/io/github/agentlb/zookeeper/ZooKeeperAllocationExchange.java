package io.github.agentlb.zookeeper;

import io.github.agentlb.core.shared.Allocation;
import io.github.agentlb.core.shared.AllocationExchange;
import io.github.agentlb.core.shared.Observations;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.cluster.CamelClusterEventListener;
import org.apache.camel.cluster.CamelClusterMember;
import org.apache.camel.cluster.CamelClusterView;
import org.apache.camel.component.zookeeper.ZooKeeperCuratorConfiguration;
import org.apache.camel.component.zookeeper.cluster.ZooKeeperClusterService;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link AllocationExchange} over ZooKeeper, with no protocol of its own: leadership is
 * camel-zookeeper's {@link ZooKeeperClusterService} (a Curator {@code LeaderSelector}) on
 * {@code <basePath>/<balancerId>/leader}; the allocation is the znode
 * {@code <basePath>/<balancerId>/allocation} ({@link AllocationCodec}), watched by a Curator
 * {@link CuratorCache} and written with {@code setData().withVersion(v)}, {@code v} the version this
 * replica last read: a writer that has not seen the latest value (a deposed leader) is rejected by
 * ZooKeeper ({@code BADVERSION}). Writes run in Curator's background; nothing here blocks a caller
 * on ZooKeeper's I/O.
 *
 * <p>Observations: a follower writes its latest {@link #share shared} observations to its own
 * ephemeral znode {@code <basePath>/<balancerId>/observations/<replicaId>} ({@link ObservationsCodec}),
 * in Curator's background; a share is dropped (and counted) while the replica's previous write is
 * still in flight or ZooKeeper is unreachable. Every replica watches {@code observations} with a
 * {@link CuratorCache}; while it leads, it hands each other replica's new sequence once to
 * {@link Listener#observed}; its own znode, sequences not above the last taken and unreadable
 * znodes (one WARN each) are skipped.
 *
 * <p>Built by {@link ZooKeeperSharedAllocation}; started and closed by the balancer.
 *
 * <p>Over 300 lines: the election, the allocation's watch and compare-and-set, and the
 * observations' writes and watch share one Curator client and its connection events; the znodes'
 * text is in the codecs.
 */
public final class ZooKeeperAllocationExchange implements AllocationExchange {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.agentlb.shared");
    /** The znode's version when it does not exist. */
    static final int ABSENT = -1;
    /** How long {@link #close} waits for ZooKeeper to be left. */
    static final Duration LEAVE_WAIT = Duration.ofSeconds(3);

    private final String connectString;
    private final String root;
    private final Duration sessionTimeout;
    private final Duration connectTimeout;
    /** The allocation znode's version this replica last saw, and the znode's creation (czxid) it belongs to. */
    private final Object versionLock = new Object();
    private int lastSeenVersion = ABSENT;
    private long lastSeenCzxid = -1;
    private ZooKeeperClusterService service;
    private volatile CuratorFramework client;
    private CuratorCache cache;
    private CuratorCache participants;
    private final AtomicInteger replicas = new AtomicInteger(1);
    private CamelClusterView view;
    private volatile Listener listener;
    private final String replicaId;
    private CuratorCache observations;
    private volatile boolean connected;
    private volatile boolean leading;
    /** A join of the election failed: the service's cached view must be restarted once joined. */
    private volatile boolean joinFailed;
    private final AtomicBoolean sharing = new AtomicBoolean();
    private final AtomicLong sharesWritten = new AtomicLong();
    private final AtomicLong sharesDropped = new AtomicLong();
    private final Map<String, Long> lastSequence = new ConcurrentHashMap<>();
    private final Set<String> unreadable = ConcurrentHashMap.newKeySet();

    ZooKeeperAllocationExchange(String connectString, String basePath, String balancerId, Duration sessionTimeout,
                                Duration connectTimeout) {
        this.connectString = connectString;
        this.root = (basePath.endsWith("/") ? basePath : basePath + "/") + balancerId;
        this.sessionTimeout = sessionTimeout;
        this.connectTimeout = connectTimeout;
        this.replicaId = balancerId + "-" + UUID.randomUUID();
    }

    /** The parent of the replicas' observations znodes, {@code <basePath>/<balancerId>/observations}. */
    public String observationsPath() {
        return root + "/observations";
    }

    /** This replica's id: its observations znode's name and its id in the election. */
    @Override
    public String replicaId() {
        return replicaId;
    }

    /** The allocation znode's path, {@code <basePath>/<balancerId>/allocation}. */
    public String allocationPath() {
        return root + "/allocation";
    }

    @Override
    public String describe() {
        return "zookeeper://" + connectString + root;
    }

    /** @param context the balancer's {@link CamelContext}, which the cluster service runs in */
    @Override
    public synchronized void start(Object context, Listener eventListener) throws Exception {
        if (!(context instanceof CamelContext camelContext)) {
            throw new IllegalArgumentException("ZooKeeper shared allocation needs the balancer's CamelContext, was " + context);
        }
        this.listener = Objects.requireNonNull(eventListener, "listener");
        // Our own client, handed to the cluster service: one session for leadership and the znode.
        client = CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs((int) sessionTimeout.toMillis()).connectionTimeoutMs((int) connectTimeout.toMillis())
                .retryPolicy(new BoundedExponentialBackoffRetry(100, 1000, 5)).build();
        client.getConnectionStateListenable().addListener((c, state) -> connection(state));
        client.start();
        service = new ZooKeeperClusterService(new ZooKeeperCuratorConfiguration());
        service.setId(replicaId);
        service.setCuratorFramework(client);
        service.setBasePath(root);
        service.setCamelContext(camelContext);
        service.start();
        cache = CuratorCache.build(client, allocationPath(), CuratorCache.Options.SINGLE_NODE_CACHE);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forCreatesAndChanges((before, after) -> read(after))
                .forDeletes(gone -> {
                    seen(ABSENT, -1);
                    listener.allocationDeleted();
                })
                .build());
        cache.start();
        // The election's participants (one lock znode per replica under the view's path) are the replicas.
        String election = root + "/leader";
        participants = CuratorCache.build(client, election);
        participants.listenable().addListener((type, before, after) -> replicas.set(
                Math.max(1, (int) participants.stream().filter(d -> !d.getPath().equals(election)).count())));
        participants.start();
        observations = CuratorCache.build(client, observationsPath());
        observations.listenable().addListener(CuratorCacheListener.builder()
                .forCreatesAndChanges((before, after) -> observed(after)).build());
        observations.start();
        // ZooKeeper unreachable at start (refused, or a port that does not speak ZooKeeper): the
        // route starts after the connect timeout at most and routes on its start-up ring; the
        // election is joined once the connection comes (connection()). Joining without a session
        // would block the start for the client's retries (15 s refused, 1.5 min on a silent port).
        if (!client.blockUntilConnected((int) connectTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.warn("Shared allocation: {} unreachable at start (no session within {} ms): routing on the start-up"
                    + " ring, joining when it is reachable", describe(), connectTimeout.toMillis());
        } else {
            try {
                joinElection();
            } catch (Exception e) {
                joinFailed = true;
                LOG.warn("Shared allocation: {} unreachable at start ({}): routing on the start-up ring, joining when"
                        + " it is reachable", describe(), rootCause(e));
            }
        }
        if (client.getZookeeperClient().isConnected()) {
            connected = true;
            listener.connectionChanged(true);
        }
    }

    /**
     * A version of the allocation znode seen (read, or written by this replica): the highest of one
     * znode's versions counts, since the cache's event for a version can come after this replica's
     * own write of the next one was answered; a znode created anew (another czxid, as when it was
     * deleted and created again while this replica was away) starts again from its own version.
     * {@code czxid} -1 with {@link #ABSENT}: the znode is gone.
     */
    private void seen(int version, long czxid) {
        synchronized (versionLock) {
            if (czxid != lastSeenCzxid || version == ABSENT) {
                lastSeenCzxid = czxid;
                lastSeenVersion = version;
            } else {
                lastSeenVersion = Math.max(lastSeenVersion, version);
            }
        }
    }

    private int lastSeenVersion() {
        synchronized (versionLock) {
            return lastSeenVersion;
        }
    }

    private long lastSeenCzxid() {
        synchronized (versionLock) {
            return lastSeenCzxid;
        }
    }

    /**
     * Takes the view of the election and listens to it; throws while ZooKeeper is unreachable.
     *
     * @return true if this call joined, false if this replica had joined already
     */
    private synchronized boolean joinElection() throws Exception {
        if (view != null) {
            return false;
        }
        CamelClusterView joined = service.getView("leader");
        joined.addEventListener((CamelClusterEventListener.Leadership) (v, leader) -> {
            // camel-zookeeper 4.18 fires this with its local member when the selector takes the
            // leadership, and with whoever ZooKeeper names (possibly this replica's stale lock
            // znode, a remote member object) when it gives it up: only the former means leading.
            leading = leader != null && leader == v.getLocalMember();
            listener.leadershipChanged(leading);
        });
        view = joined;
        LOG.info("Shared allocation: joined {} as {}", describe(), service.getId());
        return true;
    }

    private static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }

    private void connection(ConnectionState state) {
        Listener l = listener;
        connected = state.isConnected();
        if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
            leading = false;
            l.leadershipChanged(false);
        }
        if (state == ConnectionState.RECONNECTED) {
            LOG.info("Shared allocation: {} reachable again; observations shared {}, dropped {}", describe(),
                    sharesWritten.get(), sharesDropped.get());
            rejoinElection();
        }
        if (state.isConnected() && view == null) {
            try {
                // The view whose first start failed (ZooKeeper away) is the service's cached one:
                // restarting it queues its leader selector. Not when start() joined meanwhile (the
                // first connection's event can come after it), nor for a view started now: that
                // would give up a fresh leadership.
                if (joinElection() && joinFailed) {
                    joinFailed = false;
                    rejoinElection();
                }
            } catch (Exception e) {
                joinFailed = true;
                LOG.info("Shared allocation: could not join the election of {} yet: {}", describe(), rootCause(e));
            }
        }
        l.connectionChanged(state.isConnected());
    }

    /**
     * Curator's {@code LeaderSelector} gives up leadership on a suspended connection, and
     * camel-zookeeper 4.18 does not requeue it (no auto-requeue): without this, a ZooKeeper outage
     * would leave the replicas with no leader. Restarting the view requeues its selector (a no-op
     * for one still queued).
     */
    private synchronized void rejoinElection() {
        CamelClusterView v = view;
        if (v == null) {
            return;
        }
        try {
            v.stop();
            v.start();
        } catch (RuntimeException e) {
            LOG.info("Shared allocation: could not rejoin the election of {}: {}", describe(), e.toString());
        }
    }

    private void read(ChildData data) {
        seen(data.getStat().getVersion(), data.getStat().getCzxid());
        Allocation allocation;
        try {
            allocation = AllocationCodec.decode(data.getData());
        } catch (IllegalArgumentException e) {
            listener.allocationUnreadable(allocationPath() + " version " + data.getStat().getVersion() + ": " + e.getMessage());
            return;
        }
        listener.allocationChanged(allocation);
    }

    /** An observations znode created or changed: the leader takes another replica's new sequence once. */
    private void observed(ChildData data) {
        String path = data.getPath();
        if (!observationsPath().equals(ZKPaths.getPathAndNode(path).getPath())) {
            return;
        }
        String name = ZKPaths.getNodeFromPath(path);
        if (name.equals(replicaId)) {
            return;
        }
        Observations o;
        try {
            o = ObservationsCodec.decode(data.getData());
            if (!o.replicaId().equals(name)) {
                throw new IllegalArgumentException("replica " + o.replicaId() + " differs from the znode's name");
            }
        } catch (IllegalArgumentException e) {
            if (unreadable.add(path)) {
                LOG.warn("Shared allocation: ignoring unreadable observations {} version {}: {}", path,
                        data.getStat() == null ? "?" : data.getStat().getVersion(), e.getMessage());
            }
            return;
        }
        unreadable.remove(path);
        long last = lastSequence.getOrDefault(name, 0L);
        if (o.sequence() <= last) {
            return;
        }
        lastSequence.put(name, o.sequence());
        if (leading) {
            listener.observed(o);
        }
    }

    /**
     * Writes {@code observations} to this replica's ephemeral znode in Curator's background;
     * returns at once. Dropped (and counted, {@link #sharesDropped()}) while ZooKeeper is
     * unreachable or this replica's previous share is still being written.
     */
    @Override
    public void share(Observations o) {
        CuratorFramework c = client;
        if (c == null || !connected || !sharing.compareAndSet(false, true)) {
            sharesDropped.incrementAndGet();
            return;
        }
        try {
            byte[] data = ObservationsCodec.encode(o);
            c.create().orSetData().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).inBackground((cf, event) -> {
                sharing.set(false);
                if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                    sharesWritten.incrementAndGet();
                } else {
                    sharesDropped.incrementAndGet();
                    LOG.debug("Shared allocation: observations {} not written: {}", o.sequence(),
                            KeeperException.Code.get(event.getResultCode()));
                }
            }).forPath(observationsPath() + "/" + replicaId, data);
        } catch (Exception e) {
            sharing.set(false);
            sharesDropped.incrementAndGet();
            LOG.debug("Shared allocation: observations {} not written: {}", o.sequence(), e.toString());
        }
    }

    /** Shares written to ZooKeeper since the start. */
    long sharesWritten() {
        return sharesWritten.get();
    }

    /** Shares dropped since the start: ZooKeeper unreachable, a previous write in flight, or a failed write. */
    long sharesDropped() {
        return sharesDropped.get();
    }

    @Override
    public int replicas() {
        return replicas.get();
    }

    @Override
    public void publish(Allocation allocation) {
        write(allocation, lastSeenVersion()).whenComplete((version, failure) -> listener.published(allocation,
                failure == null, failure == null ? "version " + version : failure.getMessage()));
    }

    /**
     * Writes {@code allocation} if the znode is at {@code expectedVersion} ({@link #ABSENT}: if it
     * does not exist). Returns at once.
     *
     * @return the znode's new version, or a failure: a {@link KeeperException} {@code BADVERSION}
     *         or {@code NODEEXISTS} when the expected version is stale
     */
    CompletableFuture<Integer> write(Allocation allocation, int expectedVersion) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        byte[] data = AllocationCodec.encode(allocation);
        BackgroundCallback callback = (client, event) -> {
            KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
            if (code != KeeperException.Code.OK) {
                result.completeExceptionally(KeeperException.create(code, event.getPath()));
                return;
            }
            Stat stat = event.getStat();
            int version = stat != null ? stat.getVersion() : 0;
            seen(version, stat != null ? stat.getCzxid() : lastSeenCzxid());
            result.complete(version);
        };
        CuratorFramework c = client;
        try {
            if (c == null) {
                throw new IllegalStateException("the exchange of " + describe() + " is closed");
            } else if (expectedVersion == ABSENT) {
                c.create().creatingParentsIfNeeded().inBackground(callback).forPath(allocationPath(), data);
            } else {
                c.setData().withVersion(expectedVersion).inBackground(callback).forPath(allocationPath(), data);
            }
        } catch (Exception e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** The Curator client of the cluster service, for tests and diagnostics; null before {@link #start}. */
    CuratorFramework curator() {
        return client;
    }

    /**
     * Leaves ZooKeeper: the caches, the election and the client closed on a thread of their own,
     * waited for at most {@link #LEAVE_WAIT} (3 s; a leader's handoff takes up to 2 s of it). A
     * ZooKeeper that accepts connections but does not answer (hung, or another service's port) held
     * a stopping replica 9-13 s before its drain began; what is left of leaving then goes on behind
     * the drain, said in one WARN line.
     */
    @Override
    public synchronized void close() {
        CamelClusterMember local = view == null ? null : view.getLocalMember();
        view = null;
        List<CuratorCache> caches = cache == null ? List.of() : List.of(cache, participants, observations);
        ZooKeeperClusterService leaving = service;
        CuratorFramework closing = client;
        cache = null;
        service = null;
        client = null;
        Thread leave = new Thread(() -> leave(caches, local, leaving, closing), "agentlb-zookeeper-leave");
        leave.setDaemon(true);
        leave.start();
        try {
            leave.join(LEAVE_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (leave.isAlive()) {
            LOG.warn("Leaving ZooKeeper {} takes more than {} s (it does not answer): the replica stops meanwhile",
                    describe(), LEAVE_WAIT.toSeconds());
        }
    }

    private void leave(List<CuratorCache> caches, CamelClusterMember local, ZooKeeperClusterService leaving,
            CuratorFramework closing) {
        caches.forEach(CuratorCache::close);
        if (leaving != null) {
            try {
                leaving.stop();
            } catch (Exception e) {
                LOG.debug("Stopping the cluster service of {}: {}", describe(), e.toString());
            }
        }
        // The leader's thread asks ZooKeeper who leads next as its leadership ends: let it finish
        // (at most 2 s), or it fails on a closed client with an ERROR of Curator's.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (local != null && local.isLeader() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (closing != null) {
            closing.close();
        }
    }
}
