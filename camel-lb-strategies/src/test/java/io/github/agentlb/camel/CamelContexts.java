package io.github.agentlb.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.LambdaRouteBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

/** A context of a test's own: {@code try (CamelContext context = CamelContexts.started(rb -> ...)) {...}}. */
final class CamelContexts {

    private CamelContexts() {
    }

    /** A new context with these routes, started; closed again when adding or starting them fails. */
    static CamelContext started(LambdaRouteBuilder routes) throws Exception {
        CamelContext context = new DefaultCamelContext();
        try {
            RouteBuilder.addRoutes(context, routes);
            context.start();
            return context;
        } catch (Exception e) {
            try {
                context.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
