package io.github.agentlb.loadgen.fleet;

import io.github.agentlb.loadgen.scenario.JobScenario;
import java.util.List;

/**
 * The fleet scenario as a {@link JobScenario} of the main job: {@link FleetScenario#DEFAULT_REQUESTS}
 * requests over {@link FleetScenario#DEFAULT_USERS} users per strategy, with the job's concurrency,
 * seed, timeout and warm-up; writes each run's files as it ends and prints its phases.
 */
public final class FleetJob implements JobScenario {

    @Override
    public String label() {
        return FleetScenario.LABEL;
    }

    @Override
    public Section run(Setup setup) throws Exception {
        FleetScenario scenario = new FleetScenario(setup.scenarioLoad(FleetScenario.DEFAULT_REQUESTS,
                FleetScenario.DEFAULT_USERS), FleetScenario.SLOW_START);
        List<FleetReport> runs = JobScenario.eachAtOnce(setup.strategies(), scenario::run);
        List<String> files = setup.writeEach(runs, FleetReportWriter::write, FleetReportWriter::summary);
        return new Section(label(), runs.stream().mapToLong(FleetReport::clientErrors).sum(),
                FleetReportWriter.markdown(runs), "Scenario " + label() + ":\n" + FleetReportWriter.table(runs), files);
    }
}
