package dev.spool.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Compressed batches: built, iterated, checked as a stream, and refused when they lie. */
@Tag("unit")
class CompressedBatchTest {
  private static final long TS = 1_700_000_000_000L;

  static ByteBuffer build(Compression c, int records) {
    RecordBatchBuilder b = new RecordBatchBuilder(256).compression(c).producer(7L, (short) 1, 40);
    for (int i = 0; i < records; i++) {
      b.append(
          TS + i,
          ByteBuffer.wrap(("key-" + i).getBytes(StandardCharsets.UTF_8)),
          i % 5 == 4 ? null : ByteBuffer.wrap(value(i)),
          i % 3 == 0
              ? List.of(new Header("h", new byte[] {(byte) i}), new Header("n", null))
              : List.of());
    }
    return b.build();
  }

  static byte[] value(int i) {
    return ("{\"id\":" + i + ",\"payload\":\"" + "abc".repeat(i % 40) + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void cursorIteratesACompressedBatchLikeAnUncompressedOne(CompressionType type) {
    ByteBuffer batch = build(Compression.of(type), 500);
    RecordBatch view = RecordBatch.at(batch, batch.position()).ensureValid();
    assertEquals(type, view.compressionType());
    assertEquals(500, view.recordsCount());
    assertEquals(499, view.lastOffsetDelta());
    assertEquals(TS + 499, view.maxTimestamp());
    assertEquals(40, view.baseSequence());
    RecordCursor cursor = new RecordCursor().reset(view);
    for (int i = 0; i < 500; i++) {
      assertTrue(cursor.next());
      assertEquals(i, cursor.offset());
      assertEquals(TS + i, cursor.timestamp());
      assertEquals("key-" + i, cursor.keyAsString());
      if (i % 5 == 4) {
        assertNull(cursor.value());
      } else {
        assertEquals(new String(value(i), StandardCharsets.UTF_8), cursor.valueAsString());
      }
      assertEquals(i % 3 == 0 ? 2 : 0, cursor.headerCount());
    }
    assertFalse(cursor.next());
    assertTrue(cursor.consumedExactly());
    if (type != CompressionType.NONE) {
      assertTrue(view.sizeInBytes() < build(Compression.NONE, 500).remaining() / 2);
    }
  }

  @Test
  void oneCursorReadsManyCompressedBatchesReusingItsArray() {
    RecordCursor cursor = new RecordCursor();
    for (CompressionType type : CompressionType.values()) {
      for (int n : new int[] {1, 2000, 3}) {
        RecordBatch view = RecordBatch.at(build(Compression.of(type), n), 0);
        cursor.reset(view);
        int seen = 0;
        while (cursor.next()) {
          assertEquals("key-" + seen, cursor.keyAsString());
          seen++;
        }
        assertEquals(n, seen, type + " with " + n);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionType.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void cursorReadsBatchesInDirectAndReadOnlyBuffersAtAnOffset(CompressionType type) {
    // A consumer's fetch buffers are direct (zstd inflates from them without a copy) or slices of a
    // larger response; a read-only heap buffer exposes no array. All must read the same records.
    ByteBuffer heap = build(Compression.of(type), 700);
    int at = 13;
    ByteBuffer direct = ByteBuffer.allocateDirect(at + heap.remaining());
    direct.position(at);
    direct.put(heap.duplicate());
    ByteBuffer readOnly = ByteBuffer.allocate(at + heap.remaining());
    readOnly.position(at);
    readOnly.put(heap.duplicate());
    RecordCursor cursor = new RecordCursor();
    for (ByteBuffer buf : List.of(direct, readOnly.asReadOnlyBuffer())) {
      cursor.reset(RecordBatch.at(buf, at).ensureValid());
      int seen = 0;
      while (cursor.next()) {
        assertEquals("key-" + seen, cursor.keyAsString());
        if (seen % 5 != 4) {
          assertEquals(new String(value(seen), StandardCharsets.UTF_8), cursor.valueAsString());
        }
        seen++;
      }
      assertEquals(700, seen, type + " from " + (buf.isDirect() ? "direct" : "read-only"));
    }
  }

  @Test
  void appendWithOffsetKeepsGapsAndTheLastOffsetDelta() {
    RecordBatchBuilder b =
        new RecordBatchBuilder().baseOffset(100).compression(Compression.of(CompressionType.ZSTD));
    b.appendWithOffset(102, TS, bytes("a"), bytes("1"), List.of());
    b.appendWithOffset(107, TS + 1, bytes("b"), bytes("2"), List.of());
    assertThrows(
        IllegalArgumentException.class,
        () -> b.appendWithOffset(107, TS, bytes("c"), bytes("3"), List.of()));
    RecordBatch view = RecordBatch.at(b.build(), 0).ensureValid();
    assertEquals(100, view.baseOffset());
    assertEquals(7, view.lastOffsetDelta());
    assertEquals(2, view.recordsCount());
    RecordCursor c = new RecordCursor().reset(view);
    assertTrue(c.next());
    assertEquals(102, c.offset());
    assertTrue(c.next());
    assertEquals(107, c.offset());
    assertFalse(c.next());
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void streamReaderSeesEveryRecordAndCopiesTheInflatedRecordsExactly(CompressionType type) {
    ByteBuffer plain = build(Compression.NONE, 300);
    ByteBuffer compressed = build(Compression.of(type), 300);
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    RecordStreamReader r =
        new RecordStreamReader().reset(RecordBatch.at(compressed, 0), 1 << 20, sink);
    int n = 0;
    while (r.next()) {
      assertEquals(n, r.offsetDelta());
      assertEquals(TS + n, r.timestamp());
      assertEquals(("key-" + n).length(), r.keyLength());
      assertEquals(n % 5 == 4 ? -1 : value(n).length, r.valueLength());
      n++;
    }
    r.finish();
    assertEquals(300, n);
    byte[] records = Arrays.copyOfRange(plain.array(), RecordBatch.RECORDS_POSITION, plain.limit());
    assertArrayEquals(records, sink.toByteArray());
    assertEquals(records.length, r.inflatedBytes());
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionType.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void declaredCountAboveOrBelowTheRecordsIsInvalid(CompressionType type) {
    ByteBuffer more = build(Compression.of(type), 10);
    setCount(more, 11);
    RecordStreamReader r = new RecordStreamReader().reset(RecordBatch.at(more, 0), 1 << 20, null);
    InvalidRecordException e =
        assertThrows(
            InvalidRecordException.class,
            () -> {
              while (r.next()) {
                // read them all
              }
            });
    assertTrue(e.getMessage().contains("declares 11 records but its"), e.getMessage());
    assertTrue(e.getMessage().contains("payload holds 10"), e.getMessage());

    ByteBuffer fewer = build(Compression.of(type), 10);
    setCount(fewer, 9);
    RecordStreamReader r2 = new RecordStreamReader().reset(RecordBatch.at(fewer, 0), 1 << 20, null);
    while (r2.next()) {
      assertTrue(r2.offsetDelta() < 9);
    }
    InvalidRecordException e2 = assertThrows(InvalidRecordException.class, r2::finish);
    assertTrue(e2.getMessage().contains("holds more bytes"), e2.getMessage());
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionType.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void corruptPayloadIsCorruptForCursorAndStreamReader(CompressionType type) {
    ByteBuffer batch = build(Compression.of(type), 200);
    // Overwrite the payload after the codec's header with garbage and fix the CRC, so that only
    // the inflation can notice.
    int from = RecordBatch.RECORDS_POSITION + 20;
    for (int i = from; i < batch.limit() - 8; i++) {
      batch.put(i, (byte) (i * 31));
    }
    RecordBatch view = RecordBatch.at(batch, 0);
    batch.putInt(RecordBatch.CRC_POSITION, (int) view.computeChecksum());
    assertTrue(view.isValid());
    assertThrows(
        CorruptRecordException.class,
        () -> {
          RecordCursor c = new RecordCursor().reset(view);
          while (c.next()) {
            // a codec without checksums may inflate garbage: the record layout then breaks
          }
        });
    assertThrows(
        RuntimeException.class,
        () -> {
          RecordStreamReader r = new RecordStreamReader().reset(view, 1 << 20, null);
          while (r.next()) {
            // as above
          }
          r.finish();
        });
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionType.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void bombIsStoppedAtTheBoundByBothReaders(CompressionType type) {
    byte[] zeros = new byte[8 * 1024 * 1024];
    ByteBuffer bomb =
        new RecordBatchBuilder().compression(Compression.of(type)).append(TS, null, zeros).build();
    assertTrue(bomb.remaining() < 512 * 1024, type + " bomb is " + bomb.remaining());
    RecordBatch view = RecordBatch.at(bomb, 0).ensureValid();
    RecordStreamReader r = new RecordStreamReader().reset(view, 1024 * 1024, null);
    RecordTooLargeException e = assertThrows(RecordTooLargeException.class, r::next);
    assertEquals(1024 * 1024, e.limitBytes());
    assertTrue(e.sizeInBytes() <= 1024 * 1024 + 16 * 1024, "read " + e.sizeInBytes());
    r.close();
    RecordCursor c = new RecordCursor().maxInflatedBytes(1024 * 1024);
    assertThrows(RecordTooLargeException.class, () -> c.reset(view));
    // Within a bound that fits, the same batch reads back.
    RecordCursor big = new RecordCursor().reset(view);
    assertTrue(big.next());
    assertEquals(zeros.length, big.valueLength());
  }

  @Test
  void unknownCodecIdIsUnsupportedForTheStreamReader() {
    ByteBuffer batch = build(Compression.NONE, 2);
    batch.putShort(RecordBatch.ATTRIBUTES_POSITION, (short) 7);
    UnsupportedCompressionException e =
        assertThrows(
            UnsupportedCompressionException.class,
            () -> new RecordStreamReader().reset(RecordBatch.at(batch, 0), 1 << 20, null));
    assertEquals(7, e.codecId());
    assertTrue(e.getMessage().contains("unknown compression codec id 7"), e.getMessage());
  }

  private static void setCount(ByteBuffer batch, int count) {
    batch.putInt(RecordBatch.RECORDS_COUNT_POSITION, count);
    batch.putInt(RecordBatch.LAST_OFFSET_DELTA_POSITION, count - 1);
    batch.putInt(RecordBatch.CRC_POSITION, (int) RecordBatch.at(batch, 0).computeChecksum());
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}
