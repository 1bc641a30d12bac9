/**
 * Routing keys read from a request, for the hashing strategies:
 * {@link io.github.agentlb.core.key.PromptPrefix} reads the prompt prefix of an OpenAI-style JSON
 * body with a streaming parser (canonical text, the first K blocks of B characters of the first
 * user turn, combined with the leading system messages).
 */
package io.github.agentlb.core.key;
