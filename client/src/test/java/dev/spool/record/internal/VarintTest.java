package dev.spool.record.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.record.CorruptRecordException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class VarintTest {
  @Test
  void knownEncodingsMatchProtobufZigZag() {
    assertEquals("00", encodeInt(0));
    assertEquals("01", encodeInt(-1));
    assertEquals("02", encodeInt(1));
    assertEquals("7f", encodeInt(-64));
    assertEquals("8001", encodeInt(64));
    assertEquals("feffffff0f", encodeInt(Integer.MAX_VALUE));
    assertEquals("ffffffff0f", encodeInt(Integer.MIN_VALUE));
  }

  private static String encodeInt(int v) {
    ByteBuffer b = ByteBuffer.allocate(5);
    Varint.writeVarint(v, b);
    assertEquals(Varint.sizeOfVarint(v), b.position());
    return HexFormat.of().formatHex(b.array(), 0, b.position());
  }

  @Test
  void randomValuesRoundTrip() {
    long seed = System.nanoTime();
    Random r = new Random(seed);
    ByteBuffer b = ByteBuffer.allocate(15);
    VarintReader reader = new VarintReader();
    for (int i = 0; i < 10_000; i++) {
      int vi = r.nextInt() >> r.nextInt(32);
      long vl = r.nextLong() >> r.nextInt(64);
      b.clear();
      Varint.writeVarint(vi, b);
      Varint.writeVarlong(vl, b);
      reader.reset(b, 0, b.position());
      assertEquals(vi, reader.readVarint(), "seed " + seed);
      assertEquals(vl, reader.readVarlong(), "seed " + seed);
      assertEquals(
          Varint.sizeOfVarint(vi) + Varint.sizeOfVarlong(vl), reader.position(), "seed " + seed);
    }
  }

  @Test
  void overlongOrTruncatedVarintsAreCorrupt() {
    ByteBuffer six = ByteBuffer.wrap(HexFormat.of().parseHex("ffffffffff01"));
    assertThrows(
        CorruptRecordException.class, () -> new VarintReader().reset(six, 0, 6).readVarint());
    ByteBuffer cut = ByteBuffer.wrap(HexFormat.of().parseHex("8080"));
    CorruptRecordException e =
        assertThrows(
            CorruptRecordException.class, () -> new VarintReader().reset(cut, 0, 2).readVarlong());
    assertEquals(0L, e.position());
  }
}
