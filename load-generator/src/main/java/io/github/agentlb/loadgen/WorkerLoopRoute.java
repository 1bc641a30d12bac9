package io.github.agentlb.loadgen;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;

/**
 * The closed loop of a time-bound run: a timer fires once and starts {@code concurrency} workers;
 * each is an exchange that loops ({@code loopDoWhile}) taking the next request of the endless
 * {@link Workload#requestAt} sequence, sending it with netty-http and recording the outcome, until
 * the deadline has passed. The send is asynchronous: the answer is recorded and the next request
 * sent on Netty's event loop that read it, so no worker thread has to wake up between two
 * requests (on a busy 2-core machine each wake-up costs scheduling delay that would count as
 * latency and lower the throughput; see {@code compare-with-wrk.sh}). A request sent before the deadline is always completed
 * and recorded. Completes {@code done} with the run's wall time, ns, when every worker stopped.
 */
final class WorkerLoopRoute extends RouteBuilder {

    static final String ROUTE_ID = "worker-loop";

    private final Workload workload;
    private final String baseUrl;
    private final LoadTestConfig config;
    private final RequestSteps steps;
    private final LongSupplier clock;
    private final long deadlineNanos;
    private final CompletableFuture<Long> done;
    private final AtomicLong next = new AtomicLong();

    WorkerLoopRoute(Workload workload, String baseUrl, LoadTestConfig config, RequestSteps steps, LongSupplier clock,
                    long deadlineNanos, CompletableFuture<Long> done) {
        this.workload = Objects.requireNonNull(workload, "workload");
        this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
        this.config = Objects.requireNonNull(config, "config");
        this.steps = Objects.requireNonNull(steps, "steps");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.deadlineNanos = deadlineNanos;
        this.done = Objects.requireNonNull(done, "done");
    }

    @Override
    public void configure() {
        ExecutorService workers = getContext().getExecutorServiceManager()
                .newFixedThreadPool(this, "loadgen-worker", config.concurrency());
        List<Integer> workerNumbers = IntStream.range(0, config.concurrency()).boxed().toList();
        from("timer:worker-loop?repeatCount=1&delay=0&includeMetadata=false").routeId(ROUTE_ID)
                .process(e -> {
                    e.setProperty("loadgen.runStartedAtNanos", clock.getAsLong());
                    e.getMessage().setBody(workerNumbers);
                })
                .split(body()).parallelProcessing().executorService(workers)
                    .loopDoWhile(this::claimNext)
                        .process(steps::prepare)
                        .doTry()
                            .to(LoadRoute.endpointUri(baseUrl, config.timeoutMs(), false))
                            .process(steps::recordAnswer)
                        .doCatch(Exception.class)
                            .process(steps::recordFailure)
                        .end()
                    .end()
                .end()
                .process(e -> done.complete(clock.getAsLong() - e.getProperty("loadgen.runStartedAtNanos", Long.class)));
    }

    /**
     * Before each turn of a worker's loop: false once the deadline has passed; else the next
     * request goes into the exchange, whose message is cleared of the previous answer (its headers
     * would otherwise be sent as the next request's).
     */
    private boolean claimNext(Exchange exchange) {
        if (clock.getAsLong() - deadlineNanos >= 0) {
            return false;
        }
        exchange.getMessage().getHeaders().clear();
        exchange.setException(null);
        exchange.setProperty(RequestSteps.REQUEST, workload.requestAt(next.getAndIncrement()));
        return true;
    }
}
