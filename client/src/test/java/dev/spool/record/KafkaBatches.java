package dev.spool.record;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;

/**
 * The oracle's side of the compatibility tests: a fixed, seeded set of records, and batches of them
 * built by Kafka's own producer-side classes ({@code MemoryRecordsBuilder} with each of Kafka's
 * {@code Compression}s). kafka-clients is a test dependency only.
 */
final class KafkaBatches {
  static final long BASE_TS = 1_700_000_000_000L;
  static final long PRODUCER_ID = 4242L;
  static final short PRODUCER_EPOCH = 3;
  static final int BASE_SEQUENCE = 17;

  private KafkaBatches() {}

  /** One record of the sample: null key/value allowed, headers as key/value pairs. */
  record Sample(long timestamp, byte[] key, byte[] value, List<Header> headers) {}

  /**
   * {@code n} records, seeded: JSON-like values of varying length (a few of 40–120 KiB so batches
   * cross lz4's 64 KiB blocks and snappy's 32 KiB chunks), some null keys and values, headers.
   */
  static List<Sample> sample(int n, long seed) {
    Random r = new Random(seed);
    List<Sample> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] key = i % 7 == 3 ? null : ("user-" + r.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
      byte[] value;
      if (i % 11 == 5) {
        value = null;
      } else if (i % 97 == 50) {
        value = json(r, 40_000 + r.nextInt(80_000));
      } else {
        value = json(r, 20 + r.nextInt(600));
      }
      List<Header> headers =
          i % 4 == 0
              ? List.of(
                  new Header("trace", ("t-" + i).getBytes(StandardCharsets.UTF_8)),
                  new Header("empty", null))
              : List.of();
      out.add(new Sample(BASE_TS + i * 3L + r.nextInt(3), key, value, headers));
    }
    return out;
  }

  private static byte[] json(Random r, int length) {
    StringBuilder sb = new StringBuilder(length + 64);
    while (sb.length() < length) {
      sb.append("{\"event\":\"page_view\",\"user\":")
          .append(r.nextInt(100_000))
          .append(",\"path\":\"/p/")
          .append(r.nextInt(300))
          .append("\",\"ms\":")
          .append(r.nextInt(5000))
          .append('}');
    }
    return sb.substring(0, length).getBytes(StandardCharsets.UTF_8);
  }

  /** Kafka's compression for our type and level. */
  static org.apache.kafka.common.compress.Compression kafkaCompression(
      CompressionType type, int level) {
    return switch (type) {
      case NONE -> org.apache.kafka.common.compress.Compression.NONE;
      case GZIP -> org.apache.kafka.common.compress.Compression.gzip().level(level).build();
      case SNAPPY -> org.apache.kafka.common.compress.Compression.snappy().build();
      case LZ4 -> org.apache.kafka.common.compress.Compression.lz4().level(level).build();
      case ZSTD -> org.apache.kafka.common.compress.Compression.zstd().level(level).build();
    };
  }

  /** One idempotent batch of {@code records}, built by Kafka's MemoryRecordsBuilder. */
  static ByteBuffer kafkaBatch(CompressionType type, int level, List<Sample> records) {
    MemoryRecordsBuilder b =
        MemoryRecords.builder(
            ByteBuffer.allocate(1024),
            org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
            kafkaCompression(type, level),
            org.apache.kafka.common.record.TimestampType.CREATE_TIME,
            0L,
            org.apache.kafka.common.record.internal.RecordBatch.NO_TIMESTAMP,
            PRODUCER_ID,
            PRODUCER_EPOCH,
            BASE_SEQUENCE,
            false,
            org.apache.kafka.common.record.internal.RecordBatch.NO_PARTITION_LEADER_EPOCH);
    for (Sample s : records) {
      org.apache.kafka.common.header.Header[] headers =
          s.headers().stream()
              .map(h -> new RecordHeader(h.key(), h.value()))
              .toArray(org.apache.kafka.common.header.Header[]::new);
      b.append(s.timestamp(), s.key(), s.value(), headers);
    }
    return b.build().buffer();
  }

  /** One idempotent batch of {@code records}, built by Spool's RecordBatchBuilder. */
  static ByteBuffer spoolBatch(CompressionType type, int level, List<Sample> records) {
    RecordBatchBuilder b =
        new RecordBatchBuilder(1024)
            .compression(Compression.of(type, level))
            .producer(PRODUCER_ID, PRODUCER_EPOCH, BASE_SEQUENCE);
    for (Sample s : records) {
      b.append(s.timestamp(), s.key(), s.value(), s.headers());
    }
    return b.build();
  }

  /** Levels worth covering per codec: the default and both ends Kafka allows in practice. */
  static int[] levels(CompressionType type) {
    return switch (type) {
      case NONE, SNAPPY -> new int[] {type.defaultLevel()};
      case GZIP -> new int[] {-1, 1, 9};
      case LZ4 -> new int[] {9, 1, 17};
      case ZSTD -> new int[] {3, -5, 1, 19};
    };
  }

  static boolean sameBytes(byte[] expected, ByteBuffer actual) {
    if (expected == null || actual == null) {
      return expected == null && actual == null;
    }
    byte[] a = new byte[actual.remaining()];
    actual.duplicate().get(a);
    return Arrays.equals(expected, a);
  }
}
