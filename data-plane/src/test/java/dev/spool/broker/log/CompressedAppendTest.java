package dev.spool.broker.log;

import static dev.spool.broker.log.LogTestSupport.bytes;
import static dev.spool.broker.log.LogTestSupport.concat;
import static dev.spool.broker.log.LogTestSupport.readAll;
import static dev.spool.broker.log.LogTestSupport.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ManualClock;
import dev.spool.config.TopicConfig;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.InvalidRecordException;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.record.RecordTooLargeException;
import dev.spool.record.UnsupportedCompressionException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The leader's handling of compressed batches (Kafka's LogValidator): stored as sent when the topic
 * takes the producer's codec, recompressed when it names another, every record checked either way,
 * and each lie refused with its own exception while nothing is appended.
 */
@Tag("integration")
@Timeout(60)
class CompressedAppendTest {
  @TempDir Path tmp;
  ManualClock clock = new ManualClock(1_700_000_000_000L);
  ScheduledExecutorService scheduler;
  PartitionLog log;

  @BeforeEach
  void setUp() {
    scheduler = LogTestSupport.scheduler();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (log != null && !log.isClosed()) {
      log.close();
    }
    scheduler.shutdownNow();
    scheduler.awaitTermination(5, TimeUnit.SECONDS);
  }

  private PartitionLog open(String... topicConfig) {
    Map<String, String> overrides = new HashMap<>();
    for (int i = 0; i < topicConfig.length; i += 2) {
      overrides.put(topicConfig[i], topicConfig[i + 1]);
    }
    LogConfig cfg = LogConfig.from(TopicConfig.parse(overrides), false);
    return LogTestSupport.open(tmp, cfg, LogStartupState.UNKNOWN, clock, scheduler);
  }

  private ByteBuffer batch(CompressionType type, int records, String prefix) {
    return batch(type, records, prefix, 0);
  }

  private ByteBuffer batch(CompressionType type, int records, String prefix, int sequence) {
    RecordBatchBuilder b =
        new RecordBatchBuilder(256)
            .compression(Compression.of(type))
            .producer(9L, (short) 0, sequence);
    for (int i = 0; i < records; i++) {
      b.append(clock.nowMs() + i, ("k" + i).getBytes(), (prefix + "-" + i).getBytes());
    }
    return b.build();
  }

