package io.github.agentlb.loadgen.cli;

import io.github.agentlb.agent.AgentConfig;
import io.github.agentlb.core.Durations;
import io.github.agentlb.demo.Strategies;
import io.github.agentlb.loadgen.config.LoadTestConfig;
import io.github.agentlb.loadgen.config.Pacing;
import io.github.agentlb.loadgen.config.Workload;
import io.github.agentlb.loadgen.scenario.HotKeyScenario;
import io.github.agentlb.loadgen.scenario.OutageScenario;
import io.github.agentlb.loadgen.scenario.PlainScenario;
import io.github.agentlb.loadgen.scenario.Scenario;
import io.github.agentlb.loadgen.scenario.SlowAgentScenario;
import io.github.agentlb.loadgen.scenario.TenantsScenario;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of {@link LoadGeneratorMain}, a picocli mixin, and their validation: each
 * {@code validated...} method turns options into what a run needs or throws a
 * {@link ParameterException} naming the option and its value (exit code 2). Not thread-safe; one
 * per command line.
 *
 * <p>Over 300 lines: one picocli option per flag with its description, and the checks between them.
 */
final class LoadOptions {

    private static final String ALL_SCENARIOS = "all";
    private static final Pattern FIELD = Pattern.compile("(requests|users|concurrency|timeoutMs|warmup|hotShare) ");

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--url", paramLabel = "URL",
            description = "Base URL of a running balancer, e.g. http://localhost:8000. "
                    + "Default: start agents and balancer in-process for each strategy.")
    String url;
    @Option(names = "--strategy", split = ",", paramLabel = "NAME",
            description = "Strategies to run, comma-separated, in any case, from: ${COMPLETION-CANDIDATES}; default all, in that "
                    + "order. With --url: exactly one label naming the running balancer's strategy (required).",
            completionCandidates = StrategyNames.class)
    private List<String> strategies;
    @Option(names = "--scenario", split = ",", paramLabel = "SCENARIO",
            description = "Scenarios of the in-process runs, comma-separated: uniform, heterogeneous (the agents), "
                    + "hotkey (uniform agents, user 0 sends --hot-share of the requests, default "
                    + HotKeyScenario.DEFAULT_HOT_SHARE + "; ch and avn each plain and bounded at balance factor "
                    + HotKeyScenario.BALANCE_FACTOR + ", run at the same time), "
                    + "failure (agent A1 refuses connections from 1/3 to 2/3 of the run), hang (A1 accepts and never "
                    + "answers meanwhile), fleet (1200 requests: agent A4 joins at 1/4 with slow start, A2 is drained at "
                    + "1/2 and back at 3/4), agents (48 agent conversations of 20 turns, each turn adding a tool result, "
                    + "streamed over eight LLM-like agents with prefix caches; rr, lr, ch and the agent keys with and "
                    + "without bounds, at the same time), busy (600 requests: A1 answers 429 with Retry-After: 2 from 1/3 "
                    + "to 2/3 of the run), gray (900 requests: A1 answers 500 at once meanwhile), brownout (only by name: A1 and A2 of four agents "
                    + "answer 503 meanwhile, the library's defaults and the demo's settings), slow (only by name: A3 five "
                    + "times slower; rr with all agents healthy, with A3 slow, and with A3 slow and hedging on, one after "
                    + "another), tenants (only by name: a light and a heavy tenant through the balancer's fair queue, "
                    + "the light one alone, both by X-Tenant, both as one shared tenant, both with a limit per tenant), or all (default: all, in the order uniform, heterogeneous, hotkey, failure, hang, agents, "
                    + "busy, fleet, gray; with --url: uniform or heterogeneous, a label only, or agents, its conversations "
                    + "sent to the URL).")
    List<String> scenario;
    @Option(names = "--failure-requests", paramLabel = "N", defaultValue = "" + OutageScenario.DEFAULT_REQUESTS,
            description = "Requests per strategy of the failure and hang scenarios, >= 3 (default: ${DEFAULT-VALUE}); "
                    + "a short run can leave a phase without requests: the console says NOT MEASURED and the JSON's "
                    + "figures.unmeasured_phases names it (no check fails).")
    private int failureRequests;
    @Option(names = "--failure-users", paramLabel = "N",
            description = "Distinct user_ids of the failure and hang scenarios (default: " + OutageScenario.DEFAULT_USERS
                    + ", or fewer in proportion when --failure-requests is under " + OutageScenario.DEFAULT_REQUESTS + ").")
    private Integer failureUsers;
    @Option(names = "--warmup", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_WARMUP,
            description = "Warm-up requests before each measured run, not counted (default: ${DEFAULT-VALUE}; 0 = none); an open-loop --url run warms up at least 30 s at its rate.")
    private int warmup;
    @Option(names = "--requests", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_REQUESTS,
            description = "Requests per strategy of uniform, heterogeneous, hotkey and --url runs, at most "
                    + LoadTestConfig.MAX_REQUESTS + " (default: ${DEFAULT-VALUE}); failure and hang: --failure-requests; "
                    + "others: their own counts (--scenario).")
    private int requests;
    @Option(names = "--users", paramLabel = "N",
            description = "Distinct user_ids besides the hot user, sharing the requests evenly (default: "
                    + LoadTestConfig.DEFAULT_USERS + ", or a tenth of their requests when they are fewer than "
                    + LoadTestConfig.DEFAULT_USERS + ", said on the console; below " + 10 * LoadTestConfig.DEFAULT_USERS
                    + " requests each user then sends fewer than 10 and stickiness says little: give --users; in the "
                    + "hotkey scenario their requests are those not from the hot user).")
    private Integer users;
    @Option(names = "--hot-share", paramLabel = "F",
            description = "User 0 sends this share of all requests, 0 <= F < 1, in the seeded order; users 1..N "
                    + "share the rest (default: 0, none; " + HotKeyScenario.DEFAULT_HOT_SHARE + " in the hotkey scenario).")
    private Double hotShare;
    /** The longest a run for a count at {@code --rate} may take, warm-up included. */
    static final Duration MAX_RUN = Duration.ofHours(24);
    /** The most proxies {@code --replicas} runs in this JVM. */
    static final int MAX_REPLICAS = 16;
    /** The shortest {@code --interval}: a progress line and a soak figure per second at most. */
    static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    @Option(names = "--replicas", paramLabel = "N", defaultValue = "1",
            description = "In-process runs: N proxies (1.." + LoadOptions.MAX_REPLICAS + "), each with its own balancer, over the same agents; request i "
                    + "goes to replica i mod N (default: ${DEFAULT-VALUE}). Stickiness then counts a user as sticky "
                    + "only if every replica sent it to the same agent. The hotkey scenario then adds avn-one (one "
                    + "instance) and avn-shared (the replicas sharing one allocation through an in-process ZooKeeper). "
                    + "Only the uniform, heterogeneous and hotkey scenarios, in-process in a closed loop: not with "
                    + "--url, --rate or --duration; without --scenario it runs those three.")
    int replicas;
    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_CONCURRENCY,
            description = "Concurrent workers (default: ${DEFAULT-VALUE}).")
    private int concurrency;
    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + LoadTestConfig.DEFAULT_SEED,
            description = "Seed of the request order and the agents' delays (default: ${DEFAULT-VALUE}).")
    long seed;
    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "" + LoadTestConfig.DEFAULT_TIMEOUT_MS,
            description = "Per-request timeout, ms, 1.." + LoadTestConfig.MAX_TIMEOUT_MS + " (default: ${DEFAULT-VALUE}).")
    private long timeoutMs;
    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (default: " + LoadGeneratorMain.DEFAULT_OUT + ", or "
                    + LoadGeneratorMain.DEFAULT_URL_OUT + " with --url, "
                    + "so that a run against a running balancer does not replace the main job's files).")
    Path out;
    @Option(names = "--rate", paramLabel = "R",
            description = "Open loop: send R requests per second on a constant schedule, whatever the answers "
                    + "(--concurrency then sizes only the warm-up); latency counts from each request's intended send "
                    + "time, so a stall is recorded in full (no coordinated omission). Default: closed loop.")
    private Double rate;
    @Option(names = "--duration", paramLabel = "TIME",
            description = "Send for TIME (e.g. 90s, 10m, 1h; a bare number is seconds) instead of --requests, with "
                    + "a progress line per --interval, a soak section and chart soak_[<scenario>_]<strategy>.png, and "
                    + "a verdict: errors, p99 drift (last minute vs first), heap drift (embedded runs). At most 24h.")
    private String duration;
    @Option(names = "--interval", paramLabel = "TIME",
            description = "Interval of --duration's progress lines and figures, at least 1s (default: 10s).")
    private String interval;
    @Option(names = "--agent-delay-min-ms", paramLabel = "MS", defaultValue = "" + AgentConfig.DEFAULT_DELAY_MIN_MS,
            description = "In-process agents: shortest service delay, ms (default: ${DEFAULT-VALUE}).")
    private int agentDelayMinMs;
    @Option(names = "--agent-delay-max-ms", paramLabel = "MS", defaultValue = "" + AgentConfig.DEFAULT_DELAY_MAX_MS,
            description = "In-process agents: longest service delay, ms (default: ${DEFAULT-VALUE}).")
    private int agentDelayMaxMs;

    /** The load with --hot-share, else {@code defaultShare}, and --users, else {@link #defaultUsers}. */
    LoadTestConfig validatedConfig(double defaultShare) {
        double share = hotShare != null ? hotShare : defaultShare;
        try {
            int hot = Workload.hotRequests(requests, share);
            int others = requests - hot;
            int n = users != null ? users : defaultUsers(others);
            if (requests >= 1 && (n < 1 || n > others)) {
                throw usage(hot == 0
                        ? "--users must be in 1.." + requests + " (--requests " + requests + "), was " + n
                                + ": lower --users or raise --requests"
                        : "--users must be in 1.." + others + " (--requests " + requests + " less the hot user's "
                                + hot + "), was " + n + ": lower --users or --hot-share, or raise --requests");
            }
            return new LoadTestConfig(requests, n, concurrency, seed, timeoutMs,
                    LoadTestConfig.DEFAULT_PROGRESS_EVERY, warmup, share);
        } catch (IllegalArgumentException e) {
            throw usage(asOption(e.getMessage()));
        }
    }

    /**
     * The line saying the users {@code c} got without {@code --users} when fewer than the default, or when a
     * {@code --requests} given leaves them fewer than 10 requests each (stickiness then says little); else {@code null}.
     */
    String usersNotice(LoadTestConfig c, String scenario) {
        int others = c.requests() - Workload.hotRequests(c.requests(), c.hotShare());
        boolean few = matched("--requests") && c.users() > 1 && others < 10L * c.users(); // fewer users would help
        return users != null || c.users() == LoadTestConfig.DEFAULT_USERS && !few ? null : String.format(Locale.ROOT,
                "--users not given: %d user%s %s %d request%s%s%s", c.users(), c.users() == 1 ? "" : "s",
                others == c.requests() ? "sharing" : "besides the hot user, sharing the", others, others == 1 ? "" : "s",
                (others == c.requests() ? "" : " not from it") + (scenario == null ? "" : " (" + scenario + " scenario)"),
                few ? ", fewer than 10 each: stickiness says little; give --users" : "");
    }

    /**
     * The notices for the scenarios that run, once every option is checked: the users each load got without
     * {@code --users} (hotkey: with its own hot user), then {@code --requests}, {@code --users} and {@code --warmup}
     * not used.
     */
    List<String> notices(Collection<Scenario> runs, LoadTestConfig config, LoadTestConfig hotConfig) {
        return Stream.of(runs.stream().map(s -> s instanceof PlainScenario ? usersNotice(config, null)
                        : s instanceof HotKeyScenario ? usersNotice(hotConfig, "hotkey") : null).distinct(),
                runs.stream().flatMap(this::unusedNotices),
                Stream.of("--agent-delay-min-ms", "--agent-delay-max-ms").filter(o -> url != null && matched(o))
                        .map(o -> o + " is not used with --url (the agents are the balancer's)"))
                .flatMap(lines -> lines).filter(Objects::nonNull).toList();
    }

    private boolean matched(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** The lines saying that --requests, --users or --warmup, given, is not used by {@code s}. */
    private Stream<String> unusedNotices(Scenario s) {
        boolean own = !(s instanceof PlainScenario || s instanceof HotKeyScenario);
        boolean outage = s instanceof OutageScenario;
        String notUsed = " is not used by the " + s.name() + " scenario";
        return Stream.of(own && matched("--requests") ? "--requests " + requests + notUsed
                        + (outage ? " (--failure-requests sets its count)" : " (it sends its own count)") : null,
                own && matched("--users") ? "--users " + users + notUsed
                        + (outage ? " (--failure-users sets its users)" : " (it has its own users)") : null,
                s.ownWarmup() && matched("--warmup") ? "--warmup " + warmup + notUsed : null);
    }

    /** {@link LoadTestConfig}'s {@code message} with its leading field as an option ({@code timeoutMs}: {@code --timeout-ms}). */
    static String asOption(String message) {
        Matcher m = FIELD.matcher(message);
        return m.lookingAt() ? "--" + m.group(1).replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT)
                + message.substring(m.end(1)) : message;
    }

    /**
     * Users without {@code --users}: {@value LoadTestConfig#DEFAULT_USERS}, or a tenth of fewer {@code requests}
     * (>= 1). Not a tenth of any count: the main job's hotkey scenario (1,600 requests not from the hot user
     * over 200 users) and its figures in the docs rest on it.
     */
    static int defaultUsers(int requests) {
        return requests >= LoadTestConfig.DEFAULT_USERS ? LoadTestConfig.DEFAULT_USERS : Math.max(1, requests / 10);
    }

    /** Failure and hang users without {@code --failure-users}: their default, or fewer in proportion to fewer requests (>= 1). */
    static int defaultFailureUsers(int requests) {
        return (int) Math.min(OutageScenario.DEFAULT_USERS,
                Math.max(1, (long) requests * OutageScenario.DEFAULT_USERS / OutageScenario.DEFAULT_REQUESTS));
    }

    /** The pacing of {@code --rate}, {@code --duration} and {@code --interval}. */
    Pacing validatedPacing() {
        try {
            Duration every = interval == null ? Pacing.DEFAULT_INTERVAL : read("--interval", interval);
            Duration until = duration == null ? null : parse("--duration", duration);
            if (interval != null && every.compareTo(MIN_INTERVAL) < 0) {
                throw usage("--interval must be at least " + Pacing.formatDuration(MIN_INTERVAL) + ", was '" + interval + "'");
            }
            if (until != null && matched("--requests")) {
                throw usage("--duration sends for a time instead of --requests: give one of them, was --requests "
                        + requests + " and --duration '" + duration + "'");
            }
            if (until != null && until.compareTo(MAX_RUN) > 0) {
                throw usage("--duration must be at most " + MAX_RUN.toHours() + "h, was '" + duration + "'");
            }
            if (rate != null && !(rate > 0 && rate <= Pacing.MAX_RATE)) {
                throw usage("--rate must be in (0, " + (long) Pacing.MAX_RATE + "], was " + rate);
            }
            if (rate != null && until == null && (requests + (double) warmup) / rate > MAX_RUN.toSeconds()) {
                double hours = (requests + (double) warmup) / rate / 3600;
                throw usage(String.format(Locale.ROOT, "--rate %s sends --requests %d and --warmup %d in %s h: at most %d h; "
                        + "raise --rate or send fewer", rate, requests, warmup,
                        hours > 1e6 ? "more than 1,000,000" : String.format(Locale.ROOT, "%.1f", hours), MAX_RUN.toHours()));
            }
            if (interval != null && until == null) {
                throw usage("--interval sets --duration's progress lines: give --duration too, or leave --interval out");
            }
            if (until != null && until.compareTo(every) < 0) {
                throw usage("--duration must be at least --interval (" + Pacing.formatDuration(every) + "), was "
                        + duration);
            }
            return new Pacing(rate == null ? 0 : rate, until, every);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    static Duration parse(String option, String text) {
        Duration d = read(option, text);
        if (d.isZero()) {
            throw new IllegalArgumentException(option + " must be > 0, was '" + text + "'");
        }
        return d;
    }

    /** {@code text} as a time, zero included (a bare number is seconds). */
    private static Duration read(String option, String text) {
        return Durations.read(text.trim().toLowerCase(Locale.ROOT).replaceFirst("^(\\d+)$", "$1s")).orElseThrow(
                () -> new IllegalArgumentException(option + " must be a time such as 90s, 10m or 1h, was '" + text + "'"));
    }

    /** The scenarios to run ({@code --scenario}'s help says which), in {@link Scenario#all()}'s order. */
    List<Scenario> validatedScenarios() {
        List<String> choices = scenario != null ? scenario.stream().map(c -> c.trim().toLowerCase(Locale.ROOT)).toList()
                : url != null || rate != null || duration != null ? List.of("uniform")
                : replicas > 1 ? List.of("uniform", "heterogeneous", "hotkey") : List.of(ALL_SCENARIOS);
        List<Scenario> all = Scenario.all();
        List<String> names = all.stream().map(Scenario::name).toList();
        List<Scenario> byNameOnly = Scenario.byNameOnly();
        List<String> byName = byNameOnly.stream().map(Scenario::name).toList();
        for (String choice : choices) {
            if (!ALL_SCENARIOS.equals(choice) && !names.contains(choice) && !byName.contains(choice)) {
                throw usage("--scenario must be " + String.join(", ", names) + " or all, was '" + choice
                        + "' (or, by name only: " + String.join(", ", byName) + ")");
            }
        }
        List<Scenario> chosen = Stream.concat(all.stream(), byNameOnly.stream())
                .filter(s -> choices.contains(s.name()) || choices.contains(ALL_SCENARIOS) && all.contains(s)).toList();
        if (url != null && !(chosen.size() == 1 && chosen.get(0).againstUrl())) {
            throw usage("with --url, --scenario must be one scenario (" + all.stream().filter(Scenario::againstUrl)
                    .map(Scenario::name).collect(Collectors.joining(", ")).replaceAll(", ([a-z]+)$", " or $1")
                    + "), was '" + String.join(",", choices) + "'");
        }
        return chosen;
    }

    LoadTestConfig validatedFaultConfig() {
        if (failureRequests < 3) {
            throw usage("--failure-requests must be >= 3 (three phases), was " + failureRequests);
        }
        try {
            int users = failureUsers != null ? failureUsers : defaultFailureUsers(failureRequests);
            return new LoadTestConfig(failureRequests, users, concurrency, seed, timeoutMs,
                    LoadTestConfig.DEFAULT_PROGRESS_EVERY, warmup, 0);
        } catch (IllegalArgumentException e) {
            throw usage("failure scenario: " + asOption(e.getMessage()).replace("--requests", "--failure-requests")
                    .replace("--users", "--failure-users"));
        }
    }

    AgentConfig validatedAgentTemplate() {
        try {
            return AgentConfig.custom().delayMs(agentDelayMinMs, agentDelayMaxMs).build();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage().replace("delayMinMs", "--agent-delay-min-ms")
                    .replace("delayMaxMs", "--agent-delay-max-ms"));
        }
    }

    List<String> validatedStrategies() {
        List<String> known = Strategies.names();
        if (strategies == null || strategies.isEmpty()) {
            return known;
        }
        List<String> names = strategies.stream().map(s -> s.trim().toLowerCase(Locale.ROOT)).toList(); // as STRATEGY
        for (int i = 0; i < names.size(); i++) {
            if (!known.contains(names.get(i))) {
                throw usage("--strategy: unknown strategy '" + strategies.get(i) + "'; known: " + String.join(", ", known));
            }
        }
        if (names.stream().distinct().count() != names.size()) {
            throw usage("--strategy lists a strategy twice: " + String.join(",", strategies));
        }
        return names;
    }

    String validatedLabel() {
        if (strategies == null || strategies.size() != 1) {
            throw usage("with --url, --strategy must name the running balancer's strategy once: one of "
                    + String.join(", ", Strategies.names()) + ", or another label of 1-40 letters, digits, '_' or '-' "
                    + "(e.g. --strategy nginx); " + (strategies == null ? "it was not given"
                            : "was " + String.join(",", strategies)));
        }
        String label = strategies.get(0);
        if (!label.matches("[A-Za-z0-9_-]{1,40}")) {
            throw usage("--strategy must be 1-40 letters, digits, '_' or '-', was '" + label + "'");
        }
        return label;
    }

    /** {@link #url} without a trailing slash, checked to be an absolute http(s) URL without query. */
    String baseUrl() {
        URI uri;
        try {
            uri = URI.create(url.trim());
        } catch (IllegalArgumentException e) {
            throw usage("--url is not a URL: '" + url + "'");
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getPort() > 65535 || uri.getQuery() != null || uri.getFragment() != null) {
            throw usage("--url must be http(s)://host[:port][/path] without query, was '" + url + "'");
        }
        return uri.toString().replaceFirst("/$", "");
    }

    /** Where error lines go (picocli's error writer). */
    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** Checks the options that exclude each other once pacing and scenarios are known. */
    void checkCombination(Pacing pacing, List<Scenario> scenarios) {
        String notPlain = scenarios.stream().filter(s -> !(s instanceof PlainScenario)).map(Scenario::name)
                .collect(Collectors.joining(", "));
        String notKeyed = scenarios.stream().filter(s -> !(s instanceof PlainScenario || s instanceof HotKeyScenario))
                .map(Scenario::name).collect(Collectors.joining(", "));
        if (!pacing.isDefault() && !notPlain.isEmpty()) {
            throw usage("--rate and --duration run the uniform or heterogeneous scenario, not hotkey, failure, hang "
                    + "or fleet, nor the others: --scenario named " + notPlain);
        }
        // Named with --scenario only: the main job's scenarios take it where they can.
        if (hotShare != null && scenario != null && !notKeyed.isEmpty()) {
            throw usage("--hot-share shapes the uniform, heterogeneous and hotkey scenarios' users, not " + notKeyed);
        }
        if (replicas > 1 && (url != null || !pacing.isDefault() || !notKeyed.isEmpty())) {
            throw usage("--replicas " + replicas + " runs the uniform, heterogeneous and hotkey scenarios in-process "
                    + "in a closed loop: not with --url, --rate or --duration" + (notKeyed.isEmpty() ? "" : ", nor "
                    + "--scenario " + notKeyed));
        }
    }

    /** Checks that a scenario {@code --scenario} names runs some variant for the strategies given. */
    void checkVariants(Scenario s, int variants, List<String> names) {
        boolean named = scenario != null && scenario.stream().anyMatch(c -> c.trim().equalsIgnoreCase(s.name()));
        if (variants == 0 && named) {
            String only = s instanceof TenantsScenario ? "compare tenants through the queue"
                    : s instanceof SlowAgentScenario ? "compare a slow agent with and without hedging" : null;
            throw usage(s instanceof HotKeyScenario ? "--scenario hotkey runs ch and avn (each plain and bounded); "
                    + "--strategy named neither: " + String.join(",", names)
                    : only != null ? "--scenario " + s.name() + " runs rr only (its variants " + only + "); --strategy named: "
                    + String.join(",", names)
                    : "--scenario " + s.name() + " runs none of --strategy " + String.join(",", names));
        }
    }

    /** The strategy names for the help text. */
    static final class StrategyNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Strategies.names().iterator();
        }
    }
}
