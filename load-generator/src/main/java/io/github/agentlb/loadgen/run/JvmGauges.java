package io.github.agentlb.loadgen.run;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * This JVM's gauges for a soak: heap used after GC, live threads, process CPU time. In an embedded
 * run the agents and the proxy live in this JVM, so these are the proxy's figures (with the
 * generator's own small share).
 *
 * <p>Heap after GC: the sum over heap pools of {@code GcInfo.getMemoryUsageAfterGc()} from the
 * latest {@link GarbageCollectorMXBean} notification (any collector, young or full), so a value
 * that keeps rising is memory the collector could not free; before the first GC, the heap pools'
 * {@link MemoryPoolMXBean#getCollectionUsage()}, or -1 when the JVM reports neither.
 * Thread-safe; {@link #close()} removes the listeners.
 */
public final class JvmGauges implements AutoCloseable {

    private final AtomicLong heapAfterGc = new AtomicLong(-1);
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onGc;

    /** Starts listening for GC notifications. */
    public JvmGauges() {
        long initial = 0;
        boolean any = false;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage usage = pool.getType() == MemoryType.HEAP ? pool.getCollectionUsage() : null;
            if (usage != null) {
                initial += usage.getUsed();
                any = true;
            }
        }
        heapAfterGc.set(any ? initial : -1);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
    }

    private void onGc(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        Map<String, MemoryUsage> after = info.getGcInfo().getMemoryUsageAfterGc();
        long used = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage usage = pool.getType() == MemoryType.HEAP ? after.get(pool.getName()) : null;
            if (usage != null) {
                used += usage.getUsed();
            }
        }
        heapAfterGc.set(used);
    }

    /** Heap used after the latest GC, bytes; -1 when unknown. */
    public long heapAfterGcBytes() {
        return heapAfterGc.get();
    }

    /** Live threads of this JVM. */
    public static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** CPU time this process used so far, ns; -1 when the JVM does not report it. */
    public static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    /** The processors this JVM may use. */
    public static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    /**
     * The share of the cores' time a process used: {@code cpuNanos / (wallNanos x cores)}, NaN when
     * either is unknown or zero.
     */
    public static double cpuShare(long cpuNanos, long wallNanos, int cores) {
        if (cpuNanos < 0 || wallNanos <= 0 || cores <= 0) {
            return Double.NaN;
        }
        return (double) cpuNanos / ((double) wallNanos * cores);
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException alreadyGone) {
                // Nothing to remove: the goal is reached.
            }
        }
        emitters.clear();
    }
}
