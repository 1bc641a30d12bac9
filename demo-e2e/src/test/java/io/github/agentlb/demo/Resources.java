package io.github.agentlb.demo;

/** Closing what a test class started, in the order given. Not thread-safe: call it from one thread. */
final class Resources {

    private Resources() {
    }

    /**
     * Closes each resource in the order given, skipping nulls (a start that failed part-way).
     * All are closed even when one throws; the first exception is rethrown, later ones suppressed.
     */
    static void close(AutoCloseable... resources) throws Exception {
        Exception first = null;
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
