package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.run.EmbeddedCluster;
import io.github.agentlb.loadgen.stats.Stickiness.KeyMoves;
import io.github.agentlb.loadgen.stats.TimedOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.support.AsyncProcessorConverterHelper;

/**
 * The {@code fleet} scenario: the uniform agents A1-A3 and a fourth, {@value #JOINING}, behind the
 * demo proxy; {@value #JOINING} joins at 1/4 of the measured requests (with {@link #SLOW_START}),
 * {@value #LEAVING} is drained at 1/2 and back at 3/4, each a call of the balancer's membership API on
 * the thread that starts that request. Measured: per phase the client's figures and the keys that
 * moved ({@link KeyMoves}); how the drain went.
 *
 * <p>How A4 joins: the demo proxy cannot build a producer for an agent added later, so it starts over
 * A1-A4 and A4 is removed before the warm-up, its producer added again at 1/4 under the same name.
 *
 * @param requests measured requests of a run, >= 4
 */
public record FleetScenario(SlowStart slowStart, int requests, int users) implements Scenario {

    public static final String JOINING = "A4", LEAVING = "A2";
    /** The balancers' slow start: 2 s, linear, at least 10%: over within a phase (about 3 s; the demo's is 30 s). */
    public static final SlowStart SLOW_START = new SlowStart(Duration.ofSeconds(2), 1.0, 0.1);
    private static final Set<String> CHANGING = Set.of(JOINING, LEAVING);
    private static final List<String> AGENTS = List.of("A1", "A2", "A3", JOINING);

    /** The main job's scenario: {@link #SLOW_START}, 1200 requests over 100 users (about 3 per user and phase). */
    public FleetScenario() {
        this(SLOW_START, 1_200, 100);
    }

    public FleetScenario {
        Changes.atRequest(3, 4, requests); // checks the count
    }

    @Override
    public String name() {
        return "fleet";
    }

    @Override
    public LoadTestConfig workload(Setup setup) {
        return setup.load(requests, users);
    }

    List<AgentConfig> agents(Setup setup) {
        return AgentSet.UNIFORM.agents(setup.template(), setup.seed(), JOINING);
    }

