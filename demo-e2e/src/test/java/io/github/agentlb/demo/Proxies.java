package io.github.agentlb.demo;

import java.util.List;

/** Proxies for tests: on a free loopback port, everything but the agents and strategy left at defaults. */
final class Proxies {

    private Proxies() {
    }

    /** Starts a proxy over these agent base URLs (or {@code id=url} entries) with this strategy name. */
    static DemoProxy start(List<String> agentUrls, String strategy) throws Exception {
        return DemoProxy.start(ProxyConfig.builder().host("127.0.0.1").port(0)
                .agentUrls(agentUrls).strategy(strategy).build());
    }
}
