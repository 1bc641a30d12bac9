package io.github.agentlb.agent;

import io.github.agentlb.agent.http.HttpReplies;
import io.github.agentlb.agent.http.LogText;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code /process} endpoint as a Camel {@link org.apache.camel.AsyncProcessor}: admits the
 * request to a {@link ServiceStation} and answers from the scheduler's thread when its delay is
 * over, so a waiting request holds no thread.
 *
 * <p>Expects the exchange property {@link #REQUEST} (an {@link AgentRequest} of kind
 * {@code PROCESS}). Owns one single-threaded {@link ScheduledExecutorService}, created by
 * {@link #start()} and shut down by {@link #stop()} through Camel's
 * {@link org.apache.camel.spi.ExecutorServiceManager}, so it follows the route's lifecycle.
 * Thread-safe.
 */
public final class AgentService extends AsyncProcessorSupport implements CamelContextAware, DelayScheduler {

    /** Exchange property holding the classified {@link AgentRequest}. */
    public static final String REQUEST = "agentlb.agentRequest";

    private static final Logger LOG = LoggerFactory.getLogger(AgentService.class);

    private final AgentConfig config;
    private final Clock clock;
    private final ServiceStation station;
    private final AtomicLong served = new AtomicLong();
    private CamelContext camelContext;
    private volatile ScheduledExecutorService executor;

    /** A service answering with the system UTC clock's timestamps. */
    public AgentService(AgentConfig config) {
        this(config, Clock.systemUTC());
    }

    /**
     * @param config the agent's knobs
     * @param clock source of the {@code timestamp} field
     */
    public AgentService(AgentConfig config, Clock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.station = new ServiceStation(config, DelayChooser.of(config), this);
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        AgentRequest request = exchange.getProperty(REQUEST, AgentRequest.class);
        if (request == null || executor == null) {
            exchange.setException(new IllegalStateException(
                    request == null ? "no " + REQUEST + " property" : "agent " + config.agentId() + " is not started"));
            callback.done(true);
            return true;
        }
        station.submit(new ServiceStation.Customer() {
            @Override
            public void served(LoadSnapshot load) {
                try {
                    answer(exchange, request, load);
                } catch (Exception e) {
                    exchange.setException(e);
                } finally {
                    callback.done(false);
                }
            }

            @Override
            public void rejected(RuntimeException cause) {
                exchange.setException(cause);
                callback.done(false);
            }
        });
        return false;
    }

    private void answer(Exchange exchange, AgentRequest request, LoadSnapshot load) throws Exception {
        Instant now = clock.instant();
        double timestamp = now.getEpochSecond() + now.getNano() / 1e9;
        LoadSnapshot.setHeaders(exchange, load);
        HttpReplies.json(exchange, 200,
                new ProcessResponse(config.agentId(), request.requestId(), request.userId(), timestamp));
        long count = served.incrementAndGet();
        LOG.debug("agent={} request_id={} user_id={} utilization={} served={}",
                config.agentId(), LogText.escape(request.requestId()), LogText.escape(request.userId()),
                load.utilization(), count);
    }

    /** The station's current load (not counting a request being answered). */
    public LoadSnapshot load() {
        return station.load();
    }

    /** The load an answer reports, utilization averaged over time: {@link ServiceStation#reportedLoad()}. */
    public LoadSnapshot reportedLoad() {
        return station.reportedLoad();
    }

    /** {@code /process} requests answered with 200 so far. */
    public long requestsServed() {
        return served.get();
    }

    /** This service's configuration. */
    public AgentConfig config() {
        return config;
    }

    @Override
    public void schedule(Runnable task, long delayNanos) {
        ScheduledExecutorService ex = executor;
        if (ex == null) {
            throw new RejectedExecutionException("agent " + config.agentId() + " is stopped");
        }
        ex.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    protected void doStart() throws Exception {
        Objects.requireNonNull(camelContext, "camelContext must be set before start");
        executor = camelContext.getExecutorServiceManager()
                .newSingleThreadScheduledExecutor(this, "agent-" + config.agentId() + "-delay");
    }

    @Override
    protected void doStop() throws Exception {
        ScheduledExecutorService ex = executor;
        executor = null;
        if (ex != null) {
            // Graceful: delayed completions still run, so no caller is left without an answer.
            camelContext.getExecutorServiceManager().shutdownGraceful(ex);
        }
    }
}
