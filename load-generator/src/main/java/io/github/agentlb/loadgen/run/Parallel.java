package io.github.agentlb.loadgen.run;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;

/** Runs a task on each of a list's items: one after the other, or all at once on daemon threads of their own. */
public final class Parallel {

    private Parallel() {
    }

    @FunctionalInterface
    public interface Task<T, R> {
        R run(T item) throws Exception;
    }

    /** Makes daemon threads named {@code name}: none of the generator's own threads keeps the JVM alive. */
    public static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** The task's results in the items' order; rethrows the first failure's cause. */
    public static <T, R> List<R> each(List<T> items, boolean atOnce, String threadName, Task<T, R> task)
            throws Exception {
        List<R> results = new ArrayList<>();
        if (!atOnce) {
            for (T item : items) {
                results.add(task.run(item));
            }
            return results;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, items.size()), daemon(threadName));
        try {
            List<Future<R>> futures = items.stream().map(item -> pool.submit(() -> task.run(item))).toList();
            for (Future<R> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
