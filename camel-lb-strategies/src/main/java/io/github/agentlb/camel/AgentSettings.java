package io.github.agentlb.camel;

import io.github.agentlb.core.Check;
import io.github.agentlb.core.Durations;
import io.github.agentlb.core.fleet.SlowStart;
import io.github.agentlb.core.orca.LoadReports;
import io.github.agentlb.core.orca.Saturation;
import io.github.agentlb.core.session.LearnedSessions;
import java.time.Duration;
import java.util.Objects;

/**
 * The knobs of what the balancer learns from its agents, on every balancer: sessions
 * ({@link BalancerConfig#sessions()}), slow start ({@link BalancerConfig#slowStart()}) and ORCA load
 * reports with the saturation gate ({@link BalancerConfig#reportFormat()},
 * {@link BalancerConfig#saturation()}); when a knob takes effect: {@link Configurable}.
 *
 * <h2>Learned sessions</h2>
 * Off by default. When an answer carries a session id in the {@link LearnedSessions#header() header},
 * the client gets it with the agent's name sealed in, and every later request with that id goes to
 * that agent, with the agent's own id restored, whatever the strategy, on any replica that shares
 * the secret, across membership changes (as long as the agent keeps its name). Such a request is
 * never sent to another agent: when its agent fails it fails; when its agent has left it gets
 * {@link SessionRejectedException} 404, or a new pick ({@link LearnedSessions.WhenAgentGone}); an id
 * the balancer did not make gets {@link SessionRejectedException} 400 and calls no agent.
 * A child that writes an answer's head to the client itself (a streaming child) has the id sealed
 * by its attempt's {@link AttemptHooks}.
 *
 * <h2>Slow start</h2>
 * Off by default. An agent added at runtime or re-admitted after ejection keeps part f(t) of the
 * requests the strategy offers it over the window: keyed exchanges by their key's rank (the same
 * keys come back as f grows), others by count.
 *
 * <h2>ORCA load reports and the saturation gate</h2>
 * Each answer's {@value LoadReports#HEADER} header (sent by vLLM and Triton; TEXT and JSON forms,
 * see {@link LoadReports}) is read, removed from the answer, kept as the agent's latest report with
 * its arrival time, and set on the exchange as property {@value AgentLb#LOAD_REPORT_PROPERTY}. Agents
 * send it when asked: {@link #setLoadReportFormat} adds {@value LoadReports#FORMAT_HEADER} to each
 * attempt. A report header in the client's request never reaches an agent. The saturation gate (on
 * by default with the Gateway API inference extension's thresholds, acting only once an agent has
 * reported) tries an agent whose fresh report says it is saturated only after the others, before
 * ejected ones: never dropped; when every agent that could take the exchange is saturated, the
 * strategy's own order stands.
 */
public interface AgentSettings extends Configurable {

    /** @return how sessions are learned from answers ({@link LearnedSessions#disabled()} unless set) */
    default LearnedSessions getLearnedSessions() {
        return balancerConfig().sessions();
    }

    /** Learns sessions from the agents' answers as the class comment says; {@link LearnedSessions#disabled()} turns it off. */
    default void setLearnedSessions(LearnedSessions learnedSessions) {
        Objects.requireNonNull(learnedSessions, "learnedSessions");
        configure("learnedSessions", learnedSessions, d -> d.sessions(learnedSessions));
    }

    /**
     * Learned sessions with this header, e.g. {@code Mcp-Session-Id}. Each {@code setSession*}
     * setter turns learned sessions on, with the defaults of {@link LearnedSessions#custom()} for
     * the knobs not set.
     */
    default void setSessionHeader(String header) {
        configure("sessionHeader", header, d -> d.sessions(d.sessions().toBuilder().header(header).build()));
    }

    default String getSessionHeader() {
        return getLearnedSessions().header();
    }

