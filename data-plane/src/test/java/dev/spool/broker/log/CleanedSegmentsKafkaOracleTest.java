package dev.spool.broker.log;

import static dev.spool.broker.log.CompactionTestSupport.compactConfig;
import static dev.spool.broker.log.CompactionTestSupport.keyed;
import static dev.spool.broker.log.CompactionTestSupport.keyedIdempotent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.record.Compression;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka as the oracle on cleaned segments: a keyed log with tombstones and an idempotent producer,
 * written with one codec (or all of them in turn), is cleaned twice (the second time after every
 * delete horizon passed), then every {@code .log} file of the partition directory is decoded with
 * Kafka's own {@code FileRecords} (what Kafka's broker and DumpLogSegments read segments with):
 * every batch passes Kafka's CRC check, batch and record offsets strictly increase across the whole
 * log, every kept non-empty batch still uses the codec it was written with, and the last record of
 * every key is its latest written value, with no key left twice below the active segment and no
 * tombstone whose delete horizon passed.
 */
@Tag("integration")
@Timeout(60)
class CleanedSegmentsKafkaOracleTest extends LogFixture {
  static Stream<String> codecs() {
    return Stream.concat(
        CompactionTestSupport.allCodecs().stream().map(c -> c.type().displayName()),
        Stream.of("mixed"));
  }

  /** A batch as Kafka decoded it: codec id, offsets and records (key, value, offset). */
  private record KafkaBatch(int codec, long baseOffset, long lastOffset, List<String[]> records) {}

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void kafkaReadsEveryCleanedSegment(String codecName) throws Exception {
    List<Compression> all = CompactionTestSupport.allCodecs();
    LogConfig cfg = compactConfig(2048, 10_000);
    log = open(cfg);
    Map<String, String> latest = new LinkedHashMap<>();
    Map<Long, Integer> codecAt = new LinkedHashMap<>();
    log.appendAsLeader(
        keyedIdempotent(codec(codecName, all, 0), 9, (short) 0, 0, clock.nowMs(), "p", "p0"), 0);
    latest.put("p", "p0");
    codecAt.put(0L, codec(codecName, all, 0).type().id());
    for (int i = 1; i < 240; i++) {
      Compression codec = codec(codecName, all, i);
      String[] kv = {
        "k" + (i % 13),
        "value-" + i + "-" + "x".repeat(i % 40),
        "t" + (i % 7),
        i % 5 == 0 ? null : "v" + i,
        "p",
        "q" + i
      };
      long at = log.appendAsLeader(keyed(codec, clock.nowMs(), kv), 0).firstOffset();
      codecAt.put(at, codec.type().id());
      for (int r = 0; r < kv.length; r += 2) {
        latest.put(kv[r], kv[r + 1]);
      }
      clock.advanceMs(5);
    }
    log.updateHighWatermark(log.logEndOffset());

    clean();
    // Tombstones below this got their delete horizon in the first clean: the second drops them.
    long firstActiveBase = log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);
    clock.advanceMs(10_001);
    log.appendAsLeader(keyed(clock.nowMs(), "after", "horizon"), 0);
    log.updateHighWatermark(log.logEndOffset());
    latest.put("after", "horizon");
    clean();
    long activeBase = log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);

    List<KafkaBatch> batches = readWithKafka(log.dir());
    assertTrue(batches.size() > 1, "the log has batches: " + batches.size());
    long next = 0;
    Map<String, String> read = new LinkedHashMap<>();
    Set<String> keysBelowActive = new HashSet<>();
    for (KafkaBatch b : batches) {
      assertTrue(b.baseOffset() >= next, "batch " + b.baseOffset() + " starts before " + next);
      long prev = b.baseOffset() - 1;
      for (String[] r : b.records()) {
        long offset = Long.parseLong(r[2]);
        assertTrue(offset > prev && offset <= b.lastOffset(), "record offset " + offset);
        prev = offset;
        read.put(r[0], r[1]);
        if (offset < activeBase) {
          assertTrue(keysBelowActive.add(r[0]), "key " + r[0] + " twice below the active segment");
        }
        if (offset < firstActiveBase) {
          assertTrue(r[1] != null, "an expired tombstone of " + r[0] + " is left at " + offset);
        }
      }
      next = b.lastOffset() + 1;
      Integer written = codecAt.get(b.baseOffset());
      if (!b.records().isEmpty() && written != null) {
        assertEquals((int) written, b.codec(), "batch " + b.baseOffset() + " keeps its codec");
      }
    }
    assertEquals(log.logEndOffset(), next, "the segments end at the log end offset");
    Map<String, String> expected = new LinkedHashMap<>(latest);
    expected.values().removeIf(v -> v == null);
    read.values().removeIf(v -> v == null);
    assertEquals(expected, read, "every key's latest value, and only those");
  }

  private static Compression codec(String name, List<Compression> all, int i) {
    return name.equals("mixed")
        ? all.get(i % all.size())
        : all.stream().filter(c -> c.type().displayName().equals(name)).findFirst().orElseThrow();
  }

  private void clean() throws InterruptedException {
    assertTrue(
        CompactionTestSupport.inlineCleaner(log, clock)
            .cleanFilthiest(CompactionTestSupport.cleaner(1 << 20, clock)),
        "a clean ran");
  }

  /** Every batch of every segment file in {@code dir}, in offset order, decoded by Kafka. */
  private static List<KafkaBatch> readWithKafka(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
    }
    List<KafkaBatch> out = new ArrayList<>();
    for (Path p : files) {
      File f = p.toFile();
      try (FileRecords records = FileRecords.open(f, false)) {
        for (FileChannelRecordBatch b : records.batches()) {
          b.ensureValid(); // Kafka's CRC check
          List<String[]> recs = new ArrayList<>();
          for (Record r : b) {
            recs.add(new String[] {text(r.key()), text(r.value()), Long.toString(r.offset())});
          }
          out.add(new KafkaBatch(b.compressionType().id, b.baseOffset(), b.lastOffset(), recs));
        }
      }
    }
    return out;
  }

  private static String text(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    byte[] bytes = new byte[b.remaining()];
    b.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
