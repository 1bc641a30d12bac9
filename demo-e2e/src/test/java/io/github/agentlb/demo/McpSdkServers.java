package io.github.agentlb.demo;

import io.modelcontextprotocol.modern.server.McpRequestContext;
import io.modelcontextprotocol.modern.server.McpSyncResponse;
import io.modelcontextprotocol.modern.server.feature.McpSyncTool;
import io.modelcontextprotocol.modern.server.feature.McpSyncToolRepository;
import io.modelcontextprotocol.modern.server.feature.ToolsFeature;
import io.modelcontextprotocol.modern.server.feature.ToolsPage;
import io.modelcontextprotocol.modern.server.transport.HttpServletMcpTransport;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;

/**
 * Real MCP servers of the official MCP Java SDK on {@code /mcp}, each on embedded Tomcat on a free
 * loopback port, named S1, S2, ... in order. A legacy server (protocol 2025-11-25, sessions) has tool
 * {@code whoami}, answering {@code <name> <session id>}; a 2026-07-28 server (no sessions) has tool
 * {@code count} whose argument {@code handle} the client mirrors in {@code Mcp-Param-Handle}
 * ({@code x-mcp-header}), answering {@code <name> handle=<handle> n=<calls of that handle here>}: the
 * state a stateful server keeps behind a handle. A 2026-07-28 basket server mints its handles (the
 * specification's "Stateful Tools"): {@code create_basket} returns {@code <name>-bsk-<uuid>} as
 * {@code structuredContent.<argument>} and in its text, {@code add_item} takes it back as that
 * argument (mirrored in {@code Mcp-Param-<header>}) and answers {@code <name> <basket> items=<n>},
 * or a tool error for a basket it did not make.
 */
final class McpSdkServers implements AutoCloseable {

    private final List<Tomcat> servers = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private final List<Path> baseDirs = new ArrayList<>();

    private McpSdkServers() {
    }

    /** {@code count} legacy servers (2025-11-25, with sessions). */
    static McpSdkServers legacy(int count) throws Exception {
        McpSdkServers started = new McpSdkServers();
        try {
            for (int i = 1; i <= count; i++) {
                started.add(legacyServer("S" + i));
            }
        } catch (Exception | Error e) {
            started.close();
            throw e;
        }
        return started;
    }

    /** {@code count} servers of revision 2026-07-28 (no sessions, mirrored tool parameters). */
    static McpSdkServers modern(int count) throws Exception {
        McpSdkServers started = new McpSdkServers();
        try {
            for (int i = 1; i <= count; i++) {
                started.add(modernServer("S" + i));
            }
        } catch (Exception | Error e) {
            started.close();
            throw e;
        }
        return started;
    }

    /**
     * {@code count} 2026-07-28 basket servers, which mint their handles in argument {@code argument}
     * (mirrored in {@code Mcp-Param-<header>}).
     */
    static McpSdkServers baskets(int count, String argument, String header) throws Exception {
        McpSdkServers started = new McpSdkServers();
        try {
            for (int i = 1; i <= count; i++) {
                started.add(basketServer("S" + i, argument, header));
            }
        } catch (Exception | Error e) {
            started.close();
            throw e;
        }
        return started;
    }

