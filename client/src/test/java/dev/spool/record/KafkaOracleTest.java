package dev.spool.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.record.KafkaBatches.Sample;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kafka as the oracle: Kafka's own record classes decode every batch Spool writes, with every codec
 * and level, and Spool decodes every batch Kafka's producer-side builder writes.
 */
@Tag("unit")
class KafkaOracleTest {
  private static final List<Sample> SAMPLE = KafkaBatches.sample(400, 20240601L);

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void kafkaDecodesEveryBatchSpoolWrites(CompressionType type) {
    for (int level : KafkaBatches.levels(type)) {
      ByteBuffer batch = KafkaBatches.spoolBatch(type, level, SAMPLE);
      assertKafkaReads(batch, type, SAMPLE, type + " level " + level);
    }
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void spoolDecodesEveryBatchKafkaWrites(CompressionType type) {
    for (int level : KafkaBatches.levels(type)) {
      ByteBuffer batch = KafkaBatches.kafkaBatch(type, level, SAMPLE);
      assertSpoolReads(batch, type, SAMPLE, type + " level " + level);
    }
  }

  @Test
  void smallAndSingleRecordBatchesBothWays() {
    for (CompressionType type : CompressionType.values()) {
      for (int n : new int[] {1, 2, 5}) {
        List<Sample> few = KafkaBatches.sample(n, n);
        assertKafkaReads(
            KafkaBatches.spoolBatch(type, type.defaultLevel(), few), type, few, type + " x" + n);
        assertSpoolReads(
            KafkaBatches.kafkaBatch(type, type.defaultLevel(), few), type, few, type + " x" + n);
      }
    }
  }

  @Test
  void uncompressedBatchesAreByteIdenticalToKafkas() {
    ByteBuffer spool = KafkaBatches.spoolBatch(CompressionType.NONE, 0, SAMPLE);
    ByteBuffer kafka = KafkaBatches.kafkaBatch(CompressionType.NONE, 0, SAMPLE);
    assertEquals(kafka, spool);
  }

  /**
   * Kafka's MemoryRecords/DefaultRecordBatch read {@code batch} and find exactly {@code expected}.
   */
  static void assertKafkaReads(
      ByteBuffer batch, CompressionType type, List<Sample> expected, String what) {
    org.apache.kafka.common.record.internal.MemoryRecords records =
        org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(batch.duplicate());
    Iterator<MutableRecordBatch> batches = records.batches().iterator();
    assertTrue(batches.hasNext(), what);
    MutableRecordBatch b = batches.next();
    assertFalse(batches.hasNext(), what);
    b.ensureValid();
    assertEquals(type.id(), b.compressionType().id, what);
    assertEquals(expected.size(), b.countOrNull(), what);
    assertEquals(expected.size() - 1, b.lastOffset(), what);
    assertEquals(KafkaBatches.PRODUCER_ID, b.producerId(), what);
    assertEquals(KafkaBatches.PRODUCER_EPOCH, b.producerEpoch(), what);
    assertEquals(KafkaBatches.BASE_SEQUENCE, b.baseSequence(), what);
    long max = expected.stream().mapToLong(Sample::timestamp).max().orElseThrow();
    assertEquals(max, b.maxTimestamp(), what);
    int i = 0;
    for (org.apache.kafka.common.record.internal.Record r : b) {
      Sample s = expected.get(i);
      assertEquals(i, r.offset(), what);
      assertEquals(s.timestamp(), r.timestamp(), what);
      assertTrue(KafkaBatches.sameBytes(s.key(), r.key()), what + " key " + i);
      assertTrue(KafkaBatches.sameBytes(s.value(), r.value()), what + " value " + i);
      assertEquals(s.headers().size(), r.headers().length, what);
      for (int h = 0; h < s.headers().size(); h++) {
        assertEquals(s.headers().get(h).key(), r.headers()[h].key(), what);
        assertArrayEquals(s.headers().get(h).value(), r.headers()[h].value(), what);
      }
      i++;
    }
    assertEquals(expected.size(), i, what);
  }

  /** Spool's cursor and stream reader read {@code batch} and find exactly {@code expected}. */
  static void assertSpoolReads(
      ByteBuffer batch, CompressionType type, List<Sample> expected, String what) {
    MemoryRecords.BatchIterator batches = MemoryRecords.wrap(batch.duplicate()).batches();
    assertTrue(batches.hasNext(), what);
    RecordBatch b = batches.next();
    assertEquals(type, b.compressionType(), what);
    assertEquals(expected.size(), b.recordsCount(), what);
    assertEquals(KafkaBatches.PRODUCER_ID, b.producerId(), what);
    assertEquals(KafkaBatches.BASE_SEQUENCE, b.baseSequence(), what);
    RecordCursor c = new RecordCursor().reset(b);
    for (int i = 0; i < expected.size(); i++) {
      Sample s = expected.get(i);
      assertTrue(c.next(), what);
      assertEquals(i, c.offset(), what);
      assertEquals(s.timestamp(), c.timestamp(), what);
      assertTrue(KafkaBatches.sameBytes(s.key(), c.key()), what + " key " + i);
      assertTrue(KafkaBatches.sameBytes(s.value(), c.value()), what + " value " + i);
      assertEquals(s.headers().size(), c.headerCount(), what);
      for (Header h : s.headers()) {
        assertTrue(c.nextHeader(), what);
        assertEquals(h.key(), c.headerKeyAsString(), what);
        assertArrayEquals(h.value(), c.headerValueAsBytes(), what);
      }
    }
    assertFalse(c.next(), what);
    assertTrue(c.consumedExactly(), what);

    ByteArrayOutputStream inflated = new ByteArrayOutputStream();
    RecordStreamReader r = new RecordStreamReader().reset(b, 64 << 20, inflated);
    int n = 0;
    while (r.next()) {
      assertEquals(n, r.offsetDelta(), what);
      assertEquals(expected.get(n).timestamp(), r.timestamp(), what);
      n++;
    }
    r.finish();
    assertEquals(expected.size(), n, what);
    // The inflated records are exactly what an uncompressed batch of them carries.
    ByteBuffer plain = KafkaBatches.spoolBatch(CompressionType.NONE, 0, expected);
    byte[] records = new byte[plain.remaining() - RecordBatch.RECORDS_POSITION];
    plain.get(RecordBatch.RECORDS_POSITION, records);
    assertArrayEquals(records, inflated.toByteArray(), what);
  }

  @Test
  void sampleHasTheShapesItPromises() {
    long big = SAMPLE.stream().filter(s -> s.value() != null && s.value().length > 65536).count();
    long nullKeys = SAMPLE.stream().filter(s -> s.key() == null).count();
    assertTrue(big >= 2, "records above 64 KiB: " + big);
    assertTrue(nullKeys > 0);
    assertTrue(new String(SAMPLE.get(1).value(), StandardCharsets.UTF_8).startsWith("{\"event\""));
  }
}
