package dev.spool.broker.log.bench;

import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.record.RecordBatchBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Shared setup of the storage benchmarks (not a benchmark itself). */
final class BenchSupport {
  static final TopicPartition TP = new TopicPartition("bench", 0);
  static final int RECORD_VALUE_BYTES = 1000; // ~1 KiB records with their framing
  static final int RECORDS_PER_BATCH = 16; // ~16 KiB batches

  private BenchSupport() {}

  /** Where benchmark files go: -Dspool.bench.dir, else java.io.tmpdir. */
  static Path benchRoot() throws IOException {
    Path root =
        Paths.get(System.getProperty("spool.bench.dir", System.getProperty("java.io.tmpdir")));
    Files.createDirectories(root);
    return Files.createTempDirectory(root, "spool-bench-");
  }

  /** One 16-record batch of 1000-byte random values (as a producer would send). */
  static ByteBuffer batch(long seed) {
    Random r = new Random(seed);
    RecordBatchBuilder b =
        new RecordBatchBuilder(RECORDS_PER_BATCH * (RECORD_VALUE_BYTES + 32) + 64);
    for (int i = 0; i < RECORDS_PER_BATCH; i++) {
      byte[] value = new byte[RECORD_VALUE_BYTES];
      r.nextBytes(value);
      b.append(System.currentTimeMillis(), null, value);
    }
    ByteBuffer built = b.build();
    ByteBuffer direct = ByteBuffer.allocateDirect(built.remaining());
    direct.put(built).flip();
    return direct;
  }

  static LogConfig config() {
    return LogConfig.defaults();
  }

  static ScheduledExecutorService scheduler() {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, "bench-log-scheduler");
          t.setDaemon(true);
          return t;
        });
  }

  static PartitionLog open(
      Path dataDir, LogStartupState state, ScheduledExecutorService scheduler) {
    return PartitionLog.open(
        dataDir.resolve(TP.toString()),
        TP,
        "bench-topic",
        config(),
        state,
        Clock.SYSTEM,
        scheduler);
  }

  /** Writes {@code totalBytes} of batches into a fresh log and closes it cleanly. */
  static void fillLog(Path dataDir, long totalBytes, ScheduledExecutorService scheduler) {
    PartitionLog log = open(dataDir, LogStartupState.UNKNOWN, scheduler);
    ByteBuffer batch = batch(42);
    while (log.sizeInBytes() < totalBytes) {
      log.appendAsLeader(batch.duplicate(), 0);
    }
    log.close();
  }

  static void delete(Path dir) {
    LogManager.deleteRecursively(dir);
  }
}
