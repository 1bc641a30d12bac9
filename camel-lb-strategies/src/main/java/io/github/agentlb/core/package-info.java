/**
 * The pure algorithms behind the strategies: no Camel, no Micrometer, no I/O; time and randomness
 * are injected, so every result is exact in a test. Each sub-package is one idea: {@code hash}
 * (hash functions), {@code ring} (the consistent-hash ring), {@code select} (round-robin and
 * smooth weighted round-robin), {@code pid} (utilization-driven PID weights), {@code avn}
 * (adaptive virtual nodes), {@code bounded} (consistent hashing with bounded loads),
 * {@code health} (outlier ejection), {@code key} (routing keys read from a request body),
 * {@code fleet} (agents as membership sources describe them, slow start) and {@code stats}
 * (load statistics).
 */
package io.github.agentlb.core;
