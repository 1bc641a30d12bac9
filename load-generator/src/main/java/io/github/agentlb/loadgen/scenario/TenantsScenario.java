package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.ChatShape;
import io.github.agentlb.agent.llm.LlmShape;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.FlowControl;
import io.github.agentlb.camel.QueueFigures;
import io.github.agentlb.loadgen.agents.ChatStreamClient;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.run.JvmGauges;
import io.github.agentlb.loadgen.run.LoadRunner;
import io.github.agentlb.loadgen.stats.LatencySummary;
import io.github.agentlb.loadgen.stats.PacingCheck;
import io.github.agentlb.loadgen.stats.RequestOutcome;
import io.github.agentlb.loadgen.stats.RunStatistics;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

/**
 * The {@code tenants} scenario (only by name): the balancer's bounded fair queue on real sockets. Stub
 * LLM agents behind the demo proxy with {@code rr}, {@code maxInFlightPerAgent} and a queue; tenant L
 * posts short prompts, H long ones, each at the same seeded Poisson rate, open loop; one after another
 * L alone, both by {@code X-Tenant} (VTC), both as one tenant (FIFO), and VTC with
 * {@code maxInFlightPerTenant}. Checks: nothing lost, the queue within its bound, L's p99 under VTC at
 * most 1/{@value #FIFO_RATIO} of it under FIFO ({@link #fair}), and {@link #lightKept}, each figure less
 * its run's longest stall ({@link #runAll}). The figures: the section's text.
 *
 * @param seconds how long each variant sends, s, >= 1
 */
public record TenantsScenario(double seconds) implements Scenario {

    public static final int AGENTS = 3, MAX_IN_FLIGHT = 2, QUEUE_SIZE = 1000, QUEUE_TIMEOUT_S = 30, WARMUP = 30;
    public static final int BLOCK_CHARS = 64, L_PROMPT_CHARS = 768, H_PROMPT_CHARS = 8000;
    public static final double BLOCK_MS = 1.6, DEMAND = 2.0;
    /**
     * The checked bound: L's p99 under FIFO over its p99 under VTC at least this. Under FIFO an L
     * request waits behind H's whole backlog, which grows by about what the agents serve in the time
     * sent (seconds); under VTC only for a place to free, at most one H service (200 ms) after its
     * own L predecessors. The simulation gives 50x; 5 leaves room for a busy machine and short runs.
     */
    public static final double FIFO_RATIO = 5;
    /** {@code maxInFlightPerTenant} of {@code L+H-limit}: half the places (simulated: L's p99 wait 13 ms, 178 without). */
    public static final int TENANT_LIMIT = 3;
    static final String ALONE = "L-alone", VTC = "L+H-vtc", FIFO = "L+H-fifo", LIMIT = "L+H-limit", STALL = "stall_max_ms";
    /** The sampler's period (queue size, stalls), ns. */
    static final long SAMPLE_NANOS = 5_000_000;

    public TenantsScenario {
        if (!(seconds >= 1)) {
            throw new IllegalArgumentException("seconds must be >= 1, was " + seconds);
        }
    }

    @Override
    public boolean ownWarmup() {
        return true;
    }

    @Override
    public String name() {
        return "tenants";
    }

    List<AgentConfig> agents(Setup setup) {
        return IntStream.rangeClosed(1, AGENTS).mapToObj(i -> AgentConfig.custom().agentId("A" + i).port(0)
                .seed(setup.seed() + i).chat(new ChatShape(0, 1000, 1))
                .llm(LlmShape.custom().blockChars(BLOCK_CHARS).uncachedBlockMs(BLOCK_MS).build()).build()).toList();
    }

    /** The agents' time to first token of a prompt of {@code chars} canonical chars, ns: what is not queue wait. */
    static long serviceNanos(int chars) {
        return Math.round(chars / BLOCK_CHARS * BLOCK_MS * 1e6);
    }

    /** Each tenant's requests per second: L and H together {@value #DEMAND} x the places' service rate. */
    static double ratePerTenant() {
        return DEMAND * AGENTS * MAX_IN_FLIGHT / ((serviceNanos(L_PROMPT_CHARS) + serviceNanos(H_PROMPT_CHARS)) / 1e9);
    }

    @Override
    public List<Variant> variants(Setup setup) {
        return Variant.demoRoundRobin(setup.strategies(), List.of(ALONE, VTC, FIFO, LIMIT), (v, balancer) -> {
            balancer.setMaxInFlightPerAgent(MAX_IN_FLIGHT);
            balancer.setQueueSize(QUEUE_SIZE);
            balancer.setQueueTimeout(Duration.ofSeconds(QUEUE_TIMEOUT_S));
            balancer.setMaxInFlightPerTenant(v.equals(LIMIT) ? TENANT_LIMIT : 0);
        });
    }

