package io.github.agentlb.loadgen.run;

import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;

/** This JVM's gauges (in an embedded run, mostly the proxy's): heap used after GC, live threads, CPU time. */
public final class JvmGauges {

    private JvmGauges() {
    }

    /** Heap used after the latest collection, young or full (before any, the collection usage), bytes; -1 if unknown. */
    public static long heapAfterGcBytes() {
        GcInfo last = null;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            GcInfo info = gc instanceof com.sun.management.GarbageCollectorMXBean sun ? sun.getLastGcInfo() : null;
            last = info != null && (last == null || info.getEndTime() > last.getEndTime()) ? info : last;
        }
        long used = -1;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage usage = pool.getType() != MemoryType.HEAP ? null
                    : last != null ? last.getMemoryUsageAfterGc().get(pool.getName()) : pool.getCollectionUsage();
            used = usage == null ? used : Math.max(used, 0) + usage.getUsed();
        }
        return used;
    }

    public static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** CPU time this process used so far, ns; -1 when the JVM does not report it. */
    public static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    public static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** The share of the cores' time used: {@code cpuNanos / (wallNanos x cores)}; NaN when either is unknown or zero. */
    public static double cpuShare(long cpuNanos, long wallNanos, int cores) {
        return cpuNanos < 0 || wallNanos <= 0 || cores <= 0 ? Double.NaN : (double) cpuNanos / ((double) wallNanos * cores);
    }
}
