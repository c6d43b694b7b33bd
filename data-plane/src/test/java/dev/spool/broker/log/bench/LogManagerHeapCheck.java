package dev.spool.broker.log.bench;

import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.log.LogManagerConfig;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * (4) Heap held by a LogManager with many partitions open, each with one segment (default topic
 * config: 10 MiB preallocated, mmapped indexes, which are off-heap). Run in its own JVM: {@code
 * LogManagerHeapCheck <dir> <partitions> create|measure}. "create" writes the partitions and shuts
 * down cleanly; "measure" opens them, runs GC and prints the heap in use. Run it with -Xmx64m to
 * prove the partitions fit.
 */
public final class LogManagerHeapCheck {
  private LogManagerHeapCheck() {}

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    int partitions = Integer.parseInt(args[1]);
    String mode = args[2];
    LogManagerConfig config =
        new LogManagerConfig(
            2,
            3_600_000,
            3_600_000,
            86_400_000,
            LogConfig.defaults(),
            dev.spool.broker.BrokerConfig.defaultLogManagerConfig().cleaner());
    if (mode.equals("create")) {
      Files.createDirectories(dir);
      try (LogManager m = LogManager.open(dir, config, Clock.SYSTEM)) {
        for (int p = 0; p < partitions; p++) {
          PartitionLog log =
              m.getOrCreate(new TopicPartition("heap", p), "heap-topic", LogConfig.defaults());
          log.appendAsLeader(BenchSupport.batch(p), 0);
        }
      }
      return;
    }
    long before = usedHeapAfterGc();
    LogManager m = LogManager.open(dir, config, Clock.SYSTEM);
    long after = usedHeapAfterGc();
    int open = m.all().size();
    System.out.printf("partitions open: %d, failed: %d%n", open, m.failedPartitions().size());
    System.out.printf(
        "heap used: %.1f MiB before open, %.1f MiB with the partitions open (%.1f KiB each)%n",
        before / 1048576.0, after / 1048576.0, (after - before) / 1024.0 / Math.max(1, open));
    System.out.printf("HEAP_USED_BYTES=%d%n", after);
    m.close();
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
