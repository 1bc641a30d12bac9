package io.github.agentlb.loadgen.agents;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The figures of an agents run that its turns give alone, shared by {@link AgentsResult} and
 * {@link AgentsUrlResult}: errors, the client's time to first token (successful turns only,
 * HdrHistogram at 3 significant digits) and MCP stickiness. Immutable.
 *
 * @param errors        turns that failed (non-2xx, cut stream, I/O, timeout)
 * @param timeouts      of those, the timeouts
 * @param errorSamples  the first {@value AgentsResult#ERROR_SAMPLES} error texts
 * @param ttftP50Ms     p50 time to first token, ms (NaN with no success)
 * @param ttftP99Ms     p99 time to first token, ms (NaN with no success)
 * @param mcpLaterTurns MCP-style turns after the first whose first turn named an agent
 * @param stickyTurns   of those, answered by the first turn's agent
 */
record TurnTally(long errors, long timeouts, List<String> errorSamples, double ttftP50Ms, double ttftP99Ms,
                 long mcpLaterTurns, long stickyTurns) {

    /**
     * @param failedSticks whether a failed turn that names the first turn's agent counts as sticky
     */
    static TurnTally of(List<Turn> turns, boolean failedSticks) {
        Histogram ttft = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
        long errors = 0;
        long timeouts = 0;
        List<String> samples = new ArrayList<>();
        Map<Integer, String> firstAgent = Turn.mintingAgents(turns);
        long mcpLater = 0;
        long sticky = 0;
        for (Turn t : turns) {
            ChatStreamClient.Answer a = t.answer();
            if (!a.ok()) {
                errors++;
                if (a.timedOut()) {
                    timeouts++;
                }
                if (samples.size() < AgentsResult.ERROR_SAMPLES) {
                    samples.add("conversation " + t.conversation() + " turn " + t.turn() + ": " + a.error());
                }
            } else {
                ttft.recordValue(Math.max(0, TimeUnit.NANOSECONDS.toMicros(a.firstTokenNanos())));
            }
            String first = firstAgent.get(t.conversation());
            if (t.mcp() && t.turn() > 0 && first != null) {
                mcpLater++;
                if ((failedSticks || a.ok()) && first.equals(a.agentId())) {
                    sticky++;
                }
            }
        }
        boolean any = ttft.getTotalCount() > 0;
        return new TurnTally(errors, timeouts, List.copyOf(samples),
                any ? ttft.getValueAtPercentile(50) / 1000.0 : Double.NaN,
                any ? ttft.getValueAtPercentile(99) / 1000.0 : Double.NaN, mcpLater, sticky);
    }
}