  private static List<String> expected(String prefix, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(prefix + "-" + i);
    }
    return out;
  }

  private List<RecordBatch> stored() {
    ByteBuffer all = bytes(log.read(0, 1 << 24, log.logEndOffset(), true).slice());
    List<RecordBatch> out = new ArrayList<>();
    for (RecordBatch b : MemoryRecords.wrap(all)) {
      out.add(RecordBatch.at(all, b.position()));
    }
    return out;
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void producerTopicStoresTheBatchAsSent(CompressionType type) {
    log = open();
    ByteBuffer sent = batch(type, 200, "v");
    ByteBuffer copy = ByteBuffer.allocate(sent.remaining()).put(sent.duplicate()).flip();
    log.appendAsLeader(sent, 3);
    RecordBatch b = stored().get(0);
    assertEquals(type, b.compressionType());
    assertEquals(copy.remaining(), b.sizeInBytes());
    // From the CRC on, the stored bytes are the producer's (offset and epoch are not in the CRC).
    ByteBuffer storedTail =
        b.buffer().duplicate().position(b.position() + RecordBatch.CRC_POSITION);
    storedTail.limit(storedTail.position() + copy.remaining() - RecordBatch.CRC_POSITION);
    assertEquals(copy.position(RecordBatch.CRC_POSITION), storedTail);
    assertEquals(expected("v", 200), values(readAll(log, 0)));
  }

  @Test
  void zstdTopicRecompressesLz4AndUncompressedBatchesKeepingProducerFields() {
    log = open("compression.type", "zstd", "compression.zstd.level", "5");
    LogAppendInfo info =
        log.appendAsLeader(
            concat(
                List.of(
                    batch(CompressionType.ZSTD, 50, "a"),
                    batch(CompressionType.LZ4, 60, "b", 50),
                    batch(CompressionType.NONE, 70, "c", 110))),
            1);
    assertEquals(0, info.firstOffset());
    assertEquals(179, info.lastOffset());
    List<RecordBatch> batches = stored();
    assertEquals(3, batches.size());
    for (RecordBatch b : batches) {
      assertEquals(CompressionType.ZSTD, b.compressionType());
      assertEquals(9L, b.producerId());
      assertEquals(b.baseOffset(), b.baseSequence());
      assertTrue(b.isValid(), b.validationError());
    }
    assertEquals(List.of(0L, 50L, 110L), batches.stream().map(RecordBatch::baseOffset).toList());
    List<String> all = new ArrayList<>(expected("a", 50));
    all.addAll(expected("b", 60));
    all.addAll(expected("c", 70));
    assertEquals(all, values(readAll(log, 0)));
    assertEquals(180, info.recordCount());
  }

  @Test
  void noneTopicStoresCompressedBatchesUncompressed() {
    log = open("compression.type", "none");
    log.appendAsLeader(batch(CompressionType.GZIP, 40, "g"), 0);
    RecordBatch b = stored().get(0);
    assertEquals(CompressionType.NONE, b.compressionType());
    assertEquals(expected("g", 40), values(readAll(log, 0)));
  }

  @Test
  void timeLookupInsideACompressedBatchFindsTheExactRecord() {
    log = open();
    log.appendAsLeader(batch(CompressionType.LZ4, 100, "t"), 0);
    TimestampAndOffset found = log.offsetForTimestamp(clock.nowMs() + 37).orElseThrow();
    assertEquals(37, found.offset());
    assertEquals(clock.nowMs() + 37, found.timestampMs());
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionType.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void corruptPayloadIsRefusedAndNothingIsAppended(CompressionType type) {
    log = open();
    log.appendAsLeader(batch(CompressionType.NONE, 3, "ok"), 0);
    ByteBuffer bad = batch(type, 100, "x");
    for (int i = RecordBatch.RECORDS_POSITION + 20; i < bad.limit() - 8; i++) {
      bad.put(i, (byte) (i * 7));
    }
    bad.putInt(RecordBatch.CRC_POSITION, (int) RecordBatch.at(bad, 0).computeChecksum());
    RuntimeException e = assertThrows(RuntimeException.class, () -> log.appendAsLeader(bad, 0));
    assertTrue(
        e instanceof CorruptRecordException || e instanceof InvalidRecordException, e.toString());
    assertEquals(3, log.logEndOffset());
  }

  @Test
  void wrongRecordCountInsideACompressedBatchIsInvalid() {
    log = open();
    for (int declared : new int[] {11, 9}) {
      ByteBuffer bad = batch(CompressionType.ZSTD, 10, "x");
      bad.putInt(RecordBatch.RECORDS_COUNT_POSITION, declared);
      bad.putInt(RecordBatch.LAST_OFFSET_DELTA_POSITION, declared - 1);
      bad.putInt(RecordBatch.CRC_POSITION, (int) RecordBatch.at(bad, 0).computeChecksum());
      InvalidRecordException e =
          assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(bad, 0));
      assertTrue(e.getMessage().contains("declares " + declared + " records"), e.getMessage());
    }
    assertEquals(0, log.logEndOffset());
  }

  @Test
  void unknownCodecIdIsUnsupported() {
    log = open();
    for (int id = 5; id <= 7; id++) {
      ByteBuffer bad = batch(CompressionType.NONE, 2, "x");
      bad.putShort(RecordBatch.ATTRIBUTES_POSITION, (short) id);
      bad.putInt(RecordBatch.CRC_POSITION, (int) RecordBatch.at(bad, 0).computeChecksum());
      UnsupportedCompressionException e =
          assertThrows(UnsupportedCompressionException.class, () -> log.appendAsLeader(bad, 0));
      assertEquals(id, e.codecId());
      assertTrue(e.getMessage().contains("batch 0"), e.getMessage());
    }
    assertEquals(0, log.logEndOffset());
  }

  @Test
  void decompressionBombIsRefusedAtTheBound() {
    log = open("message.max.decompressed.bytes", String.valueOf(1 << 20));
    ByteBuffer bomb =
        new RecordBatchBuilder()
            .compression(Compression.of(CompressionType.ZSTD))
            .append(clock.nowMs(), null, new byte[16 << 20])
            .build();
    assertTrue(bomb.remaining() < 4096, "bomb of " + bomb.remaining() + " bytes");
    RecordTooLargeException e =
        assertThrows(RecordTooLargeException.class, () -> log.appendAsLeader(bomb, 0));
    assertTrue(e.getMessage().contains("message.max.decompressed.bytes"), e.getMessage());
    assertEquals(1 << 20, e.limitBytes());
    assertEquals(0, log.logEndOffset());
    // The same bound recompressing to none is max.message.bytes.
    log.updateConfig(LogConfig.from(TopicConfig.parse(Map.of("compression.type", "none")), false));
    RecordTooLargeException e2 =
        assertThrows(RecordTooLargeException.class, () -> log.appendAsLeader(bomb, 0));
    assertTrue(e2.getMessage().contains("max.message.bytes"), e2.getMessage());
    assertEquals(0, log.logEndOffset());
  }

  @Test
  void timestampOutOfBoundsInsideACompressedBatchIsRefused() {
    log = open("message.timestamp.before.max.ms", "1000");
    RecordBatchBuilder b =
        new RecordBatchBuilder().compression(Compression.of(CompressionType.LZ4));
    b.append(clock.nowMs(), "k", "fresh");
    b.append(clock.nowMs() - 5000, "k", "stale");
    ByteBuffer batch = b.build();
    assertThrows(InvalidTimestampException.class, () -> log.appendAsLeader(batch, 0));
    assertEquals(0, log.logEndOffset());
  }

  @Test
  void maxMessageBytesAppliesToTheBatchAsSent() {
    log = open("max.message.bytes", "4096");
    // About 40 KiB of records that compress below 4 KiB: the compressed size is what counts.
    ByteBuffer compressed = batch(CompressionType.ZSTD, 400, "a-fairly-repetitive-value");
    assertTrue(compressed.remaining() < 4096, compressed.remaining() + " bytes");
    log.appendAsLeader(compressed, 0);
    assertEquals(400, log.logEndOffset());
    // The same records sent uncompressed are too large, and nothing is appended.
    ByteBuffer plain = batch(CompressionType.NONE, 400, "a-fairly-repetitive-value");
    RecordTooLargeException e =
        assertThrows(RecordTooLargeException.class, () -> log.appendAsLeader(plain, 0));
    assertEquals(plain.remaining(), e.sizeInBytes());
    assertEquals(4096, e.limitBytes());
    assertEquals(400, log.logEndOffset());
  }

  @Test
  void timeIndexFindsExactRecordsInCompressedBatchesAcrossSegmentsAndAfterRecovery() {
    String[] cfg = {"segment.bytes", "1024", "index.interval.bytes", "0"};
    log = open(cfg);
    int batches = 60;
    for (int i = 0; i < batches; i++) {
      RecordBatchBuilder b =
          new RecordBatchBuilder(256).compression(Compression.of(CompressionType.GZIP));
      for (int r = 0; r < 10; r++) {
        // Timestamps rise by 10 per record across the whole log.
        b.append(clock.nowMs() + (i * 10L + r) * 10, ("k" + r).getBytes(), ("v" + r).getBytes());
      }
      log.appendAsLeader(b.build(), 0);
    }
    assertTrue(log.numberOfSegments() > 3, log.numberOfSegments() + " segments");
    for (int round = 0; round < 2; round++) {
      for (long offset : new long[] {0, 7, 123, 155, 299, 480, 599}) {
        // Between two records' timestamps: the answer is the later record.
        TimestampAndOffset found =
            log.offsetForTimestamp(clock.nowMs() + offset * 10 - 5).orElseThrow();
        assertEquals(offset, found.offset(), "round " + round);
        assertEquals(clock.nowMs() + offset * 10, found.timestampMs());
      }
      assertTrue(log.offsetForTimestamp(clock.nowMs() + 6000).isEmpty());
      // Unclean reopen: recovery rebuilds the indexes from the compressed batches.
      log.close();
      log =
          LogTestSupport.open(
              tmp,
              LogConfig.from(TopicConfig.parse(Map.of(cfg[0], cfg[1], cfg[2], cfg[3])), false),
              LogStartupState.UNKNOWN,
              clock,
              scheduler);
    }
  }
}
