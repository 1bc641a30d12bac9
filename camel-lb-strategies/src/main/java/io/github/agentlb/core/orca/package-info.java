/**
 * ORCA load reports (Open Request Cost Aggregation, the xDS {@code OrcaLoadReport}): the
 * {@code endpoint-load-metrics} answer header that vLLM, Triton and other servers send when a
 * request asks for it with {@code endpoint-load-metrics-format}. {@link
 * io.github.agentlb.core.orca.LoadReports} parses its TEXT and JSON forms into an immutable
 * {@link io.github.agentlb.core.orca.LoadReport}; {@link io.github.agentlb.core.orca.Saturation}
 * says when a fresh report marks an agent as saturated (after the Gateway API inference
 * extension's saturation detector). No Camel, no I/O.
 */
package io.github.agentlb.core.orca;