    @Override
    public List<Variant> variants(Setup setup) {
        return setup.strategies().stream().map(s -> Variant.of(s, s, b -> b.setSlowStart(slowStart), 1)).toList();
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    @Override
    public Result run(Variant variant, Setup setup) throws Exception {
        int n = workload(setup).requests();
        AtomicLong left = new AtomicLong(-1);
        String injects = Section.format("%s joins after 1/4 of the requests (slow start %d ms), %s is drained after "
                + "1/2 and back after 3/4", JOINING, slowStart.window().toMillis(), LEAVING);
        return ClusterRun.run(this, variant, setup, agents(setup), injects, ProxyConfig.builder(),
                List.of("before", "joined", "drained", "returned"), cluster -> {
                    AgentLoadBalancerSupport balancer = cluster.balancer();
                    Map<String, AsyncProcessor> children = childrenByAgent(cluster);
                    balancer.removeAgent(JOINING);
                    return List.of(new Changes.Change("join " + JOINING, Changes.atRequest(1, 4, n), false,
                                    Changes.now(System::nanoTime, () -> balancer.addAgent(JOINING, children.get(JOINING), 1.0))),
                            new Changes.Change("drain " + LEAVING, Changes.atRequest(2, 4, n), false,
                                    drain(() -> balancer.drainAgent(LEAVING), left, System::nanoTime)),
                            new Changes.Change("return " + LEAVING, Changes.atRequest(3, 4, n), false,
                                    Changes.now(System::nanoTime, () -> balancer.addAgent(LEAVING, children.get(LEAVING), 1.0))));
                }, (m, cluster) -> result(m, left.get() < 0 ? null : left.get()));
    }

    /** The drain of {@value #LEAVING}: the call; {@code left} set on {@code clock} once it has left. */
    static Changes.Action drain(Supplier<CompletableFuture<Void>> drain, AtomicLong left, LongSupplier clock) {
        return () -> {
            drain.get().thenRun(() -> left.set(clock.getAsLong()));
            return clock.getAsLong();
        };
    }

    /** The balancer's children by agent id (A1..A4), as the proxy built them. */
    private static Map<String, AsyncProcessor> childrenByAgent(EmbeddedCluster cluster) {
        Map<String, AsyncProcessor> children = cluster.balancer().getProcessors().stream().collect(Collectors.toMap(
                child -> cluster.agentIdOf(AgentLoadBalancerSupport.agentIdOf(child)),
                AsyncProcessorConverterHelper::convert));
        if (!children.keySet().containsAll(CHANGING)) {
            throw new IllegalStateException("the proxy's balancer has no child for " + CHANGING + ": " + children.keySet());
        }
        return children;
    }

    /** The result of a measured run (no I/O, no clock); {@code leftNanos}: when {@value #LEAVING} left, or null. */
    Result result(ClusterRun.Measured m, Long leftNanos) {
        List<List<TimedOutcome>> split = m.phases().split(m.outcomes());
        List<Result.Phase> phases = m.phaseResults((i, list) -> {
            if (i == 0) {
                return Map.of();
            }
            KeyMoves moves = KeyMoves.between(split.get(i - 1), list, CHANGING);
            return Map.of("keys_moved", Result.map("users_compared", moves.compared(), "moved", moves.moved(),
                    "other_moved", moves.otherMoved()));
        });
        Changes.Made join = m.made().get(0);
        Changes.Made drain = m.made().get(1);
        Changes.Made back = m.made().get(2);
        Map<String, Object> figures = Result.map("slow_start", Section.format("slow start %d ms, aggression %.1f, "
                        + "minimum share %.2f", slowStart.window().toMillis(), slowStart.aggression(), slowStart.minWeightShare()),
                "drain_ms", leftNanos == null ? Double.NaN : Math.max(0, leftNanos - drain.beganNanos()) / 1e6,
                "in_flight_at_drain", count(m, LEAVING, o -> o.sentAtNanos() - drain.startNanos() < 0
                        && o.completedAtNanos() - drain.beganNanos() >= 0),
                "chosen_while_drained", count(m, LEAVING, o -> o.sentAtNanos() - drain.startNanos() >= 0
                        && o.completedAtNanos() - back.beganNanos() <= 0),
                "answered_before_join", count(m, JOINING, o -> o.completedAtNanos() - join.beganNanos() <= 0),
                "other_keys_moved", phases.stream().skip(1).mapToInt(p -> moved(p, "other_moved")).sum());
        Result r = m.result(phases, figures, List.of(), m.run().statistics().clientErrors(),
                m.timeline(ClusterRun.TIMELINE_BUCKET));
        return ClusterRun.withPhaseLines(r, ClusterRun.timelineChart(r, JOINING + " joins, " + LEAVING
                + " drained and back", null), r.line("keys moved %s, other keys moved %.0f; %s drained in %s ms, chosen "
                        + "while drained %.0f; %s answered before its join %.0f", keysMoved(r), r.number("other_keys_moved"),
                LEAVING, r.num("%.0f", "drain_ms"), r.number("chosen_while_drained"), JOINING, r.number("answered_before_join")));
    }

    private static int count(ClusterRun.Measured m, String agent, Predicate<TimedOutcome> when) {
        return (int) m.outcomes().stream()
                .filter(o -> o.outcome().isSuccess() && o.outcome().agentId().equals(agent) && when.test(o)).count();
    }

    private static int moved(Result.Phase p, String figure) {
        return Result.<Map<String, Integer>>figure(p.figures(), "keys_moved").get(figure);
    }

    /** {@code 16/93}: the keys a phase moved of those compared. */
    private static String movedOf(Result.Phase p) {
        return moved(p, "moved") + "/" + moved(p, "users_compared");
    }

    /** {@code 16/93, 33/93, 24/94}: keys moved of those compared, per change. */
    private static String keysMoved(Result r) {
        return r.phases().stream().skip(1).map(FleetScenario::movedOf).collect(Collectors.joining(", "));
    }

    @Override
    public Section section(List<Result> results) {
        Section.TableBuilder summary = Section.table().left("strategy").right("client errors");
        results.get(0).phases().forEach(p -> summary.right(p.name() + " A1/A2/A3/A4"));
        summary.left("keys moved (join, drain, return)").right("other keys moved", LEAVING + " in flight at drain",
                LEAVING + " drain ms", LEAVING + " chosen while drained", JOINING + " before join");
        Section.TableBuilder phases = Section.table().left("strategy", "phase", "opened by")
                .right("requests", "client errors", "p99 ms").right(AGENTS.toArray(String[]::new))
                .right("keys moved from the phase before", "of them other keys");
        for (Result r : results) {
            summary.row(List.of(r.variant(), r.clientErrors(), r.phases().stream().map(p -> AGENTS.stream()
                    .map(a -> String.valueOf(p.stats().answered(a))).collect(Collectors.joining("/"))).toList(),
                    keysMoved(r), (int) r.number("other_keys_moved"), (int) r.number("in_flight_at_drain"),
                    r.num("%.0f", "drain_ms"), (int) r.number("chosen_while_drained"),
                    (int) r.number("answered_before_join")));
            for (Result.Phase p : r.phases()) {
                boolean first = p.figures().isEmpty();
                phases.row(List.of(r.variant(), p.name(), p.openedBy(), p.stats().requests(), p.stats().clientErrors(),
                        Section.num("%.1f", p.stats().latency().p99Ms()), AGENTS.stream().map(p.stats()::answered)
                        .toList(), first ? "" : movedOf(p), first ? "" : moved(p, "other_moved")));
            }
        }
        return new Section(name(), List.of(Section.format("Agents A1-A3 as in the uniform scenario and a fourth, %s; "
                        + "%s. Through the balancer's membership API, just before request n/4+1 is sent %s joins (%s), "
                        + "before n/2+1 %s is drained (drainAgent: no new requests, those in flight finish, then it "
                        + "leaves), before 3n/4+1 %s is added again (same slow start).", JOINING,
                ClusterRun.loadText(results.get(0).load()), JOINING, results.get(0).figures().get("slow_start"), LEAVING,
                LEAVING), summary.build(), phases.build(), "A request belongs to the phase in which it was sent. Client "
                + "errors = errors + timeouts (goal 0). A1-A4: requests each agent answered. Keys moved: users answered "
                + "in both phases whose agent (the one that answered their last request of the phase) changed; \"other "
                + "keys\" = moved between two agents that never joined or left (A1, A3): consistent hashing promises 0 "
                + "(`ch`); `rr` and `pid` do not keep users on an agent, so most of their keys move. \"A2 in flight at "
                + "drain\" = its answers to requests sent before the drain and answered after it began; \"A2 drain ms\" "
                + "= from the drain to A2 leaving the balancer; \"A2 chosen while drained\" = its answers to requests "
                + "sent after the drain and answered before its return (goal 0); \"A4 before join\" = its answers "
                + "before it joined (goal 0)."), ClusterRun.charts(results));
    }
}
