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

  /** A point in time. */
  public record Sample(long wallNanos, long processCpuNanos, long machineBusy, long machineTotal) {}

  /** Use over a window: cores this process used, and the machine's busy share (or -1). */
  public record Use(double clientCores, double machineBusy) {}

  public static Sample sample() {
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
    return new Sample(System.nanoTime(), process, busy, total);
  }

  public static Use between(Sample from, Sample to) {
    double wall = Math.max(1, to.wallNanos() - from.wallNanos());
    double cores = from.processCpuNanos() < 0 || to.processCpuNanos() < 0
        ? -1 : (to.processCpuNanos() - from.processCpuNanos()) / wall;
    double machine = -1;
    if (from.machineTotal() >= 0 && to.machineTotal() > from.machineTotal()) {
      machine = (double) (to.machineBusy() - from.machineBusy()) / (to.machineTotal() - from.machineTotal());
    }
    return new Use(cores, machine);
  }
}
