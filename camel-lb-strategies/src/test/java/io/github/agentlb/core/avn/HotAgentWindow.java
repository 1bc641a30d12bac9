package io.github.agentlb.core.avn;

import java.util.List;

/** A window over agents a, b, c at the defaults: 2,000 keyed requests and a hot "a" (cpu 0.9, b 0.3, c 0.2). */
final class HotAgentWindow {

    private HotAgentWindow() {
    }

    /** Recorded and reported, not yet evaluated. */
    static AdaptiveVirtualNodes reported() {
        AdaptiveVirtualNodes avn = new AdaptiveVirtualNodes(AdaptiveVirtualNodesConfig.ofDefaults());
        avn.setAgents(List.of("a", "b", "c"));
        for (int i = 0; i < 2000; i++) {
            avn.record(avn.ring().hash("key-" + i));
        }
        avn.report("a", 0.9, 0.9);
        avn.report("b", 0.3, 0.3);
        avn.report("c", 0.2, 0.2);
        return avn;
    }
}
