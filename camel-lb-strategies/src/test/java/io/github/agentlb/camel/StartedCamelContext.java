package io.github.agentlb.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One started {@link DefaultCamelContext} for a test class: {@code @RegisterExtension static final
 * StartedCamelContext CAMEL = new StartedCamelContext();}, then {@link #get()}; started before the
 * class's tests, stopped after them.
 */
final class StartedCamelContext implements BeforeAllCallback, AfterAllCallback {

    private CamelContext context;

    @Override
    public void beforeAll(ExtensionContext extension) {
        context = new DefaultCamelContext();
        context.start();
    }

    @Override
    public void afterAll(ExtensionContext extension) {
        context.stop();
    }

    /** The started context. */
    CamelContext get() {
        return context;
    }
}
