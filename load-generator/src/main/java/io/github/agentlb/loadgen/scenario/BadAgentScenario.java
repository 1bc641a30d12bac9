package io.github.agentlb.loadgen.scenario;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.agent.StubAgent;
import io.github.agentlb.camel.AgentLoadBalancerSupport;
import io.github.agentlb.camel.AttemptOutcome;
import io.github.agentlb.core.Check;
import io.github.agentlb.core.health.OutlierEjection;
import io.github.agentlb.demo.ProxyConfig;
import io.github.agentlb.demo.ProxySettings;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.AgentSet;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.run.BalancerLog;
import io.github.agentlb.loadgen.run.BalancerLog.Kind;
import io.github.agentlb.loadgen.run.Changes;
import io.github.agentlb.loadgen.stats.Phases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The {@code busy}, {@code gray} and {@code brownout} scenarios: the uniform agents behind the demo
 * proxy; while the middle third of the measured requests is sent, agent {@value #BAD_AGENT} answers
 * every request at once with 429 and {@code Retry-After: 2} ({@code busy}) or with 500 ({@code gray});
 * in {@code brownout} (only by name) four agents run, A1 and A2 answer 503 without {@code Retry-After},
 * under the demo proxy's settings ({@link ProxySettings}). What the clients saw comes from their
 * outcomes, what the bad agents received and their ejections from the balancer ({@link BalancerLog}).
 * Checked: the trials' bounds ({@link #allowedClientErrors}, {@value #MAX_PER_REST} requests per
 * {@code Retry-After}, {@value #MAX_ATTEMPTS_PER_REQUEST} attempts per request in a brown-out).
 *
 * @param requests measured requests of a run, over a tenth as many users, >= 3
 */
public record BadAgentScenario(boolean busy, boolean brownOut, int requests) implements Scenario {

    public static final String BAD_AGENT = "A1";
    /** Requests a busy agent may get per {@code Retry-After}: its first and one more. */
    public static final int MAX_PER_REST = 2;
    /** The brown-out's bound on the balancer's attempts per request sent while it lasts. */
    public static final double MAX_ATTEMPTS_PER_REQUEST = 1.2;
    /** A rest or ejection this soon after the switch shares its chart marker, ms. */
    private static final double NEAR_MS = 400;

    /** 600 requests for {@code busy} (a phase about one {@code Retry-After}), 900 for {@code gray}. */
    public BadAgentScenario(boolean busy) {
        this(busy, false, busy ? 600 : 900);
    }

    public BadAgentScenario {
        Changes.atRequest(2, 3, requests); // checks the count
    }

    /** The {@code brownout} scenario of {@code requests} measured requests, >= 3 ({@link Scenario#byNameOnly()}: 3000). */
    public static BadAgentScenario brownOut(int requests) {
        return new BadAgentScenario(false, true, requests);
    }

    @Override
    public String name() {
        return busy ? "busy" : brownOut ? "brownout" : "gray";
    }

    /** The status the bad agents answer: 429, 500 or 503. */
    public int status() {
        return busy ? 429 : brownOut ? 503 : 500;
    }

    /** The agents that answer badly: A1, and A2 too in a brown-out. */
    public List<String> badAgents() {
        return brownOut ? List.of(BAD_AGENT, "A2") : List.of(BAD_AGENT);
    }

    /** The {@code Retry-After} A1 sends with it, s; {@link Duration#ZERO} for none. */
    public Duration rest() {
        return busy ? Duration.ofSeconds(2) : Duration.ZERO;
    }

    /** What A1 answers, for reports: {@code 429 with Retry-After: 2} or {@code 500 at once}. */
    public String answer() {
        return busy ? "429 with Retry-After: 2" : status() + " at once";
    }

    /** The most clients that may see A1's answer among {@code requests} sent meanwhile: 1/30 busy, 5% gray (trials'). */
    public long allowedClientErrors(long requests) {
        Check.atLeast("requests", requests, 0);
        return busy ? requests / 30 : brownOut ? 0 : requests * 5 / 100;
    }

    /** The share {@link #allowedClientErrors} allows, for reports: {@code 1 in 30} or {@code 5%}. */
    public String allowance() {
        return busy ? "1 in 30" : brownOut ? "none" : "5%";
    }

    @Override
    public LoadTestConfig workload(Setup setup) {
        return setup.load(requests, requests / 10);
    }

    List<AgentConfig> agents(Setup setup) {
        return AgentSet.UNIFORM.agents(setup.template(), setup.seed(), brownOut ? new String[] {"A4"} : new String[0]);
    }

    @Override
    public List<Variant> variants(Setup setup) {
        return setup.strategies().stream().map(s -> new Variant(s, s, () -> balancer(s), 1)).toList();
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    /** A balancer of {@code strategy}: the demo proxy's settings in a brown-out, else {@link OutageScenario#EJECTION}. */
    private AgentLoadBalancerSupport balancer(String strategy) {
        AgentLoadBalancerSupport balancer = Strategies.create(strategy);
        if (brownOut) {
            return new ProxySettings().configure(balancer);
        }
        balancer.setOutlierEjection(OutageScenario.EJECTION);
        return balancer;
    }

    @Override
    public Result run(Variant variant, Setup setup) throws Exception {
        int n = workload(setup).requests();
        String injects = String.join(" and ", badAgents()) + (brownOut ? " answer " : " answers ") + answer()
                + " from 1/3 to 2/3 of the requests";
        return ClusterRun.run(this, variant, setup, agents(setup), injects, ProxyConfig.builder(),
                List.of("before", "during", "after"), cluster -> {
                    List<StubAgent> bad = badAgents().stream().map(cluster::agent).toList();
                    String named = String.join("+", badAgents());
                    return List.of(new Changes.Change(named + " " + status(), Changes.atRequest(1, 3, n), false,
                                    Changes.before(System::nanoTime, () -> bad.forEach(a -> a.answerWith(status(), busy ? "2" : null)))),
                            new Changes.Change(named + " normal", Changes.atRequest(2, 3, n), false,
                                    Changes.now(System::nanoTime, () -> bad.forEach(StubAgent::answerNormally))));
                }, (m, cluster) -> result(m, cluster.balancer().getRetries(), cluster.balancer().getRetryBudgetExhausted()));
    }

    /**
     * The result of a measured run, from its outcomes, the balancer's attempts and health events and the
     * switch times alone (no I/O, no clock), with the balancer's retry budget counters at the end ({@code -1}: unknown).
     */
    Result result(ClusterRun.Measured m, long retries, long budgetExhausted) {
        long on = m.made().get(0).startNanos();
        long off = m.made().get(1).startNanos();
        Phases split = m.phases();
        List<BalancerLog.Attempt> onBad = m.log().attempts().stream()
                .filter(a -> badAgents().contains(a.agentId()) && a.startedNanos() - m.measuredFromNanos() >= 0).toList();
        long attemptsDuring = m.log().attempts().stream().filter(a -> split.indexOf(a.startedNanos()) == 1).count();
        List<Result.Phase> phases = m.phaseResults((i, list) -> Result.map("bad_answers_seen_by_clients",
                list.stream().filter(o -> o.outcome().status() == status() && !o.outcome().isSuccess()).count(),
                "bad_agent_requests", onBad.stream().filter(a -> split.indexOf(a.startedNanos()) == i).count()));
        double restMs = ClusterRun.millis(onBad.stream().filter(a -> (a.outcome() == AttemptOutcome.BUSY
                || brownOut && a.outcome() == AttemptOutcome.ERROR_ANSWER) && a.endedNanos() - on >= 0) // a 503 rests too
                .mapToLong(a -> a.endedNanos() - on).min());
        double ejectionMs = ClusterRun.millis(m.log().nanosUntil(BAD_AGENT, Kind.EJECTED, on));
        long readmissions = m.log().events().stream().filter(e -> e.agentId().equals(BAD_AGENT)
                && e.kind() == Kind.READMITTED && split.indexOf(e.atNanos()) == 1).count();
        // The attempts sent while A1 answered its fault, and those answered with it (sent just before the switch).
        double mostPerRest = !busy ? Double.NaN : mostWithin(onBad.stream().filter(a -> split.indexOf(a.startedNanos()) == 1
                        || a.outcome() == AttemptOutcome.BUSY || a.outcome() == AttemptOutcome.ERROR_ANSWER)
                .mapToLong(BalancerLog.Attempt::startedNanos).sorted().toArray(), rest().toNanos());
        long seen = phases.stream().mapToLong(p -> (long) p.figures().get("bad_answers_seen_by_clients")).sum();
        long allowed = allowedClientErrors(phases.get(1).stats().requests());
        long excess = m.run().statistics().clientErrors() - Math.min(seen, allowed);
        double attemptsPerRequest = (double) attemptsDuring / Math.max(1, phases.get(1).stats().requests());
        boolean within = excess == 0 && (!busy || mostPerRest <= MAX_PER_REST)
                && (!brownOut || attemptsPerRequest <= MAX_ATTEMPTS_PER_REQUEST);
        Map<String, Object> figures = Result.map("bad_agent", BAD_AGENT, "bad_answer_status", status(),
                "bad_answer_retry_after", busy ? "2" : null, "balancer", balancerSettings(balancer(Strategies.ROUND_ROBIN),
                        brownOut ? "the defaults" : "the failure scenario's"),
                "bad_answer_from_s", m.seconds(on), "bad_answer_until_s", m.seconds(off),
                "bad_answers_seen_by_clients", seen, "bad_answers_allowed", allowed, "excess_client_errors", excess,
                "rest_after_ms", restMs, "ejection_after_ms", ejectionMs,
                "ejections", m.log().count(BAD_AGENT, Kind.EJECTED, on), "readmissions_while_bad", readmissions,
                "most_bad_agent_requests_per_retry_after", mostPerRest, "bad_agents", String.join(",", badAgents()),
                "attempts_per_request_during", attemptsPerRequest, "retries", retries, "retry_budget_exhausted", budgetExhausted);
        List<Result.Check> checks = List.of(new Result.Check("within bounds", within, Section.format("%d client errors "
                + "beyond the %d of %d allowed%s%s", excess, allowed, status(), busy ? Section.format("; at most %.0f "
                + "requests to %s per Retry-After (goal <= %d)", mostPerRest, BAD_AGENT, MAX_PER_REST) : "", brownOut
                ? Section.format("; %.3f attempts per request during the brown-out (goal <= %.1f)", attemptsPerRequest,
                MAX_ATTEMPTS_PER_REQUEST) : "")));
        Result r = m.result(phases, figures, checks, excess, m.timeline(ClusterRun.TIMELINE_BUCKET));
        return ClusterRun.withPhaseLines(r, chart(r), r.line("%s received %s (before/during/after); %d clients saw its "
                        + "%d (%d allowed); rested after %s ms, ejected after %s ms;%s %s", String.join("+", badAgents()),
                perPhase(r, p -> p.figures().get("bad_agent_requests")), seen, status(), allowed,
                Section.num("%.0f", restMs), Section.num("%.0f", ejectionMs),
                brownOut ? Section.format(" %.3f attempts per request during; retries "
                        + "%d, budget exhausted %d;", attemptsPerRequest, retries, budgetExhausted) : "",
                within ? "within bounds" : "NOT within bounds"));
    }

    /** The most of the sorted instants {@code times} within any half-open window {@code [t, t + width)}; O(n). */
    static int mostWithin(long[] times, long width) {
        int most = 0;
        for (int first = 0, last = 0; last < times.length; last++) {
            while (times[last] - times[first] >= width) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most;
    }

    /** The timeline, with the switches marked and A1's rest or ejection when it came later than {@link #NEAR_MS}. */
    private Chart chart(Result r) {
        double on = r.number("bad_answer_from_s");
        List<Chart.Marker> markers = new ArrayList<>();
        markers.add(new Chart.Marker(on, BAD_AGENT + " " + status() + reaction(r.number("rest_after_ms"), "rested", on,
                markers) + reaction(r.number("ejection_after_ms"), "ejected", on, markers)));
        markers.add(new Chart.Marker(r.number("bad_answer_until_s"), BAD_AGENT + " normal"));
        return ClusterRun.timelineChart(r, Section.format("%s answer%s %s from %.1f s to %.1f s",
                String.join(" and ", badAgents()), brownOut ? "" : "s", answer(), on, r.number("bad_answer_until_s")),
                markers);
    }

    /** {@code , <label>} when the reaction came within {@link #NEAR_MS}, else "" and a marker of its own if it came. */
    private static String reaction(double ms, String label, double onSeconds, List<Chart.Marker> markers) {
        if (ms >= NEAR_MS) {
            markers.add(new Chart.Marker(onSeconds + ms / 1e3, label));
        }
        return ms < NEAR_MS ? ", " + label : "";
    }

    /** The failure settings of {@code balancer} (read from it, so they cannot drift), its ejection times {@code whose}. */
    private static String balancerSettings(AgentLoadBalancerSupport balancer, String whose) {
        OutlierEjection e = balancer.getOutlierEjection();
        var rules = balancer.getAnswerRules();
        return Section.format("429 and 503 with Retry-After rest the agent (at most %d s, %d s without one) and go "
                        + "to another agent; %s are error answers (a 503 without Retry-After also rests the agent), %d in "
                        + "a row eject the agent for %d ms, doubling up to %d ms (%s); retry budget %.0f%%, at least %d",
                rules.maxRest().toSeconds(), rules.defaultRest().toSeconds(), rules.errorStatuses().stream().sorted()
                        .map(String::valueOf).collect(Collectors.joining(", ")), e.consecutiveErrorAnswers(),
                e.baseEjectionTime().toMillis(), e.maxEjectionTime().toMillis(), whose,
                balancer.getRetryBudgetShare() * 100, balancer.getRetryBudgetMinRetries());
    }

    private static String perPhase(Result r, Function<Result.Phase, Object> figure) {
        return r.phases().stream().map(p -> String.valueOf(figure.apply(p))).collect(Collectors.joining("/"));
    }

    @Override
    public Section section(List<Result> results) {
        Section.TableBuilder table = Section.table().left("strategy").right("client errors before/during/after",
                "of them " + status() + " (allowed)", String.join("+", badAgents()) + " requests before/during/after",
                BAD_AGENT + " rested after ms", BAD_AGENT + " ejected after ms", "ejections / re-admissions while bad");
        if (busy) {
            table.right("most " + BAD_AGENT + " requests per " + rest().toSeconds() + " s");
        }
        if (brownOut) {
            table.right("attempts per request during", "retries / budget exhausted");
        }
        table.left("within bounds");
        for (Result r : results) {
            table.row(List.of(r.variant(), perPhase(r, p -> p.stats().clientErrors()),
                    Section.format("%.0f (%.0f)", r.number("bad_answers_seen_by_clients"), r.number("bad_answers_allowed")),
                    perPhase(r, p -> p.figures().get("bad_agent_requests")), r.num("%.0f", "rest_after_ms"),
                    r.num("%.0f", "ejection_after_ms"),
                    Section.format("%.0f / %.0f", r.number("ejections"), r.number("readmissions_while_bad")),
                    busy ? List.of(r.num("%.0f", "most_bad_agent_requests_per_retry_after")) : List.of(),
                    brownOut ? List.of(r.num("%.3f", "attempts_per_request_during"), Section.format("%.0f / %.0f",
                            r.number("retries"), r.number("retry_budget_exhausted"))) : List.of(),
                    r.passed() ? "yes" : "NO"));
        }
        return new Section(name(), List.of(Section.format("Agents %s as in the uniform scenario; %s. Just before "
                        + "request n/3+1 is sent %s start%s answering every request with %s (`StubAgent.answerWith`), "
                        + "before 2n/3+1 normally again. Balancer: %s.%s", brownOut ? "A1-A4" : "A1-A3",
                ClusterRun.loadText(results.get(0).load()), String.join(" and ", badAgents()), brownOut ? "" : "s",
                answer(), results.get(0).figures().get("balancer"), brownOut ? " Attempts per request during = the balancer's attempts on any agent sent during the "
                        + "brown-out / the requests sent then (goal <= " + MAX_ATTEMPTS_PER_REQUEST + "); retries and "
                        + "budget exhausted = the balancer's counters `agentlb.retries` and "
                        + "`agentlb.retry.budget.exhausted` at the end of the run (the warm-up had no fault)." : ""),
                table.build(), Section.format("A request belongs to the phase in which it was sent. Client errors = "
                                + "errors + timeouts; \"of them %d\" = clients that got %s's answer, \"allowed\" = %s of the "
                                + "requests sent during the fault. %2$s requests = attempts the balancer made on %2$s "
                                + "(its attempt listener): what %2$s received, including the answers the client never saw "
                                + "because the request went elsewhere. Rested = from the switch to %2$s's first busy "
                                + "answer (the balancer rests it for its Retry-After); ejected = from the switch to its "
                                + "first ejection; ejections from the switch on, and re-admissions while %2$s answered "
                                + "badly: each by the success of a request sent to it before the switch, after which it "
                                + "takes %d more error answers to be ejected again.%s Within bounds: no client error "
                                + "beyond the allowance%s.", status(), BAD_AGENT, allowance(),
                        OutageScenario.EJECTION.consecutiveErrorAnswers(), busy ? " Most requests per 2 s = the most attempts on " + BAD_AGENT + " sent within any 2 s "
                                + "while it answered " + status() + "." : "",
                        busy ? " and at most " + MAX_PER_REST + " requests to " + BAD_AGENT + " per Retry-After" : "")),
                ClusterRun.charts(results));
    }
}
