package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.orca.LoadReports;
import io.github.agentlb.core.orca.Saturation;
import java.util.function.LongSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A balancer's ORCA load reports: asks for them on each attempt (when its configuration says so),
 * reads them from each answer into the agent's {@link AgentSlot}, and says which agents a fresh
 * report marks as saturated ({@link io.github.agentlb.core.orca.Saturation}). Reports are read
 * whether asked for or not: an agent may send them unasked. Stateless: reports live in the slots.
 */
final class LoadReporting {

    private LoadReporting() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(LoadReporting.class);

    /**
     * Removes any report from the attempt (its request's header, and a report property copied
     * from the exchange), so that only the agent's answer can carry one, and asks for one when
     * {@code format} is not null.
     */
    static void prepare(Exchange attempt, String format) {
        attempt.getIn().removeHeader(LoadReports.HEADER);
        OwnProperties.remove(attempt, AgentLb.LOAD_REPORT_PROPERTY);
        if (format != null) {
            attempt.getIn().setHeader(LoadReports.FORMAT_HEADER, format);
        } else {
            attempt.getIn().removeHeader(LoadReports.FORMAT_HEADER); // the ask is the balancer's, never the client's
        }
    }

    /**
     * Reads and removes the report of an answer ({@code attempt}'s message), keeps it in the
     * agent's slot with its arrival time, and sets it as the attempt's
     * {@link AgentLb#LOAD_REPORT_PROPERTY}. An attempt that got no answer has no report, nor has an
     * answer without one (or without a usable field).
     */
    static void read(String agentId, AgentSlot slot, Exchange attempt, AttemptOutcome outcome, String format,
            LongSupplier clock) {
        Message answer = attempt.getMessage();
        if (format != null) {
            // HTTP producers that copy the request's headers into the answer would hand the ask to the client.
            answer.removeHeader(LoadReports.FORMAT_HEADER);
        }
        Object header = answer.removeHeader(LoadReports.HEADER);
        if (header == null || outcome.isFailure() || outcome == AttemptOutcome.CANCELLED) {
            return;
        }
        if (header instanceof Iterable<?> values) {
            var first = values.iterator();
            header = first.hasNext() ? first.next() : null;
        }
        String value = String.valueOf(header);
        LoadReport report = LoadReports.parse(value, why -> LOG.debug("Ignoring part of the {} of agent {}: {}",
                LoadReports.HEADER, agentId, why));
        if (report.isEmpty()) {
            return;
        }
        // The agent made the report with its answer's head: it counts this attempt (ended here, if answered) and the
        // others of this balancer then running there; those in flight now stand for them.
        int own = slot.inFlight.get() + (outcome == AttemptOutcome.SUCCESS ? 1 : 0);
        slot.loadReport.set(new AgentSlot.ReceivedReport(report, clock.getAsLong(), report.requestsBeyond(own)));
        OwnProperties.set(attempt, AgentLb.LOAD_REPORT_PROPERTY, report);
    }

    /** Whether the slot's latest report is fresh and marks the agent as saturated. */
    static boolean saturated(AgentSlot slot, long nowNanos, BalancerConfig config) {
        AgentSlot.ReceivedReport latest = slot.loadReport.get();
        return latest != null && config.saturation().isSaturated(latest.report(), nowNanos - latest.atNanos());
    }

    /** Whether the slot's latest report, up to a few times the staleness old, said the agent was saturated ({@link Saturation#wasSaturated}). */
    static boolean wasSaturated(AgentSlot slot, long nowNanos, BalancerConfig config) {
        AgentSlot.ReceivedReport latest = slot.loadReport.get();
        return latest != null && config.saturation().wasSaturated(latest.report(), nowNanos - latest.atNanos());
    }

    /**
     * The value of a load report header ({@code X-Agent-*}): a number, or a decimal string with
     * {@code '.'}; NaN when it is absent, not a number, NaN or infinite.
     */
    static double decimal(Object header) {
        double value;
        if (header instanceof Number number) {
            value = number.doubleValue();
        } else {
            try {
                value = header == null ? Double.NaN : Double.parseDouble(header.toString().trim());
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.isFinite(value) ? value : Double.NaN;
    }
}
