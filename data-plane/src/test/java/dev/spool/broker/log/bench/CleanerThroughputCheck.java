package dev.spool.broker.log.bench;

import dev.spool.broker.BrokerConfig;
import dev.spool.broker.log.CleanerCheckpoint;
import dev.spool.broker.log.CleanerConfig;
import dev.spool.broker.log.CleanupConfig;
import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.log.LogManagerConfig;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.record.RecordBatchBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Random;

/**
 * Cleaner throughput on a keyed data set (scripts/bench-compaction.sh): writes {@code <records>}
 * records in 16-record batches of ~1 KiB JSON-like values over {@code <keys>} keys (the generator
 * of scripts/bench-compaction-kafka.java, same seed) into one partition with 16 MiB segments and
 * cleanup.policy=delete, then turns it to compact and lets the broker's own cleaner thread clean it
 * once, as Kafka's does after the same config change. The cleaner logs Kafka's summary line
 * (MB/sec); this prints the clean's figures from the cleaner checkpoint as well. Run in its own
 * JVM: {@code CleanerThroughputCheck <dir> <records> <keys>}.
 */
public final class CleanerThroughputCheck {
  static final int SEGMENT_BYTES = 16 * 1024 * 1024;
  static final int RECORDS_PER_BATCH = 16;

  private CleanerThroughputCheck() {}

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    long records = Long.parseLong(args[1]);
    int keys = Integer.parseInt(args[2]);
    Files.createDirectories(dir);
    CleanerConfig defaults = BrokerConfig.defaultLogManagerConfig().cleaner();
    CleanerConfig cleaner =
        new CleanerConfig(
            true,
            1,
            defaults.dedupeBufferBytes(),
            defaults.ioBufferBytes(),
            defaults.ioMaxBytesPerSecond(),
            100);
    LogConfig delete =
        LogConfig.from(
            dev.spool.config.TopicConfig.parse(
                Map.of("segment.bytes", String.valueOf(SEGMENT_BYTES))),
            false);
    LogManagerConfig config =
        new LogManagerConfig(1, 3_600_000, 3_600_000, 86_400_000, delete, cleaner);
    try (LogManager m = LogManager.open(dir, config, Clock.SYSTEM)) {
      PartitionLog log = m.getOrCreate(new TopicPartition("compaction", 0), "bench", delete);
      Random rnd = new Random(KeyedEvents.SEED);
      for (long written = 0; written < records; written += RECORDS_PER_BATCH) {
        RecordBatchBuilder b = new RecordBatchBuilder(RECORDS_PER_BATCH * 1100);
        for (int i = 0; i < RECORDS_PER_BATCH; i++) {
          int key = rnd.nextInt(keys);
          b.append(
              System.currentTimeMillis(),
              KeyedEvents.key(key).getBytes(StandardCharsets.UTF_8),
              KeyedEvents.value(rnd, key).getBytes(StandardCharsets.UTF_8));
        }
        log.appendAsLeader(b.build(), 0);
      }
      log.updateHighWatermark(log.logEndOffset());
      System.out.printf(
          "written: %.1f MiB in %d segments, %d records, %d keys%n",
          log.sizeInBytes() / 1048576.0, log.numberOfSegments(), log.logEndOffset(), keys);
      log.updateConfig(delete.withCleanup(CleanupConfig.compactOnly(0.5, 0, 86_400_000L)));
      m.startCleaner();
      CleanerCheckpoint cp = log.cleanerCheckpoint();
      long deadline = System.nanoTime() + 600_000_000_000L;
      while (cp.lastCleanTimeMs() < 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no clean within 10 minutes");
        }
        Thread.sleep(50);
        cp = log.cleanerCheckpoint();
      }
      System.out.printf(
          "clean: %.1f MiB cleaned in %d ms (%.1f MiB/s); log now %.1f MiB in %d segments%n",
          cp.bytesCleaned() / 1048576.0,
          cp.lastCleanDurationMs(),
          cp.bytesCleaned() / 1048576.0 / Math.max(1, cp.lastCleanDurationMs()) * 1000,
          log.sizeInBytes() / 1048576.0,
          log.numberOfSegments());
    }
  }
}