    /** One request: its tenant, when it is sent (ns from the first), its index. */
    record Arrival(String tenant, long atNanos, int index) {
    }

    /** The seeded Poisson arrivals of L (and H) over {@link #seconds}, in time order. */
    List<Arrival> arrivals(long seed, boolean heavy) {
        Random random = new Random(seed);
        List<Arrival> all = new ArrayList<>();
        for (String tenant : heavy ? List.of("L", "H") : List.of("L")) {
            for (double t = -Math.log(1 - random.nextDouble()) / ratePerTenant(); t < seconds;
                 t += -Math.log(1 - random.nextDouble()) / ratePerTenant()) {
                all.add(new Arrival(tenant, (long) (t * 1e9), all.size()));
            }
        }
        all.sort(Comparator.comparingLong(Arrival::atNanos));
        return all;
    }

    static String body(String tenant, int index) {
        int content = (tenant.equals("H") ? H_PROMPT_CHARS : L_PROMPT_CHARS) - "user\n\n\n".length();
        String text = Section.format("%s%07d ", tenant, index) + "lorem ipsum dolor sit amet ".repeat(300);
        return "{\"model\":\"stub\",\"stream\":true,\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\""
                + text.substring(0, content) + "\"}]}";
    }

    @Override
    public Result run(Variant variant, Setup setup) throws Exception {
        boolean tenants = !variant.label().equals(FIFO);
        List<Arrival> arrivals = arrivals(setup.seed(), !variant.label().equals(ALONE));
        ChatStreamClient client = new ChatStreamClient(Duration.ofSeconds(QUEUE_TIMEOUT_S * 2L));
        ExecutorService pool = Executors.newCachedThreadPool();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedCluster cluster = ClusterRun.start(agents(setup), variant)) {
            URI uri = URI.create(cluster.baseUrls().get(0) + AgentsScenario.PATH);
            setup.stdout().println(ClusterRun.header(name(), variant, Section.format("%d requests over %.0f s",
                    arrivals.size(), seconds), cluster));
            for (int i = 0; i < WARMUP; i++) { // one at a time, no tenant: nothing waits
                client.send(uri, body("L", -1 - i), Map.of());
            }
            AgentLoadBalancerSupport balancer = cluster.balancer();
            QueueFigures before = balancer.queueFigures();
            AtomicInteger queueMax = new AtomicInteger();
            AtomicLong lastSample = new AtomicLong(System.nanoTime()), stallMax = new AtomicLong();
            sampler.scheduleAtFixedRate(() -> {
                long now = System.nanoTime();
                stallMax.accumulateAndGet(now - lastSample.getAndSet(now) - SAMPLE_NANOS, Math::max);
                queueMax.accumulateAndGet(balancer.queueFigures().size(), Math::max);
            }, 0, SAMPLE_NANOS, TimeUnit.NANOSECONDS);
            List<Future<ChatStreamClient.Answer>> answers = new ArrayList<>();
            PacingCheck check = new PacingCheck();
            long cpuBefore = JvmGauges.processCpuNanos(), start = System.nanoTime();
            for (Arrival a : arrivals) {
                for (long wait; (wait = start + a.atNanos() - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(wait);
                }
                check.sendLag(System.nanoTime() - start - a.atNanos());
                Map<String, String> headers = tenants ? Map.of(FlowControl.DEFAULT_TENANT_HEADER, a.tenant()) : Map.of();
                answers.add(pool.submit(() -> client.send(uri, body(a.tenant(), a.index()), headers)));
            }
            List<ChatStreamClient.Answer> got = new ArrayList<>();
            for (Future<ChatStreamClient.Answer> f : answers) {
                got.add(f.get());
            }
            long wall = System.nanoTime() - start;
            QueueFigures after = balancer.queueFigures();
            return result(variant, cluster.baseUrls().get(0), setup, arrivals, got, wall, queueMax.get(), before, after,
                    stallMax.get()).withPace(LoadRunner.pace(new Pacing(arrivals.size() / seconds, null,
                    Pacing.DEFAULT_INTERVAL), check, cpuBefore, wall, got.size()));
        } finally {
            sampler.shutdownNow();
            pool.shutdownNow();
        }
    }