    /** The secret shared by the replicas that seals agents into session ids; at least 16 bytes, never logged. */
    default void setSessionSecret(String secret) {
        configure("sessionSecret", "(secret)", d -> d.sessions(d.sessions().toBuilder().secret(secret).build()));
    }

    /**
     * A second secret whose session ids are accepted but never made, for changing
     * {@link #setSessionSecret the secret} on running replicas without a session lost
     * ({@link LearnedSessions.Builder#fallbackSecret}); at least 16 bytes, never logged.
     */
    default void setSessionFallbackSecret(String secret) {
        configure("sessionFallbackSecret", "(secret)",
                d -> d.sessions(d.sessions().toBuilder().fallbackSecret(secret).build()));
    }

    /** {@code NOT_FOUND} (default, a JSON 404) or {@code NEW_PICK}: what a session whose agent left gets. */
    default void setSessionAgentGone(String whenAgentGone) {
        configure("sessionAgentGone", whenAgentGone,
                d -> d.sessions(d.sessions().toBuilder().whenAgentGone(whenAgentGone).build()));
    }

    /**
     * Seals A2A task ids too (v1.0 JSON-RPC): a task call reaches the agent that made the task;
     * turns learned sessions on, as every {@code setSession*} setter does. Off by default.
     */
    default void setSessionA2aTasks(boolean a2aTasks) {
        configure("sessionA2aTasks", a2aTasks, d -> d.sessions(d.sessions().toBuilder().a2aTasks(a2aTasks).build()));
    }

    default boolean isSessionA2aTasks() {
        return getLearnedSessions().a2aTasks();
    }

    /**
     * Seals server-minted MCP handles too (2026-07-28 stateful tools): the tool arguments named,
     * comma-separated (e.g. {@code basket_id}), are sealed where a tool result's
     * {@code structuredContent} returns them, and a tool call carrying one reaches the server that
     * made it; turns learned sessions on, as every {@code setSession*} setter does. Empty (the
     * default) for none.
     *
     * @throws IllegalArgumentException if null, or a name is empty, repeated or not visible ASCII
     */
    default void setSessionMcpHandles(String names) {
        Check.notNull("sessionMcpHandles", names);
        configure("sessionMcpHandles", names, d -> d.sessions(d.sessions().toBuilder().mcpHandles(names).build()));
    }

    /** @return the tool arguments sealed as MCP handles, comma-separated; empty for none */
    default String getSessionMcpHandles() {
        return String.join(",", getLearnedSessions().mcpHandles());
    }

    default String getSessionAgentGone() {
        return getLearnedSessions().whenAgentGone().name();
    }

    /** @return the slow-start ramp ({@link SlowStart#DISABLED} unless set) */
    default SlowStart getSlowStart() {
        return balancerConfig().slowStart();
    }

    /** Sets the slow start of agents added at runtime or re-admitted after ejection (off by default). */
    default void setSlowStart(SlowStart slowStart) {
        Objects.requireNonNull(slowStart, "slowStart");
        configure("slowStart", slowStart, d -> d.slowStart(slowStart));
    }

    /**
     * The slow-start window ({@code 30s}; {@code 0s} turns it off), keeping the other ramp settings.
     *
     * @throws IllegalArgumentException if null or negative
     */
    default void setSlowStartWindow(Duration window) {
        Check.nonNegative("slowStartWindow", window);
        configure("slowStartWindow", window, d -> d.slowStart(d.slowStart().withWindow(window)));
    }

    /** {@link #setSlowStartWindow(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setSlowStartWindow(String slowStartWindow) {
        setSlowStartWindow(Durations.parse("slowStartWindow", slowStartWindow));
    }

    default Duration getSlowStartWindow() {
        return getSlowStart().window();
    }

    /** The ramp's aggression, > 0 (1 = linear). */
    default void setSlowStartAggression(double aggression) {
        configure("slowStartAggression", aggression, d -> d.slowStart(d.slowStart().withAggression(aggression)));
    }

    default double getSlowStartAggression() {
        return getSlowStart().aggression();
    }

