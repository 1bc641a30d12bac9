package io.github.agentlb.loadgen.report;

/**
 * AWT's headless mode for the charts: XChart renders through AWT, and without it a machine with
 * no display fails to draw. Thread-safe.
 */
public final class Headless {

    private Headless() {
    }

    /**
     * Sets {@code java.awt.headless=true} unless the property is already set (so a
     * {@code -Djava.awt.headless=false} still wins). Call it before AWT loads, e.g. from a chart
     * class's static initialiser.
     */
    public static void ensure() {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }
}
