package io.github.agentlb.loadgen.run;

import com.sun.management.GcInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/** This JVM's gauges (in an embedded run, mostly the proxy's): heap used after GC, live threads, CPU time. */
public final class JvmGauges {

    private JvmGauges() {
    }

    /** Heap used after the latest collection, young or full (before any, the collection usage), bytes; -1 if unknown. */
    public static long heapAfterGcBytes() {
        GcInfo last = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(gc -> gc instanceof com.sun.management.GarbageCollectorMXBean sun ? sun.getLastGcInfo() : null)
                .filter(Objects::nonNull).max(Comparator.comparingLong(GcInfo::getEndTime)).orElse(null);
        List<MemoryUsage> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool -> pool.getType() == MemoryType.HEAP).map(pool -> last != null
                        ? last.getMemoryUsageAfterGc().get(pool.getName()) : pool.getCollectionUsage())
                .filter(Objects::nonNull).toList();
        return heap.isEmpty() ? -1 : heap.stream().mapToLong(MemoryUsage::getUsed).sum();
    }

    public static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** CPU time this process used so far, ns; -1 when the JVM does not report it. */
    public static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    /** The share of the cores' time used: {@code cpuNanos / (wallNanos x cores)}; NaN when either is unknown or zero. */
    public static double cpuShare(long cpuNanos, long wallNanos, int cores) {
        return cpuNanos < 0 || wallNanos <= 0 || cores <= 0 ? Double.NaN : (double) cpuNanos / ((double) wallNanos * cores);
    }
}
