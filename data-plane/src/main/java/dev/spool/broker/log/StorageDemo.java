package dev.spool.broker.log;

import dev.spool.broker.log.internal.LogSegment;
import dev.spool.client.TopicPartition;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.record.RecordCursor;
import dev.spool.time.Clock;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A tour of the storage engine: append record batches to a partition log in a temporary data
 * directory, read them back as file slices, simulate a crash that tears the tail of the active
 * segment, and watch recovery cut the log back to its last complete batch. Then a clean shutdown
 * and a restart that scans nothing. Run: {@code java -cp ... dev.spool.broker.log.StorageDemo
 * [--keep]}.
 */
public final class StorageDemo {
  private static final PrintStream out = System.out;

  private StorageDemo() {}

  public static void main(String[] args) throws Exception {
    boolean keep = args.length > 0 && args[0].equals("--keep");
    Path dataDir = Files.createTempDirectory("spool-storage-demo-");
    TopicPartition tp = new TopicPartition("greetings", 0);
    LogConfig logConfig = LogConfig.defaults().withSegmentBytes(64 * 1024);
    LogManagerConfig config = new LogManagerConfig(1, 300_000, 5_000, logConfig);
    out.println("Spool storage demo — data directory " + dataDir);
    out.println();

    LogManager manager = LogManager.open(dataDir, config, Clock.SYSTEM);
    PartitionLog log = manager.getOrCreate(tp, "demo-topic-id", logConfig);
    step("1. Append three batches as the leader (epoch 1)");
    String[][] batches = {{"hello", "bonjour"}, {"hallo", "ciao", "hola"}, {"hej"}};
    for (String[] words : batches) {
      RecordBatchBuilder b = new RecordBatchBuilder();
      for (String w : words) {
        b.append(System.currentTimeMillis(), "lang", w);
      }
      LogAppendInfo info = log.appendAsLeader(b.build(), 1);
      out.printf("   appended %d record(s) at offsets %d..%d%n", info.recordCount(), info.firstOffset(),
          info.lastOffset());
    }
    log.updateHighWatermark(log.logEndOffset());

    step("2. Read them back from offset 0 (a file slice, as the network layer would send it)");
    printLog(log);

    step("3. Append two more batches, then crash (no clean shutdown) and tear the last one");
    for (String w : new String[] {"tere", "ahoj"}) {
      LogAppendInfo info = log.appendAsLeader(new RecordBatchBuilder().append(System.currentTimeMillis(), "lang", w).build(), 1);
      out.printf("   appended '%s' at offset %d%n", w, info.firstOffset());
    }
    log.closeForDeletion(); // the process "dies": nothing flushed, no checkpoints, no marker
    Path segment = LogSegment.logFile(log.dir(), 0);
    long size = Files.size(segment);
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      ch.truncate(size - 5);
    }
    out.printf("   %s: %d bytes -> %d bytes (the last write was torn)%n", segment.getFileName(), size, size - 5);

    step("4. Restart: recovery scans from the recovery point and cuts the torn batch");
    manager = LogManager.open(dataDir, config, Clock.SYSTEM);
    log = manager.get(tp).orElseThrow();
    RecoveryReport r = log.recoveryReport();
    out.printf("   clean shutdown: %s, scanned %d bytes in %d segment(s), truncated %d bytes%n",
        r.cleanShutdown(), r.bytesScanned(), r.segmentsScanned(), r.bytesTruncated());
    out.printf("   reason: %s%n", r.truncationReason());
    out.printf("   log end offset is now %d: 'ahoj' (offset 7) is gone, it was torn and never acknowledged%n",
        log.logEndOffset());
    out.printf("   high watermark %d: the crash came before the first checkpoint; replication raises it again%n",
        log.highWatermark());
    printLog(log);

    step("5. Clean shutdown and restart: nothing to scan");
    manager.close();
    manager = LogManager.open(dataDir, config, Clock.SYSTEM);
    r = manager.get(tp).orElseThrow().recoveryReport();
    out.printf("   clean shutdown: %s, scanned %d bytes, log end offset %d, opened in %d ms%n",
        r.cleanShutdown(), r.bytesScanned(), r.logEndOffset(), r.durationMs());
    manager.close();

    out.println();
    if (keep) {
      out.println("Files kept in " + dataDir);
    } else {
      LogManager.deleteRecursively(dataDir);
      out.println("Done (temporary directory removed; pass --keep to look at the files).");
    }
  }

  private static void step(String title) {
    out.println();
    out.println(title);
  }

  private static void printLog(PartitionLog log) throws IOException {
    LogReadResult result = log.read(log.logStartOffset(), 1 << 20, log.logEndOffset(), true);
    FileSlice slice = result.slice();
    ByteBuffer bytes = ByteBuffer.allocate(slice.sizeInBytes());
    while (bytes.hasRemaining()) {
      if (slice.channel().read(bytes, slice.position() + bytes.position()) < 0) {
        break;
      }
    }
    bytes.flip();
    out.printf("   slice: %d bytes at file position %d (high watermark %d, log end offset %d)%n",
        slice.sizeInBytes(), slice.position(), result.highWatermark(), result.logEndOffset());
    RecordCursor c = new RecordCursor();
    for (RecordBatch b : MemoryRecords.wrap(bytes)) {
      out.printf("   batch offsets %d..%d, epoch %d, CRC %08x ok%n", b.baseOffset(), b.lastOffset(),
          b.partitionLeaderEpoch(), b.checksum());
      c.reset(b);
      while (c.next()) {
        out.printf("     offset %d  %s = %s%n", c.offset(), c.keyAsString(), c.valueAsString());
      }
    }
  }
}
