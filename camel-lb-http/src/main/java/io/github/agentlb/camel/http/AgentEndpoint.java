package io.github.agentlb.camel.http;

import io.github.agentlb.core.Durations;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent: {@code agent:http://host:port[?options]}, a child of a route's {@code loadBalance()}
 * that sends the client's request to the agent and streams the answer back into the client's
 * connection as it arrives ({@link AgentProducer}). Its URI, and so its id in a balancer, is
 * {@code http://host:port} without the options. The options and their defaults are in
 * {@code docs/http-component.md}; each is checked when the endpoint is created, a bad value failing
 * with an {@link IllegalArgumentException} naming the option and the value (durations are read
 * strictly: {@code abc} or {@code -5s} fail, Camel's own conversion would take them as zero).
 *
 * <p>Thread-safe. Options are set before the endpoint starts.
 *
 * <p>Over 300 lines: each option is a field with its Camel metadata, getter and checked setter, as
 * Camel's own endpoints keep them, and the pool's lifecycle follows the endpoint's producers.
 */
@UriEndpoint(firstVersion = "0.1.0", scheme = AgentComponent.SCHEME, title = "Agent", syntax = "agent:address",
        producerOnly = true, category = {Category.HTTP}, remote = true)
public class AgentEndpoint extends DefaultEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(AgentEndpoint.class);

    /** Default of {@link #getPoolSize()}: idle keep-alive connections kept per agent and event loop. */
    public static final int DEFAULT_POOL_SIZE = 64;
    /** Default of {@link #getPoolIdleTimeout()}: nginx's upstream {@code keepalive_timeout}. */
    public static final Duration DEFAULT_POOL_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /** Default of {@link #getStallFactor()}. */
    public static final double DEFAULT_STALL_FACTOR = 10;
    /** Default of {@link #getMinStallTime()}. */
    public static final Duration DEFAULT_MIN_STALL_TIME = Duration.ofSeconds(1);

    @UriPath(description = "The agent: http://host:port, no path (the client's path and query go to the agent as they came)")
    @Metadata(required = true)
    private final String address;
    private final String host;
    private final int port;
    @UriParam(defaultValue = "1s", javaType = "java.time.Duration",
            description = "Time to connect to the agent; longer is a failure before send, which fails over")
    private Duration connectTimeout = Duration.ofMillis(AgentTimeouts.DEFAULT_CONNECT_MS);
    @UriParam(defaultValue = "60s", javaType = "java.time.Duration",
            description = "From sending the request to the answer's first byte; longer is an answer timeout (504 in a route)")
    private Duration firstByteTimeout = Duration.ofMillis(AgentTimeouts.DEFAULT_FIRST_BYTE_MS);
    @UriParam(defaultValue = "60s", javaType = "java.time.Duration",
            description = "Longest silence between two reads of an answer that has begun; longer cuts the answer")
    private Duration idleTimeout = Duration.ofMillis(AgentTimeouts.DEFAULT_IDLE_MS);
    @UriParam(defaultValue = "0", javaType = "java.time.Duration",
            description = "From sending the request to the answer's last byte; 0: none")
    private Duration requestTimeout = Duration.ZERO;
    @UriParam(defaultValue = "64", description = "Idle keep-alive connections to the agent kept per event loop; 0: none")
    private int poolSize = DEFAULT_POOL_SIZE;
    @UriParam(defaultValue = "60s", javaType = "java.time.Duration",
            description = "How long a kept-alive connection to the agent may stay idle in the pool before it is closed; 0: for ever")
    private Duration poolIdleTimeout = DEFAULT_POOL_IDLE_TIMEOUT;
    @UriParam(defaultValue = "0", description = "Largest answer body passed to the client, bytes; 0: no limit")
    private long maxAnswerBytes;
    @UriParam(defaultValue = "10", description = "A call whose answer has not begun after this many times the 99th"
            + " percentile time to first byte of the component's recent answers (and after minStallTime) is a stall of its"
            + " agent when its client leaves (with stallWhileWaiting, also while the client waits once another agent"
            + " answered and as long past the agent's own recent p99); the second in a row"
            + " on that agent (no answer in between) ends as the agent's failure (toward its ejection); 0: off")
    private double stallFactor = DEFAULT_STALL_FACTOR;
    @UriParam(defaultValue = "1s", javaType = "java.time.Duration",
            description = "The shortest wait without an answer that the stall rule (stallFactor) takes as the agent's failure")
    private Duration minStallTime = DEFAULT_MIN_STALL_TIME;
    @UriParam(defaultValue = "false", description = "Whether the stall rule also judges calls whose clients still wait:"
            + " the second such stall in a row on an agent ends as failed after send (an idempotent request goes to another"
            + " agent, a POST gets its error). Only for agents whose calls take alike times: a long call beside short ones"
            + " on one agent is taken as hung")
    private boolean stallWhileWaiting;

    private final AgentPool pool = new AgentPool(this);
    /** Producers started and not yet stopped: the children that call the agent through this endpoint. */
    private final AtomicInteger producers = new AtomicInteger();
    private final AgentStats stats;
    private volatile AgentTimeouts timeouts = AgentTimeouts.DEFAULTS;

    /**
     * @param address {@code http://host:port}
     * @throws IllegalArgumentException naming the address if it is not {@code http://host:port}
     */
    AgentEndpoint(String address, AgentComponent component) {
        this(parse(address), component);
    }

    private AgentEndpoint(URI address, AgentComponent component) {
        // Written one way (a host's case and a port's zeros say nothing), so that one agent listed two ways is listed twice.
        super("http://" + address.getHost().toLowerCase(Locale.ROOT) + ":" + address.getPort(), component);
        this.address = getEndpointUri();
        this.host = address.getHost();
        this.port = address.getPort();
        this.stats = component.statsOf(this.address);
    }

    /** @throws IllegalArgumentException naming the address if it is not {@code http://host:port} */
    private static URI parse(String address) {
        URI uri;
        try {
            uri = new URI(address);
        } catch (URISyntaxException e) {
            uri = null;
        }
        if (uri == null || !"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 1 || uri.getPort() > 65535
                || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))) {
            throw new IllegalArgumentException("agent: address must be http://host:port (the client's path and query"
                    + " go to the agent as they came; no TLS), was '" + address + "'");
        }
        return uri;
    }

    @Override
    public AgentComponent getComponent() {
        return (AgentComponent) super.getComponent();
    }

    @Override
    public Producer createProducer() {
        return new AgentProducer(this);
    }

    /** @throws UnsupportedOperationException always: an agent is called, it does not call */
    @Override
    public Consumer createConsumer(Processor processor) {
        throw new UnsupportedOperationException("agent: endpoints only call agents; they cannot be a route's from()");
    }

    @Override
    public boolean isSingletonProducer() {
        return true;
    }

    /** {@code http://host:port}, the host in lower case and the port a number as written by the JDK. */
    public String getAddress() {
        return address;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /** {@code host:port}, the agent request's {@code Host}. */
    String authority() {
        return address.substring("http://".length());
    }

    AgentPool pool() {
        return pool;
    }

    AgentStats stats() {
        return stats;
    }

    /** The timeouts in force: the options as set when the endpoint was created. */
    public AgentTimeouts timeouts() {
        return timeouts;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    /** @param text a duration, at least 1 ms and at most 24.8 days ({@code 1s}, {@code 500ms}, {@code PT2S}) */
    public void setConnectTimeout(String text) {
        connectTimeout = timeoutMillis("connectTimeout", text);
        updateTimeouts();
    }

    public Duration getFirstByteTimeout() {
        return firstByteTimeout;
    }

    /** @param text a duration, at least 1 ms and at most 24.8 days */
    public void setFirstByteTimeout(String text) {
        firstByteTimeout = timeoutMillis("firstByteTimeout", text);
        updateTimeouts();
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    /** @param text a duration, at least 1 ms and at most 24.8 days */
    public void setIdleTimeout(String text) {
        idleTimeout = timeoutMillis("idleTimeout", text);
        updateTimeouts();
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    /** @param text a duration, {@code 0} for none, else at least 1 ms */
    public void setRequestTimeout(String text) {
        Duration value = Durations.parse("requestTimeout", text);
        if (!value.isZero() && value.toMillis() < 1) {
            throw new IllegalArgumentException("requestTimeout must be 0 (none) or at least 1ms, was '" + text + "'");
        }
        requestTimeout = value;
        updateTimeouts();
    }

    public int getPoolSize() {
        return poolSize;
    }

    /** @param poolSize idle connections kept per event loop, &gt;= 0 */
    public void setPoolSize(int poolSize) {
        if (poolSize < 0) {
            throw new IllegalArgumentException("poolSize must be >= 0, was " + poolSize);
        }
        this.poolSize = poolSize;
    }

    public Duration getPoolIdleTimeout() {
        return poolIdleTimeout;
    }

    /**
     * @param text a duration, {@code 0} for none: an idle pooled connection is closed after this
     *     long (give it less than the agent's own keep-alive timeout where it has one)
     */
    public void setPoolIdleTimeout(String text) {
        poolIdleTimeout = Durations.parse("poolIdleTimeout", text);
    }

    public long getMaxAnswerBytes() {
        return maxAnswerBytes;
    }

    /** @param maxAnswerBytes largest answer body passed on, bytes, &gt;= 0 (0: no limit) */
    public void setMaxAnswerBytes(long maxAnswerBytes) {
        if (maxAnswerBytes < 0) {
            throw new IllegalArgumentException("maxAnswerBytes must be >= 0 (0: no limit), was " + maxAnswerBytes);
        }
        this.maxAnswerBytes = maxAnswerBytes;
    }

    public double getStallFactor() {
        return stallFactor;
    }

    /** @param stallFactor multiple of the recent p99 time to first byte, finite and &gt;= 1, or 0 (off) */
    public void setStallFactor(double stallFactor) {
        if (!(stallFactor == 0 || stallFactor >= 1 && Double.isFinite(stallFactor))) {
            throw new IllegalArgumentException("stallFactor must be 0 (off) or a finite number >= 1, was " + stallFactor);
        }
        this.stallFactor = stallFactor;
    }

    public Duration getMinStallTime() {
        return minStallTime;
    }

    /** @param text a duration, at least 1 ms */
    public void setMinStallTime(String text) {
        minStallTime = positive("minStallTime", text);
    }

    public boolean isStallWhileWaiting() {
        return stallWhileWaiting;
    }

    /** @param stallWhileWaiting whether the stall rule also judges calls whose clients wait ({@link #stalledWhileWaiting}) */
    public void setStallWhileWaiting(boolean stallWhileWaiting) {
        this.stallWhileWaiting = stallWhileWaiting;
    }

    /**
     * The stall rule: whether a call without any byte of its answer after {@code waitedNanos} is a
     * stall of its agent (counted as {@link AgentCall} says: when its client leaves, or while it waits
     * and other agents answer; the second in a row is the agent's answer timeout). True when {@link #getStallFactor()} is on, the
     * component has recorded answers, and the wait is at least both {@link #getMinStallTime()} and
     * the factor times their 99th percentile time to first byte ({@link FirstByteTimes}).
     */
    boolean stalled(long waitedNanos) {
        if (stallFactor == 0 || waitedNanos < minStallTime.toNanos()) {
            return false;
        }
        long p99 = getComponent().firstByteTimes().p99();
        return p99 >= 0 && waitedNanos >= stallFactor * p99;
    }

    /**
     * The stall rule while the client waits, with {@link #isStallWhileWaiting()} only: {@link #stalled}
     * against the longer of the component's and this agent's own 99th percentile time to first
     * byte, and only once the agent has answered at all. An agent slower than the others by nature
     * (another model, other hardware) keeps its place; one that became ten times slower than itself,
     * while others answer, does not.
     */
    boolean stalledWhileWaiting(long waitedNanos) {
        if (stallFactor == 0 || waitedNanos < minStallTime.toNanos()) {
            return false;
        }
        long own = stats.firstByteTimes().p99();
        long p99 = Math.max(own, getComponent().firstByteTimes().p99());
        return own >= 0 && waitedNanos >= stallFactor * p99;
    }

    private static Duration positive(String option, String text) {
        Duration value = Durations.parse(option, text);
        if (value.toMillis() < 1) {
            throw new IllegalArgumentException(option + " must be at least 1ms, was '" + text + "'");
        }
        return value;
    }

    /** A timeout Netty and the call's timers take in int milliseconds: at least 1 ms, at most 2^31 - 1 ms (24.8 days). */
    private static Duration timeoutMillis(String option, String text) {
        Duration value = positive(option, text);
        if (value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(option + " must be at most " + Integer.MAX_VALUE + "ms (24.8 days), was '"
                    + text + "'");
        }
        return value;
    }

    private void updateTimeouts() {
        timeouts = new AgentTimeouts((int) connectTimeout.toMillis(), (int) firstByteTimeout.toMillis(),
                (int) idleTimeout.toMillis(), requestTimeout.toMillis());
    }

    /** A producer of this endpoint started: its connections are in use. Any thread. */
    void producerStarted() {
        producers.incrementAndGet();
        stats.userStarted(getComponent());
    }

    /**
     * A producer of this endpoint stopped. The last one closes the idle connections at once: no child
     * calls the agent any more (it left the balancer, whose owned child stopped after its last
     * request ended, or its routes stopped), and an agent that does not close idle connections itself
     * would otherwise keep them for {@link #getPoolIdleTimeout()}, or for ever. The agent's meters
     * leave the registry when no producer of any endpoint of its address is left ({@link AgentStats#userStopped}).
     * Any thread.
     */
    void producerStopped() {
        if (producers.decrementAndGet() == 0) {
            LOG.debug("agent {}: no producer left, closing its idle connections", address);
            pool.closeIdle();
        }
        stats.userStopped();
    }

    /** Whether a producer of this endpoint is started; a connection a call gives back after the last one stopped is closed. */
    boolean inUse() {
        return producers.get() > 0;
    }

    @Override
    protected void doStop() throws Exception {
        pool.closeAll();
        super.doStop();
    }
}