    /** {@code S<n>=<base URL>} for each server: named, so every proxy's ring is the same whatever the ports. */
    List<String> named() {
        List<String> named = new ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            named.add("S" + (i + 1) + "=" + urls.get(i));
        }
        return named;
    }

    private static HttpServlet legacyServer(String name) {
        HttpServletStreamableServerTransportProvider provider = HttpServletStreamableServerTransportProvider.builder()
                .mcpEndpoint("/mcp").build();
        McpSchema.Tool whoami = McpSchema.Tool.builder().name("whoami").description("the server's name and the session")
                .inputSchema(new McpSchema.JsonSchema("object", Map.of(), List.of(), null, null, null)).build();
        io.modelcontextprotocol.server.McpServer.sync(provider).serverInfo(name, "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(McpServerFeatures.SyncToolSpecification.builder().tool(whoami)
                        .callHandler((exchange, request) -> McpSchema.CallToolResult.builder()
                                .addTextContent(name + " " + exchange.sessionId()).build())
                        .build())
                .build();
        return provider;
    }

    private static HttpServlet modernServer(String name) {
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        io.modelcontextprotocol.modern.McpSchema.Tool count = io.modelcontextprotocol.modern.McpSchema.Tool.builder("count",
                Map.of("type", "object", "properties", Map.of("handle", Map.of("type", "string", "x-mcp-header", "Handle")),
                        "required", List.of("handle"))).description("counts the calls of a handle").build();
        McpSyncTool tool = McpSyncTool.of(count, (context, request) -> {
            String handle = String.valueOf(request.arguments().get("handle"));
            int n = calls.computeIfAbsent(handle, h -> new AtomicInteger()).incrementAndGet();
            return McpSyncResponse.result(io.modelcontextprotocol.modern.McpSchema.CallToolResult.builder()
                    .addContent(io.modelcontextprotocol.modern.McpSchema.TextContent.builder(
                            name + " handle=" + handle + " n=" + n).build()).build());
        });
        McpSyncToolRepository tools = new McpSyncToolRepository() {
            @Override
            public ToolsPage list(McpRequestContext context, String cursor) {
                return ToolsPage.of(List.of(count));
            }

            @Override
            public McpSyncTool find(McpRequestContext context, String toolName) {
                return "count".equals(toolName) ? tool : null;
            }
        };
        io.modelcontextprotocol.modern.server.McpServer server = io.modelcontextprotocol.modern.server.McpServer.builder()
                .serverInfo(io.modelcontextprotocol.modern.McpSchema.Implementation.builder(name, "1").build())
                .feature(ToolsFeature.ofSync(tools)).build();
        return HttpServletMcpTransport.builder(server).endpoint("/mcp").build();
    }

    private static HttpServlet basketServer(String name, String argument, String header) {
        Map<String, AtomicInteger> baskets = new ConcurrentHashMap<>();
        Map<String, Object> basketId = Map.of("type", "string");
        io.modelcontextprotocol.modern.McpSchema.Tool create = io.modelcontextprotocol.modern.McpSchema.Tool.builder(
                "create_basket", Map.of("type", "object", "properties", Map.of()))
                .outputSchema(Map.of("type", "object", "properties", Map.of(argument, basketId), "required", List.of(argument)))
                .description("creates a basket").build();
        io.modelcontextprotocol.modern.McpSchema.Tool add = io.modelcontextprotocol.modern.McpSchema.Tool.builder("add_item",
                Map.of("type", "object", "properties", Map.of(argument, Map.of("type", "string", "x-mcp-header", header)),
                        "required", List.of(argument))).description("adds an item to a basket").build();
        McpSyncTool creates = McpSyncTool.of(create, (context, request) -> {
            String id = name + "-bsk-" + UUID.randomUUID();
            baskets.put(id, new AtomicInteger());
            return McpSyncResponse.result(io.modelcontextprotocol.modern.McpSchema.CallToolResult.builder()
                    .addContent(io.modelcontextprotocol.modern.McpSchema.TextContent.builder("Created basket " + id).build())
                    .structuredContent(Map.of(argument, id)).build());
        });
        McpSyncTool adds = McpSyncTool.of(add, (context, request) -> {
            String id = String.valueOf(request.arguments().get(argument));
            AtomicInteger items = baskets.get(id);
            return McpSyncResponse.result(io.modelcontextprotocol.modern.McpSchema.CallToolResult.builder()
                    .addContent(io.modelcontextprotocol.modern.McpSchema.TextContent.builder(items == null
                            ? "unknown basket " + id : name + " " + id + " items=" + items.incrementAndGet()).build())
                    .isError(items == null).build());
        });
        McpSyncToolRepository tools = new McpSyncToolRepository() {
            @Override
            public ToolsPage list(McpRequestContext context, String cursor) {
                return ToolsPage.of(List.of(create, add));
            }

            @Override
            public McpSyncTool find(McpRequestContext context, String toolName) {
                return "create_basket".equals(toolName) ? creates : "add_item".equals(toolName) ? adds : null;
            }
        };
        io.modelcontextprotocol.modern.server.McpServer server = io.modelcontextprotocol.modern.server.McpServer.builder()
                .serverInfo(io.modelcontextprotocol.modern.McpSchema.Implementation.builder(name, "1").build())
                .feature(ToolsFeature.ofSync(tools)).build();
        return HttpServletMcpTransport.builder(server).endpoint("/mcp").build();
    }

    private void add(HttpServlet mcp) throws Exception {
        Tomcat tomcat = new Tomcat();
        servers.add(tomcat);
        tomcat.setHostname("127.0.0.1");
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Path base = Files.createTempDirectory("mcp-sdk-server");
        baseDirs.add(base);
        tomcat.setBaseDir(base.toString());
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "mcp", mcp).setAsyncSupported(true);
        context.addServletMappingDecoded("/mcp", "mcp");
        tomcat.start();
        urls.add("http://127.0.0.1:" + tomcat.getConnector().getLocalPort());
    }

    @Override
    public void close() {
        for (Tomcat tomcat : servers) {
            try {
                tomcat.stop();
                tomcat.destroy();
            } catch (LifecycleException e) {
                throw new IllegalStateException("an MCP server did not stop", e);
            }
        }
        for (Path base : baseDirs) {
            try (Stream<Path> files = Files.walk(base)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException e) {
                // a temporary directory left behind
            }
        }
    }
}
