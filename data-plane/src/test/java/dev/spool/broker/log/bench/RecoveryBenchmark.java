package dev.spool.broker.log.bench;

import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * (3) Recovery of a 256 MiB log after an unclean shutdown with the recovery point at 0 (every batch
 * read, size/magic/CRC/offset checked, indexes rebuilt and flushed) against reading the same file
 * through a 1 MiB buffer and computing one CRC-32C over all of it. One operation = the whole log.
 * The log is closed after each operation outside the measurement.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RecoveryBenchmark {
  private Path root;
  private ScheduledExecutorService scheduler;
  private List<Path> segmentFiles;
  private PartitionLog opened;
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    root = BenchSupport.benchRoot();
    scheduler = BenchSupport.scheduler();
    BenchSupport.fillLog(root, ReadBenchmark.LOG_BYTES, scheduler);
    try (Stream<Path> s = Files.list(root.resolve(BenchSupport.TP.toString()))) {
      segmentFiles = s.filter(p -> p.toString().endsWith(".log")).sorted().toList();
    }
  }

  @TearDown(Level.Invocation)
  public void closeOpened() {
    if (opened != null) {
      opened.close();
      opened = null;
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    scheduler.shutdownNow();
    BenchSupport.delete(root);
  }

  @Benchmark
  public long spoolRecoveryScan() {
    opened = BenchSupport.open(root, new LogStartupState(0, 0, 0, false), scheduler);
    long scanned = opened.recoveryReport().bytesScanned();
    if (scanned < ReadBenchmark.LOG_BYTES) {
      throw new IllegalStateException("recovery scanned only " + scanned + " bytes");
    }
    return scanned;
  }

  @Benchmark
  public long baselineReadAndCrc32c() throws IOException {
    CRC32C crc = new CRC32C();
    for (Path file : segmentFiles) {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
        long pos = 0;
        long size = ch.size();
        while (pos < size) {
          buffer.clear();
          int n = ch.read(buffer, pos);
          if (n < 0) {
            break;
          }
          pos += n;
          buffer.flip();
          crc.update(buffer);
        }
      }
    }
    return crc.getValue();
  }
}
