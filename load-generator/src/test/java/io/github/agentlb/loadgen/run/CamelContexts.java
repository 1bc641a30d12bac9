package io.github.agentlb.loadgen.run;

import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/** A context of a test's own: {@code try (CamelContext server = CamelContexts.started(routes)) {...}}. */
final class CamelContexts {

    private CamelContexts() {
    }

    /** A new context with these routes, started. */
    static CamelContext started(RoutesBuilder routes) throws Exception {
        CamelContext context = new DefaultCamelContext();
        context.addRoutes(routes);
        context.start();
        return context;
    }
}
