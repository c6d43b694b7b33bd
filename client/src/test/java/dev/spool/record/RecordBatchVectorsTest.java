package dev.spool.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact vectors of RecordBatch v2, assembled field by field from the layout table in {@link
 * RecordBatch} (not with the builder). The CRC literals were computed independently with a
 * bit-by-bit CRC-32C (poly 0x82F63B78) over bytes 21..end; the test re-checks them with the JDK.
 */
@Tag("unit")
class RecordBatchVectorsTest {
  private static final long TS = 1_700_000_000_000L; // 0x0000018BCFE56800

  /** One record, key "k", value "v", no headers, not idempotent. */
  private static final String KV =
      String.join(
          "",
          "0000000000000000", // baseOffset 0
          "0000003a", // batchLength 58 = 70 - 12
          "ffffffff", // partitionLeaderEpoch -1
          "02", // magic
          "e99b8dd8", // crc
          "0000", // attributes: none, CreateTime
          "00000000", // lastOffsetDelta 0
          "0000018bcfe56800", // baseTimestamp
          "0000018bcfe56800", // maxTimestamp
          "ffffffffffffffff", // producerId -1
          "ffff", // producerEpoch -1
          "ffffffff", // baseSequence -1
          "00000001", // recordsCount 1
          // record: length 8 (zz 0x10), attrs 0, tsDelta 0, offsetDelta 0, keyLen 1 (zz 2) 'k',
          // valueLen 1 'v', 0 headers
          "10",
          "00",
          "00",
          "00",
          "02",
          "6b",
          "02",
          "76",
          "00");

  /** One record "k"/"v" with headers h1="x" and h2=null. */
  private static final String HEADERS =
      String.join(
          "",
          "0000000000000000",
          "00000043",
          "ffffffff",
          "02",
          "b4e9301a",
          "0000",
          "00000000",
          "0000018bcfe56800",
          "0000018bcfe56800",
          "ffffffffffffffff",
          "ffff",
          "ffffffff",
          "00000001",
          // length 17 (zz 0x22), attrs, tsDelta, offsetDelta, key, value, 2 headers (zz 4)
          "22",
          "00",
          "00",
          "00",
          "026b",
          "0276",
          "04",
          "04" + "6831" + "02" + "78", // "h1" -> "x"
          "04" + "6832" + "01"); // "h2" -> null (zz(-1) = 1)

  /** Two records with null keys, idempotent producer 42 epoch 3 base sequence 7. */
  private static final String NULL_KEY_IDEMPOTENT =
      String.join(
          "",
          "0000000000000000",
          "00000041",
          "ffffffff",
          "02",
          "1a47450b",
          "0000",
          "00000001",
          "0000018bcfe56800",
          "0000018bcfe56805",
          "000000000000002a",
          "0003",
          "00000007",
          "00000002",
          // record 0: length 8, attrs, tsDelta 0, offsetDelta 0, null key (01), value "v1"
          "10",
          "00",
          "00",
          "00",
          "01",
          "04" + "7631",
          "00",
          // record 1: length 6, attrs, tsDelta 5 (zz 0x0a), offsetDelta 1 (zz 02), null key, empty
          // value, 0 headers
          "0c",
          "00",
          "0a",
          "02",
          "01",
          "00",
          "00");

  private static byte[] hex(String s) {
    return HexFormat.of().parseHex(s);
  }

  private static long crcOfHandBytes(byte[] batch) {
    CRC32C crc = new CRC32C();
    crc.update(
        batch, RecordBatch.ATTRIBUTES_POSITION, batch.length - RecordBatch.ATTRIBUTES_POSITION);
    return crc.getValue();
  }

  private static byte[] bytesOf(ByteBuffer built) {
    byte[] out = new byte[built.remaining()];
    built.duplicate().get(out);
    return out;
  }

  @Test
  void handComputedCrcLiteralsMatchTheJdkCrc32c() {
    assertEquals(0xe99b8dd8L, crcOfHandBytes(hex(KV)));
    assertEquals(0xb4e9301aL, crcOfHandBytes(hex(HEADERS)));
    assertEquals(0x1a47450bL, crcOfHandBytes(hex(NULL_KEY_IDEMPOTENT)));
  }