    /** The smallest part of its share an agent keeps while ramping, in (0, 1]. */
    default void setSlowStartMinWeightShare(double share) {
        configure("slowStartMinWeightShare", share, d -> d.slowStart(d.slowStart().withMinWeightShare(share)));
    }

    default double getSlowStartMinWeightShare() {
        return getSlowStart().minWeightShare();
    }

    /**
     * Asks agents for ORCA load reports: each attempt carries {@value LoadReports#FORMAT_HEADER}
     * with this value. Off by default ({@code NONE}): the balancer adds nothing to what it sends
     * unless told, and vLLM writes an INFO log line for each report it makes. Reports an agent
     * sends unasked are read all the same.
     *
     * @param format {@code TEXT}, {@code JSON}, or {@code NONE} not to ask; any case
     * @throws IllegalArgumentException for another value (empty, blank or null included), naming the knob and the value
     */
    default void setLoadReportFormat(String format) {
        configure("loadReportFormat", format, d -> d.reportFormat(format));
    }

    /** @return {@code TEXT}, {@code JSON}, or {@code NONE} when the balancer does not ask for load reports */
    default String getLoadReportFormat() {
        String format = balancerConfig().reportFormat();
        return format == null ? "NONE" : format;
    }

    /** {@link #setLoadReportFormat} for Java: returns this balancer. */
    default AgentSettings loadReportFormat(String format) {
        setLoadReportFormat(format);
        return this;
    }

    /** @return the saturation gate's configuration ({@link Saturation#ofDefaults()} unless set) */
    default Saturation getSaturation() {
        return balancerConfig().saturation();
    }

    /** Sets the saturation gate; {@link Saturation#disabled()} turns it off. Its staleness also bounds the reports strategies read. */
    default void setSaturation(Saturation saturation) {
        Objects.requireNonNull(saturation, "saturation");
        configure("saturation", saturation, d -> d.saturation(saturation));
    }

    /** {@link #setSaturation} for Java: returns this balancer. */
    default AgentSettings saturation(Saturation saturation) {
        setSaturation(saturation);
        return this;
    }

    /** Whether the saturation gate acts (default true). */
    default void setSaturationEnabled(boolean enabled) {
        configure("saturationEnabled", enabled, d -> d.saturation().enabled(enabled));
    }

    default boolean isSaturationEnabled() {
        return configured("saturationEnabled", getSaturation().enabled());
    }

    /** Requests waiting ({@code num_requests_waiting}) above which an agent is saturated, >= 0, default 5. */
    default void setSaturationQueue(int queueDepth) {
        configure("saturationQueue", queueDepth,
                d -> d.saturation().queueDepth(Check.atLeast("saturationQueue", queueDepth, 0)));
    }

    default int getSaturationQueue() {
        return configured("saturationQueue", getSaturation().queueDepth());
    }

    /** KV cache in use ({@code kv_cache_usage_perc}), fraction in [0, 1], above which an agent is saturated, default 0.8. */
    default void setSaturationKvCache(double kvCacheUsage) {
        configure("saturationKvCache", kvCacheUsage,
                d -> d.saturation().kvCacheUsage(Check.fraction("saturationKvCache", kvCacheUsage)));
    }

    default double getSaturationKvCache() {
        return configured("saturationKvCache", getSaturation().kvCacheUsage());
    }

    /** Age beyond which a report says nothing, > 0, {@code 200ms} by default. */
    default void setSaturationStaleness(Duration staleness) {
        configure("saturationStaleness", staleness,
                d -> d.saturation().staleness(Check.positive("saturationStaleness", staleness)));
    }

    /** {@link #setSaturationStaleness(Duration)} from text read strictly by {@link Durations#parse}. */
    default void setSaturationStaleness(String staleness) {
        setSaturationStaleness(Durations.parse("saturationStaleness", staleness));
    }

    default Duration getSaturationStaleness() {
        return configured("saturationStaleness", getSaturation().staleness());
    }
}
