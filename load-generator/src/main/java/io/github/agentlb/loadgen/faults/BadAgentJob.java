package io.github.agentlb.loadgen.faults;

import io.github.agentlb.loadgen.scenario.JobScenario;
import java.util.List;
import java.util.Objects;

/**
 * The busy or gray scenario as a {@link JobScenario} of the main job: {@link BadAnswer#defaultRequests()}
 * requests over {@link BadAgentScenario#defaultUsers} users per strategy, with the job's
 * concurrency, seed, timeout and warm-up; writes each run's files as it ends and prints its phases.
 * Its {@link Section#clientErrors()}, which decide the job's exit code, are the client errors
 * beyond what the trials allow ({@link BadAgentReport#excessClientErrors()}): a few clients of a
 * gray agent get its 500 before it is ejected, as the trials expect.
 * {@link Busy} and {@link Gray} are the two found by {@link java.util.ServiceLoader}.
 */
public abstract class BadAgentJob implements JobScenario {

    /**
     * Whether the main job runs busy and gray without {@code --scenario} naming them: yes, their
     * strategies run at the same time ({@link JobScenario#eachAtOnce}), so each takes one run's time.
     */
    static final boolean IN_MAIN_JOB = true;

    private final BadAnswer answer;

    BadAgentJob(BadAnswer answer) {
        this.answer = Objects.requireNonNull(answer, "answer");
    }

    /** The busy scenario: A1 answers 429 with {@code Retry-After: 2} for the middle third. */
    public static final class Busy extends BadAgentJob {
        public Busy() {
            super(BadAnswer.BUSY);
        }
    }

    /** The gray scenario: A1 answers 500 at once for the middle third. */
    public static final class Gray extends BadAgentJob {
        public Gray() {
            super(BadAnswer.GRAY);
        }
    }

    @Override
    public String label() {
        return answer.label();
    }

    @Override
    public boolean inMainJob() {
        return IN_MAIN_JOB;
    }

    @Override
    public Section run(Setup setup) throws Exception {
        BadAgentScenario scenario = new BadAgentScenario(answer,
                setup.scenarioLoad(answer.defaultRequests(), BadAgentScenario.defaultUsers(answer)));
        List<BadAgentReport> runs = JobScenario.eachAtOnce(setup.strategies(), scenario::run);
        List<String> files = setup.writeEach(runs, BadAgentReportWriter::write, BadAgentReportWriter::summary);
        return new Section(label(), runs.stream().mapToLong(BadAgentReport::excessClientErrors).sum(),
                BadAgentReportWriter.markdown(answer, runs), "Scenario " + label() + ":\n"
                + BadAgentReportWriter.table(runs), files);
    }
}
