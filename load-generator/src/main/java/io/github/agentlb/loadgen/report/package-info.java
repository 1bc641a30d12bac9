/**
 * Turns results into files and console text: the JSON and Markdown report writers, the charts
 * (PNG) and the console tables and summaries. Depends on the results; nothing it holds runs a load.
 */
package io.github.agentlb.loadgen.report;
