package dev.spool.broker.log;

import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.record.RecordCursor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Batch builders and log readers shared by the storage tests. */
final class LogTestSupport {
  static final TopicPartition TP = new TopicPartition("orders", 0);

  private LogTestSupport() {}

  /** Small segments and a dense index so rolls and index entries happen in small tests. */
  static LogConfig smallConfig() {
    return new LogConfig(
        4096,
        Long.MAX_VALUE / 4,
        1024,
        256,
        -1,
        -1,
        1 << 20,
        dev.spool.record.TimestampType.CREATE_TIME,
        Long.MAX_VALUE / 4,
        Long.MAX_VALUE / 4,
        0,
        false);
  }

  /** The broker's cleaner defaults with a small key map (tests never need 128 MiB). */
  static CleanerConfig cleanerConfig() {
    return new CleanerConfig(true, 1, 1 << 20, 64 * 1024, Double.MAX_VALUE, 50);
  }

  static ScheduledExecutorService scheduler() {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, "test-log-scheduler");
          t.setDaemon(true);
          return t;
        });
  }

  static PartitionLog open(
      Path dir,
      LogConfig config,
      LogStartupState state,
      Clock clock,
      ScheduledExecutorService scheduler) {
    return PartitionLog.open(
        dir.resolve(TP.toString()), TP, "topic-id-1", config, state, clock, scheduler);
  }

  /** One batch of {@code records} records with values "prefix-i" and timestamps from {@code ts}. */
  static ByteBuffer batch(int records, long ts, String prefix) {
    RecordBatchBuilder b = new RecordBatchBuilder(256);
    for (int i = 0; i < records; i++) {
      b.append(ts + i, ("k" + i).getBytes(), (prefix + "-" + i).getBytes());
    }
    return b.build();
  }

  static ByteBuffer idempotentBatch(
      long producerId, short epoch, int baseSequence, int records, long ts) {
    RecordBatchBuilder b = new RecordBatchBuilder(256).producer(producerId, epoch, baseSequence);
    for (int i = 0; i < records; i++) {
      b.append(ts, null, ("v" + (baseSequence + i)).getBytes());
    }
    return b.build();
  }

  static ByteBuffer concat(List<ByteBuffer> parts) {
    int total = parts.stream().mapToInt(ByteBuffer::remaining).sum();
    ByteBuffer all = ByteBuffer.allocate(total);
    parts.forEach(p -> all.put(p.duplicate()));
    return all.flip();
  }

  /** The bytes of a slice. */
  static ByteBuffer bytes(FileSlice slice) {
    ByteBuffer b = ByteBuffer.allocate(slice.sizeInBytes());
    try {
      while (b.hasRemaining()) {
        int n = slice.channel().read(b, slice.position() + b.position());
        if (n < 0) {
          throw new IllegalStateException("slice runs past the end of the file");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.flip();
  }

  /** A copy of one batch's identity and records, for comparisons. */
  record Batch(long baseOffset, long lastOffset, int epoch, long crc, List<String> values) {}

  static List<Batch> parse(ByteBuffer bytes) {
    List<Batch> out = new ArrayList<>();
    RecordCursor c = new RecordCursor();
    for (RecordBatch b : MemoryRecords.wrap(bytes)) {
      List<String> values = new ArrayList<>();
      c.reset(b);
      while (c.next()) {
        values.add(c.valueAsString());
      }
      out.add(
          new Batch(
              b.baseOffset(), b.lastOffset(), b.partitionLeaderEpoch(), b.checksum(), values));
    }
    return out;
  }

  /** Every batch from {@code from} to the LEO through read(), validating each (CRC). */
  static List<Batch> readAll(PartitionLog log, long from) {
    List<Batch> out = new ArrayList<>();
    long offset = from;
    while (offset < log.logEndOffset()) {
      LogReadResult r = log.read(offset, 64 * 1024, log.logEndOffset(), true);
      if (r.slice().isEmpty()) {
        throw new AssertionError("empty read at " + offset + " below LEO " + log.logEndOffset());
      }
      List<Batch> batches = parse(bytes(r.slice()));
      out.addAll(batches);
      offset = batches.get(batches.size() - 1).lastOffset() + 1;
    }
    return out;
  }

  static List<String> values(List<Batch> batches) {
    return batches.stream().flatMap(b -> b.values().stream()).toList();
  }
}