    /**
     * The result of a variant from its arrivals and their answers (same order), the queue's figures around the run
     * and the longest stall of the run's 5 ms sampler, ns.
     */
    Result result(Variant variant, String target, Setup setup, List<Arrival> arrivals, List<ChatStreamClient.Answer> answers,
                  long wallNanos, int queueMax, QueueFigures before, QueueFigures after, long stallNanos) {
        List<RequestOutcome> outcomes = IntStream.range(0, arrivals.size()).mapToObj(i -> answers.get(i).outcome(
                arrivals.get(i).tenant() + arrivals.get(i).index(), arrivals.get(i).tenant().equals("L") ? 0 : 1,
                answers.get(i).totalNanos())).toList();
        long lost = answers.stream().filter(a -> !a.ok()).count();
        long refused = answers.stream().filter(a -> !a.ok() && a.status() == 429).count();
        Map<String, Object> figures = Result.map("rate_per_tenant", ratePerTenant(), "seconds_sent", seconds);
        for (String tenant : List.of("L", "H")) {
            LatencySummary.Recorder latency = new LatencySummary.Recorder(), wait = new LatencySummary.Recorder();
            int chars = tenant.equals("L") ? L_PROMPT_CHARS : H_PROMPT_CHARS;
            IntStream.range(0, arrivals.size()).filter(i -> arrivals.get(i).tenant().equals(tenant))
                    .mapToObj(answers::get).filter(ChatStreamClient.Answer::ok).forEach(a -> {
                        latency.record(a.totalNanos());
                        wait.record(Math.max(0, a.firstTokenNanos() - serviceNanos(chars)));
                    });
            LatencySummary l = latency.summary();
            String t = tenant.toLowerCase(Locale.ROOT);
            figures.putAll(Result.map(t + "_requests", arrivals.stream().filter(a -> a.tenant().equals(tenant)).count(),
                    t + "_p50_ms", l.p50Ms(), t + "_p99_ms", l.p99Ms(), t + "_wait_p99_ms", wait.summary().p99Ms()));
        }
        long released = after.released() - before.released(), expired = after.expired() - before.expired();
        figures.putAll(Result.map("queue_max", queueMax, "queue_size", QUEUE_SIZE, "released", released,
                "queue_wait_mean_ms", released == 0 ? 0.0 : (after.waitNanos() - before.waitNanos()) / 1e6 / released,
                "queue_wait_max_ms", after.maxWaitNanos() / 1e6, "lost", lost, "refused_429", refused,
                "expired", expired, "errors", lost - refused - expired, STALL, stallNanos / 1e6));
        RunStatistics s = RunStatistics.of(outcomes, agents(setup).stream().map(AgentConfig::agentId).toList(), wallNanos);
        // Open loop: the client never bounds its requests in flight; the concurrency given is the agents' places.
        LoadTestConfig load = new LoadTestConfig(arrivals.size(), variant.label().equals(ALONE) ? 1 : 2,
                AGENTS * MAX_IN_FLIGHT, setup.seed(), QUEUE_TIMEOUT_S * 2000L, LoadTestConfig.DEFAULT_PROGRESS_EVERY, WARMUP, 0);
        List<Result.Check> checks = List.of(new Result.Check("nothing lost", lost == 0, Section.format("%d lost (%d "
                        + "refused 429, %d expired, %d other errors), goal 0", lost, refused, expired, lost - refused - expired)),
                new Result.Check("queue bound", queueMax <= QUEUE_SIZE, "queue max " + queueMax + " <= " + QUEUE_SIZE));
        Result r = new Result(name(), variant.label(), variant.strategy(), target, true, load, 1, s, List.of(), figures,
                checks, lost, null, null, List.of(), List.of());
        return r.withLine("L %d p50/p99 %.1f/%.1f ms, H %.0f p50/p99 %.1f/%.1f ms, queue max %d, %d lost",
                (int) r.number("l_requests"), r.number("l_p50_ms"), r.number("l_p99_ms"), r.number("h_requests"),
                r.number("h_p50_ms"), r.number("h_p99_ms"), queueMax, lost);
    }

    /**
     * Whether the tenant limit kept L's place: its p99 wait with the limit ({@code limitMs}) at most
     * half its p99 wait under VTC without it ({@code vtcMs}), or at most twice its p99 wait when it runs
     * alone ({@code aloneMs}, NaN when not run): VTC's bound. The second holds on a starved CPU, where
     * every wait is mostly the machine's own delay and the first compares noise.
     */
    static boolean lightKept(double limitMs, double vtcMs, double aloneMs) {
        return 2 * limitMs <= vtcMs || limitMs <= 2 * aloneMs;
    }

    /**
     * Whether L's p99 under VTC ({@code vtcMs}) less that run's longest stall ({@code stallMs}) is at most
     * 1/{@value #FIFO_RATIO} of its p99 under FIFO ({@code fifoMs}).
     */
    static boolean fair(double vtcMs, double stallMs, double fifoMs) {
        return (vtcMs - stallMs) * FIFO_RATIO <= fifoMs;
    }

