package dev.parley.benchmarks.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU use over a window: this process's (the load generator's) CPU time, and on Linux the
 * whole machine's busy share from {@code /proc/stat}. Together they tell whether the client
 * took the cores the server needed, and whether the machine was saturated.
 */
public final class CpuSampler {
    private static final Path PROC_STAT = Path.of("/proc/stat");

    /** Linux's clock ticks per second in /proc (USER_HZ, 100 on every mainstream kernel). */
    private static final long TICKS_PER_SECOND = 100;

    /** A point in time; {@code serverCpuNanos} is -1 without a server pid. */
    public record Sample(
            long wallNanos, long processCpuNanos, long machineBusy, long machineTotal, long serverCpuNanos) {}

    /** Use over a window: cores this process used, the machine's busy share (or -1), the server's cores (or -1). */
    public record Use(double clientCores, double machineBusy, double serverCores, double serverCpuSeconds) {}

    public static Sample sample() {
        return sample(null);
    }

    /** Also the CPU time of process {@code serverPid} (user + system, from {@code /proc/PID/stat}), when given. */
    public static Sample sample(Long serverPid) {
        long process = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            process = os.getProcessCpuTime();
        }
        long busy = -1;
        long total = -1;
        try {
            String first = Files.readAllLines(PROC_STAT).get(0);
            if (first.startsWith("cpu ")) {
                String[] fields = first.trim().split("\\s+");
                long sum = 0;
                long idle = 0;
                for (int i = 1; i < fields.length && i <= 8; i++) {
                    long value = Long.parseLong(fields[i]);
                    sum += value;
                    if (i == 4 || i == 5) { // idle, iowait
                        idle += value;
                    }
                }
                total = sum;
                busy = sum - idle;
            }
        } catch (IOException | RuntimeException ignored) {
            // not Linux, or unreadable: machine share unknown
        }
        return new Sample(System.nanoTime(), process, busy, total, serverPid == null ? -1 : processCpuNanos(serverPid));
    }

    /** CPU time of {@code pid} so far, or -1 when it cannot be read (no such process, not Linux). */
    static long processCpuNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // pid (comm) state ppid ...: comm may hold spaces and parentheses, so count from the last ')'
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14 and 15)
            return ticks * (1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    public static Use between(Sample from, Sample to) {
        double wall = Math.max(1, to.wallNanos() - from.wallNanos());
        double cores = from.processCpuNanos() < 0 || to.processCpuNanos() < 0
                ? -1
                : (to.processCpuNanos() - from.processCpuNanos()) / wall;
        double machine = -1;
        if (from.machineTotal() >= 0 && to.machineTotal() > from.machineTotal()) {
            machine = (double) (to.machineBusy() - from.machineBusy()) / (to.machineTotal() - from.machineTotal());
        }
        double serverSeconds = from.serverCpuNanos() < 0 || to.serverCpuNanos() < 0
                ? -1
                : (to.serverCpuNanos() - from.serverCpuNanos()) / 1e9;
        return new Use(cores, machine, serverSeconds < 0 ? -1 : serverSeconds * 1e9 / wall, serverSeconds);
    }
}
