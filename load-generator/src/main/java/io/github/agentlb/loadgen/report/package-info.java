/**
 * Writes the scenarios' results (the JSON reports, {@code report.md}, the charts), one writer each, from
 * {@link io.github.agentlb.loadgen.scenario.Result}s and {@link io.github.agentlb.loadgen.scenario.Section}s alone.
 */
package io.github.agentlb.loadgen.report;