    /**
     * Runs the four variants one after another, then adds the checks across them to the FIFO and limit runs.
     * The figure each check bounds is taken less its run's longest stall ({@code stall_max_ms}: the 5 ms
     * sampler's longest gap, when nothing in the JVM ran): a stall delays every request in flight by its
     * length, so a busy machine moves the figure, not the order of service the checks are about.
     */
    @Override
    public List<Result> runAll(List<Variant> variants, Setup setup) throws Exception {
        List<Result> results = new ArrayList<>(Scenario.super.runAll(variants, setup));
        Result alone = Result.find(results, ALONE), vtc = Result.find(results, VTC);
        Result fifo = Result.find(results, FIFO), limit = Result.find(results, LIMIT);
        double l = limit.number("l_wait_p99_ms"), ls = limit.number(STALL), v = vtc.number("l_wait_p99_ms");
        double a = alone.number("l_wait_p99_ms"), net = Math.max(0, l - ls); // a stall longer than the figure: none left
        Result.Check light = Result.Check.of("light kept", lightKept(net, v, a), "L p99 wait %.1f ms with "
                + "maxInFlightPerTenant %d, %.1f less the run's longest stall (%.1f ms): x 2 <= %.1f ms without, or "
                + "<= 2 x %.1f ms alone (%.2fx)", l, TENANT_LIMIT, net, ls, v, a, net / a);
        results.set(results.indexOf(limit), limit.withChecks(List.of(light)));
        setup.stdout().println("Scenario tenants: " + light.detail());
        double f = vtc.number("l_p99_ms"), fs = vtc.number(STALL);
        Result.Check fair = Result.Check.of("fair", fair(f, fs, fifo.number("l_p99_ms")), "L p99 %.1f ms "
                + "under VTC, %.1f less the run's longest stall (%.1f ms), x %.0f <= %.1f ms under FIFO", f, Math.max(0, f - fs), fs,
                FIFO_RATIO, fifo.number("l_p99_ms"));
        results.set(results.indexOf(fifo), fifo.withChecks(List.of(fair)));
        setup.stdout().println("Scenario tenants: " + fair.detail());
        return results;
    }

    @Override
    public Section section(List<Result> results) {
        Section.TableBuilder t = Section.table().left("variant").right("L requests", "H requests", "L p50 ms", "L p99 ms",
                "H p50 ms", "H p99 ms", "L p99 wait ms", "H p99 wait ms", "queue max", "queue wait mean / max ms",
                "lost (429, expired, errors)");
        for (Result r : results) {
            t.row(List.of(r.variant(), (long) r.number("l_requests"), (long) r.number("h_requests"),
                    r.num("%.1f", "l_p50_ms"), r.num("%.1f", "l_p99_ms"), r.num("%.1f", "h_p50_ms"), r.num("%.1f", "h_p99_ms"),
                    r.num("%.1f", "l_wait_p99_ms"), r.num("%.1f", "h_wait_p99_ms"), (long) r.number("queue_max"),
                    r.num("%.0f", "queue_wait_mean_ms") + " / " + r.num("%.0f", "queue_wait_max_ms"), Section.format(
                            "%.0f (%.0f, %.0f, %.0f)", r.number("lost"), r.number("refused_429"), r.number("expired"),
                            r.number("errors"))));
        }
        String checks = results.stream().flatMap(r -> r.checks().stream().map(c -> r.variant() + ": " + c.detail()))
                .reduce("Checks:", (a, b) -> a + "\n- " + b);
        return new Section(name(), List.of(Section.format("Three stub agents (time to first token %.1f ms per %d-char "
                        + "prompt block, no cache, one answer token) behind the demo proxy (rr, maxInFlightPerAgent %d, "
                        + "queueSize %d, queueTimeout %d s). Tenant L streams %d-char prompts (%.1f ms of service), H "
                        + "%d-char ones (%.1f ms), each %.1f requests/s (seeded Poisson, %.0f s, open loop; %dx what the "
                        + "agents serve with H); %s sends L alone, %s tenants by X-Tenant (VTC), %s no header (one shared "
                        + "tenant, first come first served), %s as %s with maxInFlightPerTenant %d. Latency: send to the "
                        + "answer's end at the client. Wait: time to first token at the client less the agents' own (the "
                        + "balancer's queue plus proxy and loopback). Queue wait mean / max: the balancer's queueFigures(); "
                        + "queue max sampled every 5 ms.", BLOCK_MS,
                BLOCK_CHARS, MAX_IN_FLIGHT, QUEUE_SIZE, QUEUE_TIMEOUT_S, L_PROMPT_CHARS, serviceNanos(L_PROMPT_CHARS) / 1e6,
                H_PROMPT_CHARS, serviceNanos(H_PROMPT_CHARS) / 1e6, ratePerTenant(), seconds, (int) DEMAND, ALONE, VTC,
                FIFO, LIMIT, VTC, TENANT_LIMIT), t.build(), checks), List.of());
    }
}
