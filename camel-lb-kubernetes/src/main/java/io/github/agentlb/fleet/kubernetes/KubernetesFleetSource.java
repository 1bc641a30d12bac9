package io.github.agentlb.fleet.kubernetes;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.github.agentlb.core.Check;
import io.github.agentlb.core.fleet.AgentSpec;
import io.github.agentlb.core.fleet.FleetListener;
import io.github.agentlb.core.fleet.FleetSource;
import io.github.agentlb.fleet.LastGoodFleet;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kubernetes service's EndpointSlices as a membership source: the slices labelled
 * {@code kubernetes.io/service-name=<service>} in a namespace, watched by a fabric8 informer
 * (list, then watch, re-listing after a lost watch). Mapping (ready, serving, terminating to
 * agent, draining, absent; port; name; zone) in {@link EndpointSliceFleet}.
 *
 * <p>Bad input: a slice set without any ready endpoint (a service scaled to zero, all pods
 * terminating, no slice yet, no slice with the configured port) is not applied: the balancer keeps
 * its last fleet and one WARN line says why ({@code no ready endpoint (...)}). The balancer is
 * never emptied by the source; scale a service to zero by removing the source. At start the same
 * condition throws {@link IllegalArgumentException}, as does a failed or forbidden first list
 * (RBAC: {@code list} and {@code watch} on {@code endpointslices.discovery.k8s.io}). After the
 * start, an informer without a watch for {@link #WATCH_GRACE} (the API server down, a 403: it
 * retries) keeps the last fleet and is {@link #problem()}, said in one WARN line.
 *
 * <p>Thread-safety: the first read runs on the caller's thread, later ones on the informer's
 * event thread, one at a time; the watch is checked every second on a daemon thread of the
 * source's own, ended by {@link #close()}. The client is the caller's (not closed by
 * {@link #close()}) when given, otherwise built from the environment (in-cluster service account
 * or kubeconfig) at start and closed on close.
 *
 * <p>Over 300 lines: the informer's start, its events, the watch check and the builder's checks
 * belong to one source; the mapping of slices to agents is apart ({@link EndpointSliceFleet}).
 */
public final class KubernetesFleetSource implements FleetSource {

    /** The label EndpointSlices carry with their service's name. */
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    /** How long the informer may be without a watch before the source says so: 5 s (a watch's renewal takes less). */
    static final Duration WATCH_GRACE = Duration.ofSeconds(5);
    /** The longest wait for the first list at start by default: 30 s. */
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(KubernetesFleetSource.class);
    /** A port's name (an IANA service name, RFC 6335): at most 15 of a-z, 0-9 and '-', not at an end. */
    private static final Pattern PORT_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Set<String> ADDRESS_TYPES = Set.of("IPv4", "IPv6", "FQDN");

    private final String namespace;
    private final String service;
    private final KubernetesClient givenClient;
    private final Duration startTimeout;
    private final EndpointSliceFleet mapping;
    private final Object lock = new Object();
    private KubernetesClient client;
    private SharedIndexInformer<EndpointSlice> informer;
    private LastGoodFleet fleet;
    private boolean started;
    /** Why the informer has not watched for {@link #WATCH_GRACE}; null while it watches. */
    private String watchProblem;
    /** Since when the informer has not watched, ns; 0 while it watches. */
    private long notWatchingSince;
    /** The message of the informer's last failed list or watch. */
    private volatile String lastFailure;
    private ScheduledExecutorService watchCheck;
    private boolean closed;

    private KubernetesFleetSource(Builder builder) {
        this.namespace = builder.namespace;
        this.service = builder.service;
        this.givenClient = builder.client;
        this.startTimeout = builder.startTimeout;
        this.mapping = new EndpointSliceFleet(builder.scheme, builder.portName, builder.addressType);
    }

    /**
     * @param namespace the service's namespace, a DNS label
     * @param service   the service's name, a DNS label
     * @throws IllegalArgumentException naming the field and value if either is not a DNS label
     */
    public static Builder builder(String namespace, String service) {
        return new Builder(namespace, service);
    }

    @Override
    public void start(FleetListener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (lock) {
            if (fleet != null || closed) {
                throw new IllegalStateException(describe() + (closed ? " closed" : " already started"));
            }
            fleet = new LastGoodFleet(describe(), listener, KubernetesFleetSource.class);
            client = givenClient != null ? givenClient : new KubernetesClientBuilder().build();
        }
        var slices = client.discovery().v1().endpointSlices().inNamespace(namespace).withLabel(SERVICE_NAME_LABEL, service);
        try {
            // A list refused at start (RBAC's 403, a 401, no such API) fails the start here, in one line: the
            // informer's own failed first list is an ERROR with fabric8's stack trace before the start fails.
            slices.list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            stopClient();
            throw new IllegalArgumentException(describe() + ": cannot list EndpointSlices: " + (e.getCode() <= 0
                    ? e.getMessage() : "HTTP " + e.getCode() + (e.getStatus() == null || e.getStatus().getMessage() == null
                    ? "" : ": " + e.getStatus().getMessage())), e);
        }
        // The first watch event needs fabric8's deserializer of any kind, whose making loads every model class on
        // the class path: seconds on a small loaded machine (21 s seen), which would hold the client's event loop
        // and every request it carries. Made here, on the caller's thread.
        client.getKubernetesSerialization().getRegisteredKubernetesResource("discovery.k8s.io/v1", "EndpointSlice");
        SharedIndexInformer<EndpointSlice> created = slices.runnableInformer(0);
        // After the start, the informer retries a failed list or watch (as fabric8's own handler does);
        // the last failure names the reason when checkWatch() finds it without a watch.
        created.exceptionHandler((isStarted, failure) -> {
            lastFailure = failure.getMessage();
            return isStarted && !ExceptionHandler.isDeserializationException(failure);
        });
        created.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(EndpointSlice slice) {
                changed();
            }

            @Override
            public void onUpdate(EndpointSlice before, EndpointSlice after) {
                changed();
            }

            @Override
            public void onDelete(EndpointSlice slice, boolean finalStateUnknown) {
                changed();
            }
        });
        try {
            created.start().toCompletableFuture().get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            stop(created);
            throw new IllegalArgumentException(describe() + ": cannot list EndpointSlices: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            stop(created);
            throw new IllegalArgumentException(describe() + ": no list of EndpointSlices within " + startTimeout, e);
        } catch (InterruptedException e) {
            stop(created);
            Thread.currentThread().interrupt();
            throw new IllegalStateException(describe() + ": interrupted while starting", e);
        }
        synchronized (lock) {
            informer = created;
            EndpointSliceFleet.Result result = mapping.read(created.getStore().list());
            try {
                if (result.problem() != null) {
                    throw new IllegalArgumentException(describe() + ": " + result.problem());
                }
                fleet.first(result.agents());
            } catch (IllegalArgumentException e) {
                stop(created);
                throw e;
            }
            started = true;
            watchCheck = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "agentlb-fleet-kubernetes");
                thread.setDaemon(true);
                return thread;
            });
            watchCheck.scheduleWithFixedDelay(this::checkWatch, 1, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Every second on the source's own thread: an informer without a watch for {@link #WATCH_GRACE}
     * (an API server down or refusing the watch: it retries) is the source's problem, said in one
     * WARN line, and its return in one INFO line.
     */
    private void checkWatch() {
        synchronized (lock) {
            if (closed || informer == null) {
                return;
            }
            long now = System.nanoTime();
            if (informer.isWatching()) {
                if (watchProblem != null) {
                    LOG.info("{}: watching EndpointSlices again", describe());
                }
                notWatchingSince = 0;
                watchProblem = null;
            } else if (notWatchingSince == 0) {
                notWatchingSince = now;
            } else if (watchProblem == null && now - notWatchingSince >= WATCH_GRACE.toNanos()) {
                watchProblem = "not watching EndpointSlices for " + WATCH_GRACE.toSeconds() + " s, the fleet may be out of"
                        + " date (retrying)" + (lastFailure == null ? "" : ": " + lastFailure);
                LOG.warn("{}: {}", describe(), watchProblem);
            }
        }
    }

    /** Called on the informer's thread after its store changed; reads the whole store again. */
    private void changed() {
        synchronized (lock) {
            if (!started || closed) {
                return;
            }
            EndpointSliceFleet.Result result = mapping.read(informer.getStore().list());
            if (result.problem() != null) {
                fleet.reject(result.problem());
            } else {
                fleet.offer(result.agents());
            }
        }
    }

    private void stop(SharedIndexInformer<EndpointSlice> created) {
        created.stop();
        stopClient();
    }

    /** Closes the client if the source built it; after a failed start, lets the source be started again. */
    private void stopClient() {
        if (givenClient == null) {
            client.close();
        }
        synchronized (lock) {
            if (!started) {
                // a failed start: the source may be started again
                fleet = null;
                informer = null;
            }
        }
    }

    /** @return {@code kubernetes:} namespace / service, e.g. {@code kubernetes:prod/agents} */
    @Override
    public String describe() {
        return "kubernetes:" + namespace + "/" + service;
    }

    /** @return the last fleet handed to the listener; empty before start */
    public List<AgentSpec> fleet() {
        synchronized (lock) {
            return fleet == null ? List.of() : fleet.fleet();
        }
    }

    /**
     * @return why the slices as they are now are not applied, or that they are not watched (a list
     *     or watch failed after the start: an API server down, a 403) until the informer watches
     *     again; null when neither
     */
    public String problem() {
        synchronized (lock) {
            return watchProblem != null ? watchProblem : fleet == null ? null : fleet.problem();
        }
    }

    @Override
    public void close() {
        SharedIndexInformer<EndpointSlice> running;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            running = informer;
            if (watchCheck != null) {
                watchCheck.shutdownNow();
            }
        }
        // outside the lock: the informer's thread may be waiting for it in changed()
        if (running != null) {
            stop(running);
        }
    }

    @Override
    public String toString() {
        return describe();
    }

    /** Builds a {@link KubernetesFleetSource}; each setter validates at once. Not thread-safe. */
    public static final class Builder {
        private final String namespace;
        private final String service;
        private KubernetesClient client;
        private String portName;
        private String scheme = "http";
        private String addressType = "IPv4";
        private Duration startTimeout = DEFAULT_START_TIMEOUT;

        private Builder(String namespace, String service) {
            this.namespace = label("namespace", namespace);
            this.service = label("service", service);
        }

        private static String label(String field, String value) {
            if (value == null || !DNS_LABEL.matcher(value).matches()) {
                throw new IllegalArgumentException(field + " must be a DNS label (a-z, 0-9, '-', at most 63), was '" + value + "'");
            }
            return value;
        }

        /** @param value the client to use, kept open on close; default: one built from the environment */
        public Builder client(KubernetesClient value) {
            this.client = Check.notNull("client", value);
            return this;
        }

        /** @param value the name of the agents' port in the slices; default: the slice's only port */
        public Builder portName(String value) {
            Check.notBlank("portName", value);
            if (!PORT_NAME.matcher(value).matches() || value.contains("--") || value.chars().noneMatch(Character::isLetter)) {
                throw new IllegalArgumentException("portName must be a Kubernetes port name (a-z, 0-9, '-', at most 15,"
                        + " a letter), was '" + value + "'");
            }
            this.portName = value;
            return this;
        }

        /** @param value the agents' URL scheme, {@code http} (default) or {@code https} */
        public Builder scheme(String value) {
            this.scheme = AgentSpec.checkScheme(value);
            return this;
        }

        /** @param value the slices read: {@code IPv4} (default), {@code IPv6} or {@code FQDN} */
        public Builder addressType(String value) {
            if (!ADDRESS_TYPES.contains(value)) {
                throw new IllegalArgumentException("addressType must be IPv4, IPv6 or FQDN, was " + value);
            }
            this.addressType = value;
            return this;
        }

        /** @param value the longest wait for the first list at start, > 0; default {@link #DEFAULT_START_TIMEOUT} */
        public Builder startTimeout(Duration value) {
            if (Check.positive("startTimeout", value).toMillis() < 1) {
                throw new IllegalArgumentException("startTimeout must be >= 1 ms, was " + value);
            }
            this.startTimeout = value;
            return this;
        }

        public KubernetesFleetSource build() {
            return new KubernetesFleetSource(this);
        }
    }
}
