package dev.spool.broker.log;

import dev.spool.broker.log.internal.Cleaner;
import dev.spool.broker.log.internal.Throttler;
import dev.spool.common.Clock;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.record.RecordCursor;
import dev.spool.record.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Keyed batches, compacted configs, a cleaner driven from the test thread, and log readers. */
final class CompactionTestSupport {
  private CompactionTestSupport() {}

  /** Small segments, a dense index, cleanup.policy=compact with every clean due at once. */
  static LogConfig compactConfig(int segmentBytes, long deleteRetentionMs) {
    return new LogConfig(
            segmentBytes,
            Long.MAX_VALUE / 4,
            4096,
            128,
            -1,
            -1,
            1 << 20,
            TimestampType.CREATE_TIME,
            Long.MAX_VALUE / 4,
            Long.MAX_VALUE / 4,
            0,
            false)
        .withCleanup(CleanupConfig.compactOnly(0.0, 0, deleteRetentionMs));
  }

  /**
   * One batch of key/value pairs ({@code kv[2i]} key, {@code kv[2i+1]} value; null = tombstone).
   */
  static ByteBuffer keyed(long timestampMs, String... kv) {
    return keyed(Compression.NONE, timestampMs, kv);
  }

  /** {@link #keyed(long, String...)} compressed with {@code compression}. */
  static ByteBuffer keyed(Compression compression, long timestampMs, String... kv) {
    RecordBatchBuilder b = new RecordBatchBuilder(256).compression(compression);
    for (int i = 0; i < kv.length; i += 2) {
      b.append(timestampMs, bytes(kv[i]), bytes(kv[i + 1]));
    }
    return b.build();
  }

  /** An idempotent batch of key/value pairs. */
  static ByteBuffer keyedIdempotent(
      long producerId, short epoch, int baseSequence, long timestampMs, String... kv) {
    return keyedIdempotent(Compression.NONE, producerId, epoch, baseSequence, timestampMs, kv);
  }

  /** {@link #keyedIdempotent(long, short, int, long, String...)} compressed. */
  static ByteBuffer keyedIdempotent(
      Compression compression,
      long producerId,
      short epoch,
      int baseSequence,
      long timestampMs,
      String... kv) {
    RecordBatchBuilder b =
        new RecordBatchBuilder(256)
            .producer(producerId, epoch, baseSequence)
            .compression(compression);
    for (int i = 0; i < kv.length; i += 2) {
      b.append(timestampMs, bytes(kv[i]), bytes(kv[i + 1]));
    }
    return b.build();
  }

  /** Every codec, none included, at its default level. */
  static List<Compression> allCodecs() {
    return Arrays.stream(CompressionType.values()).map(Compression::of).toList();
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /** One record as read back. */
  record Rec(long offset, String key, String value, long timestamp) {}

  /** One batch as read back: its header fields (codec id too), CRC checked, and its records. */
  record Bat(
      int codec,
      long baseOffset,
      long lastOffset,
      int count,
      long producerId,
      int baseSequence,
      long deleteHorizonMs,
      List<Rec> records) {}

  /**
   * Every batch from the log start to the log end, CRC-checked, through {@link PartitionLog#read}.
   */
  static List<Bat> batches(PartitionLog log) {
    List<Bat> out = new ArrayList<>();
    long offset = log.logStartOffset();
    RecordCursor c = new RecordCursor();
    while (offset < log.logEndOffset()) {
      LogReadResult r = log.read(offset, 1 << 20, log.logEndOffset(), true);
      if (r.slice().isEmpty()) {
        throw new AssertionError("empty read at " + offset + " below LEO " + log.logEndOffset());
      }
      for (RecordBatch b : MemoryRecords.wrap(LogTestSupport.bytes(r.slice()))) {
        List<Rec> recs = new ArrayList<>();
        c.reset(b);
        while (c.next()) {
          recs.add(new Rec(c.offset(), c.keyAsString(), c.valueAsString(), c.timestamp()));
        }
        out.add(
            new Bat(
                b.compressionCodecId(),
                b.baseOffset(),
                b.lastOffset(),
                b.recordsCount(),
                b.producerId(),
                b.baseSequence(),
                b.deleteHorizonMs(),
                recs));
        offset = b.nextOffset();
      }
    }
    return out;
  }

  static List<Rec> records(PartitionLog log) {
    return batches(log).stream().flatMap(b -> b.records().stream()).toList();
  }

  /**
   * Key → value of its last record in offset order (null value: the last record is a tombstone).
   */
  static Map<String, String> latest(List<Rec> records) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Rec r : records) {
      out.put(r.key(), r.value());
    }
    return out;
  }

  /** Asserts offsets strictly increase over batches and records. */
  static void assertOffsetsIncrease(List<Bat> batches) {
    long next = -1;
    for (Bat b : batches) {
      if (b.baseOffset() < next) {
        throw new AssertionError("batch at " + b.baseOffset() + " starts before " + next);
      }
      long prev = b.baseOffset() - 1;
      for (Rec r : b.records()) {
        if (r.offset() <= prev || r.offset() > b.lastOffset()) {
          throw new AssertionError("record offset " + r.offset() + " out of order in " + b);
        }
        prev = r.offset();
      }
      next = b.lastOffset() + 1;
    }
  }

  /** A log cleaner over one log whose owner steps run inline on the calling (test) thread. */
  static LogCleaner inlineCleaner(PartitionLog log, Clock clock) {
    return inlineCleaner(log, clock, () -> {});
  }

  /** As above, running {@code afterClean} after each clean (where the manager checkpoints). */
  static LogCleaner inlineCleaner(PartitionLog log, Clock clock, Runnable afterClean) {
    return new LogCleaner(
        "test",
        LogTestSupport.cleanerConfig(),
        clock,
        () -> List.of(log),
        tp -> log,
        () ->
            (tp, task) -> {
              task.run();
              return true;
            },
        afterClean);
  }

  static Cleaner cleaner(int mapBytes, Clock clock) {
    return new Cleaner(mapBytes, 4096, new Throttler(Double.MAX_VALUE, clock), clock);
  }
}
