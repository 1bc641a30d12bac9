package io.github.agentlb.camel;

import io.github.agentlb.core.fleet.NameList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lines a balancer logs when its membership changes (logger {@code io.github.agentlb.membership}): one per
 * applied change, one per set of drains that end together, every list bounded by {@link NameList}.
 * Stateless and thread-safe.
 */
final class MembershipLog {

    private static final Logger LOG = LoggerFactory.getLogger("io.github.agentlb.membership");

    private MembershipLog() {
    }

    /**
     * A change published as {@code generation}: one INFO line, DEBUG when the caller logs it itself
     * (a membership source, {@link MembershipEdit#loggedByCaller}).
     */
    static void applied(long generation, List<String> agents, Collection<String> draining, Map<String, Double> newWeights,
            boolean loggedByCaller) {
        log(loggedByCaller, () -> "Membership generation " + generation + ": agents=" + NameList.of(agents)
                + (draining.isEmpty() ? "" : " draining=" + NameList.of(draining))
                + (newWeights.isEmpty() ? "" : " weights=" + weights(newWeights)));
    }

    /**
     * Agents whose drains ended together: one INFO line; DEBUG when {@code quiet}, for drains that
     * ended at once within a change its caller logs itself (an idle agent a source removed).
     */
    static void drained(List<String> done, boolean quiet) {
        log(quiet, () -> done.size() == 1 ? "Agent " + done.get(0) + " drained and removed"
                : "Agents drained and removed: " + NameList.of(done));
    }

    /** Logs the line at DEBUG when {@code debug}, else at INFO; made only when that level is on. */
    private static void log(boolean debug, Supplier<String> line) {
        if (debug && LOG.isDebugEnabled()) {
            LOG.debug(line.get());
        } else if (!debug && LOG.isInfoEnabled()) {
            LOG.info(line.get());
        }
    }

    /** {@code {A1=2.0, A2=0.5}}, at most {@link NameList#MAX_NAMES} entries and how many more. */
    private static String weights(Map<String, Double> newWeights) {
        if (newWeights.size() <= NameList.MAX_NAMES) {
            return newWeights.toString();
        }
        String first = newWeights.entrySet().stream().limit(NameList.MAX_NAMES).map(Object::toString)
                .collect(Collectors.joining(", "));
        return "{" + first + ", and " + (newWeights.size() - NameList.MAX_NAMES) + " more}";
    }
}
