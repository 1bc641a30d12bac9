package io.github.agentlb.loadgen.agents;

import io.github.agentlb.loadgen.scenario.JobScenario;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * The agents scenario as a {@link JobScenario} of the main job: the default {@link Conversations}
 * from the job's seed, the default {@link AgentsScenario.Settings}, every {@link AgentsVariant}
 * whose strategy the job runs (none, and no file, when {@code --strategy} names none of rr, lr
 * and ch), all at the same time ({@link JobScenario#eachAtOnce}). Its client
 * errors are the failed requests of all variants; the goal check goes into the report and the
 * console. With {@code --url} ({@link #runAgainst}) the same conversations go to a running balancer.
 * Stateless.
 */
public final class AgentsJob implements JobScenario {

    /** The scenario's name on the command line and in file names. */
    public static final String LABEL = "agents";

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public Section run(Setup setup) throws Exception {
        AgentsScenario scenario = new AgentsScenario(Conversations.ofDefaults(setup.load().seed()),
                AgentsScenario.Settings.ofDefaults(), setup.load().seed(), setup.stdout());
        List<AgentsVariant> variants = AgentsVariant.standard().stream()
                .filter(v -> setup.strategies().contains(v.strategy())).toList();
        if (variants.isEmpty()) {
            String none = "No variant: the agents scenario runs rr, lr and ch, and --strategy named none of them.\n";
            return new Section(label(), 0, "## Scenario agents\n\n" + none, "Scenario " + label() + ": " + none,
                    List.of());
        }
        List<AgentsResult> results = run(scenario, variants);
        AgentsCheck check = AgentsCheck.of(results);
        AgentsReport.writeChart(results, setup.outDir());
        String table = AgentsReport.table(results);
        setup.stdout().print("Scenario agents: check " + (check.passed() ? "PASSED" : "MISSED") + "\n");
        check.reasons().forEach(r -> setup.stdout().println("  " + r));
        return new Section(label(), results.stream().mapToLong(AgentsResult::errors).sum(),
                AgentsReport.markdown(scenario, results, check), "Scenario " + label() + ":\n" + table,
                List.of(AgentsReport.PNG_FILE));
    }

    @Override
    public boolean runsAgainstUrl() {
        return true;
    }

    /**
     * Sends the default {@link Conversations} from the job's seed to the running balancer at
     * {@code baseUrl} ({@link AgentsUrlRun}) and writes {@code agents-url-<label>.json}.
     */
    @Override
    public Section runAgainst(String baseUrl, String label, Setup setup) throws Exception {
        AgentsUrlRun run = AgentsUrlRun.ofDefaults(setup.load().seed(), setup.stdout());
        AgentsUrlResult result = run.run(baseUrl, label);
        run.writeJson(result, setup.outDir());
        return new Section(label(), result.errors(), run.markdown(result),
                "Scenario agents against " + baseUrl + ":\n" + AgentsUrlRun.tableHead() + AgentsUrlRun.row(result),
                List.of(AgentsUrlRun.jsonFileName(label)));
    }

    /** How long a variant waits for the others to start, s. */
    static final int START_WAIT_SECONDS = 60;

    /**
     * Runs every variant at once, each on its own agents and proxies; results in the order of
     * {@code variants}. The variants start their agents and proxies first and send their first
     * requests together, so that no variant is measured while another one starts; a variant that
     * fails to start breaks the wait of the others.
     */
    public static List<AgentsResult> run(AgentsScenario scenario, List<AgentsVariant> variants) throws Exception {
        List<String> labels = variants.stream().map(AgentsVariant::label).toList();
        CyclicBarrier allStarted = new CyclicBarrier(variants.size());
        return JobScenario.eachAtOnce(labels, label -> {
            AgentsVariant variant = variants.stream().filter(v -> v.label().equals(label)).findFirst().orElseThrow();
            try {
                return scenario.run(variant, () -> allStarted.await(START_WAIT_SECONDS, TimeUnit.SECONDS));
            } catch (Exception | Error e) {
                allStarted.reset();
                throw e;
            }
        });
    }
}
