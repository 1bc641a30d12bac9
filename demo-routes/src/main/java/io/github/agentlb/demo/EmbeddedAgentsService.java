package io.github.agentlb.demo;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.CamelContextTracker;
import org.apache.camel.support.service.ServiceSupport;

/**
 * Ties the embedded agents to the CamelContext's lifecycle, and keeps the JVM from exiting before
 * that context has stopped. Camel Main's shutdown hook waits until the first CamelContext of the
 * JVM is destroyed, whichever it is; each embedded agent runs a CamelContext of its own, stopped
 * (destroyed) while this one stops, so on Ctrl-C the JVM would exit with the other agents and
 * this context still stopping, their last lines unlogged. This service's hook waits for this
 * context, at most its shutdown timeout and {@value #EXTRA_WAIT_S} s more. Started and stopped by
 * the CamelContext it is added to.
 */
final class EmbeddedAgentsService extends ServiceSupport {
    static final int EXTRA_WAIT_S = 15;
    private final EmbeddedAgents agents;
    private final CamelContext context;
    private final CountDownLatch destroyed = new CountDownLatch(1);
    private final CamelContextTracker tracker;
    private final Thread hook = new Thread(this::awaitDestroyed, "demo-await-stop");

    EmbeddedAgentsService(EmbeddedAgents agents, CamelContext context) {
        this.agents = agents;
        this.context = context;
        this.tracker = new CamelContextTracker(c -> c == context) {
            @Override
            public void contextDestroyed(CamelContext camelContext) {
                destroyed.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs, and returns at once
                }
            }
        };
    }

    @Override
    protected void doStart() {
        tracker.open();
        Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    protected void doStop() {
        agents.close();
    }

    /** The JVM shutdown hook registered while this service runs. */
    Thread hook() {
        return hook;
    }

    /** Whether the proxy's context (not any other) has been destroyed. */
    boolean proxyDestroyed() {
        return destroyed.getCount() == 0;
    }

    private void awaitDestroyed() {
        try {
            destroyed.await(context.getShutdownStrategy().getTimeUnit().toSeconds(
                    context.getShutdownStrategy().getTimeout()) + EXTRA_WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            tracker.close();
        }
    }
}