  @Test
  void builderEncodesOneKeyValueRecordExactly() {
    ByteBuffer built = new RecordBatchBuilder().append(TS, "k", "v").build();
    assertEquals(KV, HexFormat.of().formatHex(bytesOf(built)));
  }

  @Test
  void builderEncodesHeadersExactly() {
    ByteBuffer built =
        new RecordBatchBuilder()
            .append(
                TS,
                "k".getBytes(),
                "v".getBytes(),
                List.of(new Header("h1", "x".getBytes()), new Header("h2", null)))
            .build();
    assertEquals(HEADERS, HexFormat.of().formatHex(bytesOf(built)));
  }

  @Test
  void builderEncodesNullKeysAndProducerFieldsExactly() {
    ByteBuffer built =
        new RecordBatchBuilder()
            .producer(42L, (short) 3, 7)
            .append(TS, null, "v1".getBytes())
            .append(TS + 5, null, new byte[0])
            .build();
    assertEquals(NULL_KEY_IDEMPOTENT, HexFormat.of().formatHex(bytesOf(built)));
  }

  @Test
  void viewReadsEveryHeaderFieldOfTheHandVector() {
    RecordBatch b = RecordBatch.at(ByteBuffer.wrap(hex(NULL_KEY_IDEMPOTENT)), 0);
    assertTrue(b.isValid());
    assertEquals(0L, b.baseOffset());
    assertEquals(77, b.sizeInBytes());
    assertEquals(-1, b.partitionLeaderEpoch());
    assertEquals(2, b.magic());
    assertEquals(0x1a47450bL, b.checksum());
    assertEquals(1, b.lastOffsetDelta());
    assertEquals(1L, b.lastOffset());
    assertEquals(2L, b.nextOffset());
    assertEquals(TS, b.baseTimestamp());
    assertEquals(TS + 5, b.maxTimestamp());
    assertEquals(42L, b.producerId());
    assertEquals(3, b.producerEpoch());
    assertEquals(7, b.baseSequence());
    assertEquals(8, b.lastSequence());
    assertEquals(2, b.recordsCount());
    assertTrue(b.hasProducerId());
    assertFalse(b.isCompressed());
    assertEquals(CompressionType.NONE, b.compressionType());
    assertEquals(TimestampType.CREATE_TIME, b.timestampType());
    assertFalse(b.isTransactional());
    assertFalse(b.isControl());
  }

  @Test
  void cursorReadsRecordsOfTheHandVectors() {
    RecordCursor c = new RecordCursor().reset(RecordBatch.at(ByteBuffer.wrap(hex(HEADERS)), 0));
    assertTrue(c.next());
    assertEquals(0L, c.offset());
    assertEquals(TS, c.timestamp());
    assertEquals("k", c.keyAsString());
    assertEquals("v", c.valueAsString());
    assertEquals(2, c.headerCount());
    assertTrue(c.nextHeader());
    assertEquals("h1", c.headerKeyAsString());
    assertArrayEquals("x".getBytes(), c.headerValueAsBytes());
    assertTrue(c.nextHeader());
    assertEquals("h2", c.headerKeyAsString());
    assertEquals(-1, c.headerValueLength());
    assertNull(c.headerValueAsBytes());
    assertFalse(c.nextHeader());
    assertFalse(c.next());
    assertTrue(c.consumedExactly());

    c.reset(RecordBatch.at(ByteBuffer.wrap(hex(NULL_KEY_IDEMPOTENT)), 0));
    assertTrue(c.next());
    assertEquals(-1, c.keyLength());
    assertNull(c.key());
    assertEquals("v1", c.valueAsString());
    assertTrue(c.next());
    assertEquals(1L, c.offset());
    assertEquals(TS + 5, c.timestamp());
    assertEquals(0, c.valueLength());
    assertFalse(c.next());
  }
}
