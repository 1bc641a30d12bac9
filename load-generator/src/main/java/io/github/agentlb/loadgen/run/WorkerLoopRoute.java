package io.github.agentlb.loadgen.run;

import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Workload;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.TryDefinition;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.spi.UnitOfWork;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.UnitOfWorkHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The closed loop: a timer fires once and starts {@code concurrency} workers, each an exchange that
 * loops ({@code loopDoWhile}) taking the next request of the {@link Workload#requestAt} sequence,
 * sending it with netty-http and recording the outcome, until a number of requests (the main job) or
 * a deadline (a soak). The send is asynchronous: the answer is recorded and the next request sent on
 * the Netty event loop that read it, so no thread wakes up between two requests (see
 * {@code compare-with-wrk.sh}). A request sent before the bound is always recorded. Completes
 * {@code done} with the run's wall time, ns, when every worker stopped. With several base URLs
 * (replicas), request {@code i} goes to URL {@code i mod n} ({@link Workload#replicaOf}), whatever
 * the workers' timing.
 */
final class WorkerLoopRoute extends RouteBuilder {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerLoopRoute.class);
    private static final String REPLICA = "loadgen.replica";
    private static final String NETTY_HTTP_PRODUCER = "org.apache.camel.component.netty.http.NettyHttpProducer";

    private final Workload workload;
    private final List<String> baseUrls;
    private final LoadTestConfig config;
    private final RequestSteps steps;
    private final LongSupplier clock;
    private final long deadlineNanos;
    private final long requestLimit;
    private final CompletableFuture<Long> done;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong releasedAnswers = new AtomicLong();

    /** Sends {@code requestLimit} requests; with {@code Long.MAX_VALUE}, until {@code deadlineNanos} (clock). */
    WorkerLoopRoute(Workload workload, List<String> baseUrls, LoadTestConfig config, RequestSteps steps,
                    LongSupplier clock, long deadlineNanos, long requestLimit, CompletableFuture<Long> done) {
        this.workload = workload;
        this.baseUrls = List.copyOf(baseUrls);
        this.config = config;
        this.steps = steps;
        this.clock = clock;
        this.deadlineNanos = deadlineNanos;
        this.requestLimit = requestLimit;
        this.done = done;
    }

    @Override
    public void configure() {
        ExecutorService workers = getContext().getExecutorServiceManager()
                .newFixedThreadPool(this, "loadgen-worker", config.concurrency());
        List<Integer> workerNumbers = IntStream.range(0, config.concurrency()).boxed().toList();
        TryDefinition run = from("timer:worker-loop?repeatCount=1&delay=0&includeMetadata=false").routeId("worker-loop")
                .process(e -> {
                    e.setProperty("loadgen.runStartedAtNanos", clock.getAsLong());
                    e.getMessage().setBody(workerNumbers);
                })
                .doTry();
        steps.around(run.split(body()).parallelProcessing().executorService(workers)
                    .loopDoWhile(this::claimNext), this::sendToReplica)
                    .end()
                .end();
        // A failure that reached a worker after its request was recorded (netty-http's TLS handshake
        // failing on a server that speaks plain HTTP, say) stops that worker; the run still ends.
        run.doCatch(Exception.class)
                .process(WorkerLoopRoute::workerStopped)
            .doFinally()
                .process(e -> done.complete(clock.getAsLong() - e.getProperty("loadgen.runStartedAtNanos", Long.class)))
            .end();
    }

    /** One line for a worker stopped by a failure: its root cause, cut short (a TLS failure's message dumps the bytes). */
    private static void workerStopped(Exchange exchange) {
        Throwable root = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        while (root.getCause() != null) {
            root = root.getCause();
        }
        String message = String.valueOf(root.getMessage());
        String name = root.getClass().getSimpleName();
        LOG.warn("a worker stopped on {}: {}{}", name, message.length() > 80 ? message.substring(0, 80) + "..." : message,
                name.equals("NotSslRecordException") ? " (an https URL at a server that speaks plain HTTP?)" : "");
    }

    /** The send: to the one base URL, or through a choice on the request's replica. */
    private void sendToReplica(TryDefinition attempt) {
        if (baseUrls.size() == 1) {
            attempt.to(RequestSteps.endpointUri(baseUrls.get(0), config.timeoutMs()));
            return;
        }
        ChoiceDefinition choice = attempt.choice();
        for (int i = 0; i < baseUrls.size(); i++) {
            int replica = i;
            choice.when(e -> e.getProperty(REPLICA, Integer.class) == replica)
                    .to(RequestSteps.endpointUri(baseUrls.get(i), config.timeoutMs()));
        }
        choice.end();
    }

    /**
     * Runs and drops the tasks netty-http's producer left to release the last answer ("when the
     * exchange is done", which for a worker is the loop's end: every answer, about 2 KB, would stay
     * reachable until then). Only the producer's own tasks (by class name); the answer is recorded by then.
     */
    private void releaseAnswer(Exchange exchange) {
        UnitOfWork unitOfWork = exchange.getUnitOfWork();
        if (unitOfWork == null) {
            return;
        }
        Exchange sink = new DefaultExchange(getContext());
        unitOfWork.handoverSynchronization(sink, task -> task.getClass().getName().startsWith(NETTY_HTTP_PRODUCER));
        List<Synchronization> tasks = sink.getExchangeExtension().handoverCompletions();
        if (tasks != null) {
            releasedAnswers.addAndGet(tasks.size());
            UnitOfWorkHelper.doneSynchronizations(sink, tasks);
        }
    }

    /** How many of netty-http's release tasks the loop ran itself: one per answer. */
    long releasedAnswers() {
        return releasedAnswers.get();
    }

    /**
     * Before each turn of a worker's loop: false once past the deadline or out of requests; else the
     * next request goes into the exchange, cleared of the previous answer's headers (else sent again).
     */
    private boolean claimNext(Exchange exchange) {
        releaseAnswer(exchange);
        long now = clock.getAsLong();
        // Time-bound (no request limit): past the deadline, no more; else the next request unless all are taken.
        long index = requestLimit == Long.MAX_VALUE && now - deadlineNanos >= 0 ? requestLimit : next.getAndIncrement();
        if (index >= requestLimit) {
            return false;
        }
        exchange.getMessage().getHeaders().clear();
        exchange.setException(null);
        exchange.setProperty(RequestSteps.REQUEST, workload.requestAt(index));
        // The send time is the time the deadline was checked against: read again later, another
        // worker's answer could have moved it past the deadline in between.
        exchange.setProperty(RequestSteps.CLAIMED_AT, now);
        exchange.setProperty(RequestSteps.DEADLINE_AT, now + config.timeoutMs() * 1_000_000);
        if (baseUrls.size() > 1) {
            exchange.setProperty(REPLICA, Workload.replicaOf(index, baseUrls.size()));
        }
        return true;
    }
}
