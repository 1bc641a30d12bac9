package io.github.agentlb.camel;

import io.github.agentlb.core.orca.LoadReport;
import io.github.agentlb.core.orca.LoadReports;
import io.github.agentlb.core.orca.Saturation;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A balancer's ORCA load reports: asks for them on each attempt (when told to), reads them from
 * each answer into the agent's {@link AgentSlot}, and says which agents a fresh report marks as
 * saturated ({@link Saturation}). Reports are read whether asked for or not: an agent may send
 * them unasked. Thread-safe: settings are volatile, reports live in the slots.
 */
final class LoadReporting {

    private static final Logger LOG = LoggerFactory.getLogger(LoadReporting.class);

    private final Settings<Saturation.Builder> saturationSettings;
    private final LongSupplier nanoClock;
    private volatile Saturation saturation = Saturation.ofDefaults();
    /** {@code TEXT} or {@code JSON} to ask for reports on each attempt; null not to ask. */
    private volatile String format;
    /** Whether any agent has sent a report: until then the gate costs one volatile read. */
    private volatile boolean received;

    /**
     * @param running   whether the balancer is starting or started (staged settings are refused then)
     * @param nanoClock the balancer's clock, ns: when a report arrived, how old it is
     */
    LoadReporting(BooleanSupplier running, LongSupplier nanoClock) {
        this.saturationSettings = new Settings<>(running);
        this.nanoClock = nanoClock;
    }

    /**
     * Removes any report from the attempt (its request's header, and a report property copied
     * from the exchange), so that only the agent's answer can carry one, and asks for one.
     */
    void prepare(Exchange attempt) {
        attempt.getIn().removeHeader(LoadReports.HEADER);
        attempt.removeProperty(AgentLoadBalancerSupport.LOAD_REPORT_PROPERTY);
        String asked = format;
        if (asked != null) {
            attempt.getIn().setHeader(LoadReports.FORMAT_HEADER, asked);
        }
    }

    /**
     * Reads and removes the report of an answer ({@code attempt}'s message), keeps it in the
     * agent's slot with its arrival time, and sets it as the attempt's
     * {@link AgentLoadBalancerSupport#LOAD_REPORT_PROPERTY}. An attempt that got no answer has no
     * report, nor has an answer without one (or without a usable field).
     */
    void read(String agentId, AgentSlot slot, Exchange attempt, AttemptOutcome outcome) {
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
        slot.loadReport = new AgentSlot.ReceivedReport(report, nanoClock.getAsLong());
        if (!received) {
            received = true;
        }
        attempt.setProperty(AgentLoadBalancerSupport.LOAD_REPORT_PROPERTY, report);
    }

    /** Whether any agent has sent a usable report since the balancer was created. */
    boolean received() {
        return received;
    }

    /** Whether the gate may move agents: it is enabled and some agent has reported. */
    boolean gating() {
        return received && saturation.enabled();
    }

    /** Whether the slot's latest report is fresh and marks the agent as saturated. */
    boolean saturated(AgentSlot slot, long nowNanos) {
        AgentSlot.ReceivedReport latest = slot.loadReport;
        return latest != null && saturation.isSaturated(latest.report(), nowNanos - latest.atNanos());
    }

    /** The slot's latest report if it is at most the staleness limit old, else null. */
    LoadReport fresh(AgentSlot slot, long nowNanos) {
        AgentSlot.ReceivedReport latest = slot == null || !received ? null : slot.loadReport;
        return latest != null && saturation.isFresh(nowNanos - latest.atNanos()) ? latest.report() : null;
    }

    Saturation saturation() {
        return saturation;
    }

    void setSaturation(Saturation saturation) {
        this.saturation = Objects.requireNonNull(saturation, "saturation");
    }

    Settings<Saturation.Builder> saturationSettings() {
        return saturationSettings;
    }

    /** Applies the JavaBean saturation settings made since the last start. */
    void applySettings() {
        if (!saturationSettings.isEmpty()) {
            setSaturation(saturationSettings.applyTo(saturation.toBuilder()).build());
        }
    }

    String format() {
        return format == null ? "NONE" : format;
    }

    /**
     * @param format {@code TEXT}, {@code JSON} (any case), or {@code NONE}, empty or null not to ask
     * @throws IllegalArgumentException for any other value, naming it
     */
    void setFormat(String format) {
        String f = format == null ? "" : format.strip().toUpperCase(Locale.ROOT);
        switch (f) {
            case "", "NONE" -> this.format = null;
            case "TEXT", "JSON" -> this.format = f;
            default -> throw new IllegalArgumentException(
                    "loadReportFormat must be TEXT, JSON or NONE, was '" + format + "'");
        }
    }
}
