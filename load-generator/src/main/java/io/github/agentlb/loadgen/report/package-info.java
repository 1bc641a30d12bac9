/**
 * Writes the scenarios' results: {@code report-<scenario>-<variant>.json} (Jackson), {@code report.md}
 * and the charts (XChart), one writer each, from {@link io.github.agentlb.loadgen.scenario.Result}s and
 * {@link io.github.agentlb.loadgen.scenario.Section}s alone. Nothing here runs a load.
 */
package io.github.agentlb.loadgen.report;
