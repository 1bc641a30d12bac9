/**
 * Strict HTTP/1.1 server plumbing on Camel's netty-http, shared by the stub agent and the demo
 * proxy: the {@code agentlb-http11} component and its pipeline (Netty's codec, one request at a
 * time per connection, request read timeouts, JSON errors for what cannot be decoded, 503 while
 * stopping), request-target checks, JSON replies and log-safe client text. Knows nothing of agents.
 */
package io.github.agentlb.agent.http;
