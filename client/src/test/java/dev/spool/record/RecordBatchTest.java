package dev.spool.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class RecordBatchTest {
  private static ByteBuffer batch(int records) {
    RecordBatchBuilder b = new RecordBatchBuilder(64);
    for (int i = 0; i < records; i++) {
      b.append(1000L + i, "key" + i, "value-" + i);
    }
    return b.build();
  }

  @Test
  void leaderEpochAndBaseOffsetCanBeSetWithoutInvalidatingTheCrc() {
    ByteBuffer buf = batch(3);
    RecordBatch b = RecordBatch.at(buf, buf.position());
    b.setBaseOffset(1234L);
    b.setPartitionLeaderEpoch(9);
    assertTrue(b.isValid());
    assertEquals(1234L, b.baseOffset());
    assertEquals(1236L, b.lastOffset());
    assertEquals(9, b.partitionLeaderEpoch());
  }

  @Test
  void logAppendTimeRewriteRecomputesTheCrcAndRecordsReportTheBrokerTime() {
    ByteBuffer buf = batch(2);
    RecordBatch b = RecordBatch.at(buf, 0);
    long stored = b.checksum();
    b.setMaxTimestampAndRecomputeCrc(TimestampType.LOG_APPEND_TIME, 5_000L);
    assertTrue(b.isValid());
    assertTrue(stored != b.checksum());
    assertEquals(TimestampType.LOG_APPEND_TIME, b.timestampType());
    RecordCursor c = new RecordCursor().reset(b);
    while (c.next()) {
      assertEquals(5_000L, c.timestamp());
    }
  }

  @Test
  void flippedByteInTheCoveredRangeFailsTheCrcWithThePosition() {
    ByteBuffer buf = ByteBuffer.allocate(200);
    buf.position(100);
    ByteBuffer built = new RecordBatchBuilder(buf).append(1L, "a", "b").build();
    int pos = built.position();
    built.put(pos + 40, (byte) (built.get(pos + 40) ^ 1));
    CorruptRecordException e =
        assertThrows(CorruptRecordException.class, () -> RecordBatch.at(built, pos).ensureValid());
    assertEquals(100L, e.position());
    assertTrue(e.getMessage().contains("CRC mismatch"), e.getMessage());
  }

  @Test
  void badMagicShortLengthAndTruncationAreEachReported() {
    ByteBuffer magic = batch(1);
    magic.put(RecordBatch.MAGIC_POSITION, (byte) 1);
    assertTrue(RecordBatch.at(magic, 0).validationError().contains("magic is 1"));

    ByteBuffer small = batch(1);
    small.putInt(RecordBatch.BATCH_LENGTH_POSITION, 10);
    assertTrue(RecordBatch.at(small, 0).validationError().contains("below the minimum"));

    ByteBuffer whole = batch(1);
    ByteBuffer cut = whole.duplicate().limit(whole.limit() - 1);
    assertTrue(RecordBatch.at(cut, 0).validationError().contains("runs past the end"));

    assertTrue(RecordBatch.at(ByteBuffer.allocate(5), 0).validationError().contains("too few"));
  }

  @Test
  void recordCountThatCannotFitIsInvalidEvenWithAMatchingCrc() {
    ByteBuffer buf = batch(1);
    buf.putInt(RecordBatch.RECORDS_COUNT_POSITION, 1000);
    buf.putInt(RecordBatch.LAST_OFFSET_DELTA_POSITION, 999);
    RecordBatch b = RecordBatch.at(buf, 0);
    buf.putInt(RecordBatch.CRC_POSITION, (int) b.computeChecksum());
    assertFalse(b.isValid());
    assertTrue(b.validationError().contains("cannot fit"), b.validationError());
  }

  @Test
  void batchMarkedCompressedWhosePayloadIsNotIsCorruptNamingTheCodec() {
    ByteBuffer buf = batch(1);
    RecordBatch b = RecordBatch.at(buf, 0);
    buf.putShort(RecordBatch.ATTRIBUTES_POSITION, (short) CompressionType.ZSTD.id());
    buf.putInt(RecordBatch.CRC_POSITION, (int) b.computeChecksum());
    assertTrue(b.isValid());
    assertTrue(b.isCompressed());
    assertEquals(CompressionType.ZSTD, b.compressionType());
    CorruptRecordException e =
        assertThrows(CorruptRecordException.class, () -> new RecordCursor().reset(b));
    assertTrue(e.getMessage().contains("corrupt zstd payload"), e.getMessage());
  }

  @Test
  void unknownCodecIdIsInvalidInTheHeaderAndUnsupportedByTheCursor() {
    ByteBuffer buf = batch(1);
    RecordBatch b = RecordBatch.at(buf, 0);
    buf.putShort(RecordBatch.ATTRIBUTES_POSITION, (short) 6);
    buf.putInt(RecordBatch.CRC_POSITION, (int) b.computeChecksum());
    assertTrue(b.validationError().contains("unknown compression codec id 6"));
    UnsupportedCompressionException e =
        assertThrows(UnsupportedCompressionException.class, () -> new RecordCursor().reset(b));
    assertEquals(6, e.codecId());
  }

  @Test
  void recordWhoseLengthOverrunsItsBatchIsCorrupt() {
    ByteBuffer buf = batch(1);
    buf.put(RecordBatch.RECORDS_POSITION, (byte) 0x7e); // length varint 63 > what is left
    RecordCursor c = new RecordCursor().reset(RecordBatch.at(buf, 0));
    CorruptRecordException e = assertThrows(CorruptRecordException.class, c::next);
    assertEquals(RecordBatch.RECORDS_POSITION, e.position());
  }

  @Test
  void sequencesWrapPastIntMaxToZero() {
    assertEquals(0, RecordBatch.incrementSequence(Integer.MAX_VALUE, 1));
    assertEquals(4, RecordBatch.incrementSequence(Integer.MAX_VALUE - 1, 6));
    assertEquals(15, RecordBatch.incrementSequence(10, 5));
  }

  @Test
  void builderGrowsPastTheCallersBufferAndKeepsEveryRecord() {
    RecordBatchBuilder b = new RecordBatchBuilder(ByteBuffer.allocate(70));
    byte[] value = new byte[300];
    for (int i = 0; i < 50; i++) {
      b.append(i, null, value);
    }
    assertEquals(b.estimatedSizeInBytes(), b.build().remaining());
    RecordBatch batch = RecordBatch.at(b.buffer(), 0).ensureValid();
    assertEquals(50, batch.recordsCount());
    RecordCursor c = new RecordCursor().reset(batch);
    int n = 0;
    while (c.next()) {
      assertEquals(n, c.offset());
      assertEquals(300, c.valueLength());
      n++;
    }
    assertEquals(50, n);
  }

  @Test
  void hasRoomForRespectsTheLimitButAlwaysAcceptsAFirstRecord() {
    RecordBatchBuilder b = new RecordBatchBuilder();
    assertTrue(b.hasRoomFor(1L, null, new byte[10_000], 100));
    b.append(1L, null, new byte[10]);
    int size = b.estimatedSizeInBytes();
    // second record of 10 bytes value: 1 (len) + 1 attr + 1 ts + 1 off + 1 key + 1 vlen + 10 + 1
    // hdr = 17
    assertTrue(b.hasRoomFor(1L, null, new byte[10], size + 17));
    assertFalse(b.hasRoomFor(1L, null, new byte[10], size + 16));
  }

  @Test
  void memoryRecordsIteratesBatchesAndReportsACorruptOneAtItsPosition() {
    List<ByteBuffer> parts = List.of(batch(2), batch(3), batch(1));
    int total = parts.stream().mapToInt(ByteBuffer::remaining).sum();
    ByteBuffer all = ByteBuffer.allocate(total);
    parts.forEach(p -> all.put(p.duplicate()));
    all.flip();
    List<Integer> counts = new ArrayList<>();
    for (RecordBatch b : MemoryRecords.wrap(all)) {
      counts.add(b.recordsCount());
    }
    assertEquals(List.of(2, 3, 1), counts);

    int second = parts.get(0).remaining();
    all.put(second + 70, (byte) (all.get(second + 70) ^ 0x10));
    MemoryRecords.BatchIterator it = MemoryRecords.wrap(all).batches();
    it.next();
    CorruptRecordException e = assertThrows(CorruptRecordException.class, it::next);
    assertEquals(second, e.position());

    ByteBuffer trailing = ByteBuffer.allocate(total - 5);
    trailing.put(all.duplicate().limit(total - 5)).flip();
    MemoryRecords.BatchIterator noCrc = MemoryRecords.wrap(trailing).batchesWithoutCrcCheck();
    noCrc.next();
    noCrc.next();
    CorruptRecordException past = assertThrows(CorruptRecordException.class, noCrc::next);
    assertTrue(past.getMessage().contains("runs past the end"), past.getMessage());
  }
}
