package dev.spool.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each codec round-trips any size, in any read pattern, and refuses damaged input with a reason.
 */
@Tag("unit")
class CompressionTest {

  /** Sizes around the codecs' block boundaries (lz4 64 KiB, snappy 32 KiB, the 16 KiB buffers). */
  private static final int[] SIZES = {
    0, 1, 100, 16 * 1024, 32 * 1024 + 1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 300_000
  };

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void roundTripsCompressibleAndRandomBytesOfEverySize(CompressionType type) throws IOException {
    Random random = new Random(42);
    for (int size : SIZES) {
      for (byte[] data : new byte[][] {compressible(size, random), randomBytes(size, random)}) {
        ByteBuffer compressed = Compression.of(type).compress(ByteBuffer.wrap(data));
        assertArrayEquals(data, readAll(type, compressed, 8192), type + " size " + size);
        assertArrayEquals(data, readAll(type, compressed, 1_000_000), type + " size " + size);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void readsByteByByte(CompressionType type) throws IOException {
    byte[] data = compressible(70_000, new Random(1));
    ByteBuffer compressed = Compression.of(type).compress(ByteBuffer.wrap(data));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = Compression.wrapForInput(type, compressed)) {
      for (int b = in.read(); b >= 0; b = in.read()) {
        out.write(b);
      }
    }
    assertArrayEquals(data, out.toByteArray());
  }

  @Test
  void compressibleDataShrinksWithEveryCodec() {
    byte[] data = compressible(100_000, new Random(7));
    for (CompressionType type : CompressionType.values()) {
      int size = Compression.of(type).compress(ByteBuffer.wrap(data)).remaining();
      if (type == CompressionType.NONE) {
        assertEquals(data.length, size);
      } else {
        assertTrue(size < data.length / 2, type + " gave " + size + " of " + data.length);
      }
    }
  }

  @Test
  void everyLevelInKafkasRangesWorksAndOthersAreRefused() throws IOException {
    byte[] data = compressible(50_000, new Random(3));
    int[][] levels = {{1, 1}, {1, 9}, {1, -1}, {3, 1}, {3, 9}, {3, 17}, {4, -5}, {4, 1}, {4, 19}};
    for (int[] l : levels) {
      CompressionType type = CompressionType.forId(l[0]);
      ByteBuffer compressed = Compression.of(type, l[1]).compress(ByteBuffer.wrap(data));
      assertArrayEquals(data, readAll(type, compressed, 4096), type + " level " + l[1]);
    }
    assertThrows(IllegalArgumentException.class, () -> Compression.of(CompressionType.GZIP, 10));
    assertThrows(IllegalArgumentException.class, () -> Compression.of(CompressionType.GZIP, 0));
    assertThrows(IllegalArgumentException.class, () -> Compression.of(CompressionType.LZ4, 18));
    assertThrows(IllegalArgumentException.class, () -> Compression.of(CompressionType.ZSTD, 23));
    assertEquals(Compression.of(CompressionType.ZSTD), Compression.of(CompressionType.ZSTD, 3));
    assertEquals("lz4(level 9)", Compression.of(CompressionType.LZ4).toString());
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionType.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void damagedPayloadFailsWithAnIoExceptionNotGarbage(CompressionType type) {
    byte[] data = compressible(200_000, new Random(11));
    ByteBuffer compressed = Compression.of(type).compress(ByteBuffer.wrap(data));
    // Flip bytes in the middle of the payload, away from headers, then truncate a copy.
    ByteBuffer flipped = copy(compressed);
    for (int i = flipped.limit() / 2; i < flipped.limit() / 2 + 16; i++) {
      flipped.put(i, (byte) ~flipped.get(i));
    }
    ByteBuffer truncated = copy(compressed).limit(compressed.limit() / 2);
    ByteBuffer garbage =
        ByteBuffer.wrap("definitely not compressed".getBytes(StandardCharsets.UTF_8));
    for (ByteBuffer bad : new ByteBuffer[] {flipped, truncated, garbage}) {
      boolean failed;
      try {
        byte[] out = readAll(type, bad, 65536);
        // A flip inside stored literals can go unnoticed by codecs without checksums (snappy,
        // lz4 as Kafka writes it); then the output must at least differ from the input.
        failed = !java.util.Arrays.equals(out, data);
      } catch (IOException | RuntimeException e) {
        failed = true;
      }
      assertTrue(failed, type + " accepted damaged input as the original");
    }
  }

  @Test
  void lz4WritesKafkasFrameHeader() {
    ByteBuffer c = Compression.of(CompressionType.LZ4).compress(ByteBuffer.wrap(new byte[10]));
    // magic 0x184D2204 little-endian, FLG 0x60 (v01, independent blocks), BD 0x40 (64 KiB)
    assertEquals(0x04, c.get(0));
    assertEquals(0x22, c.get(1));
    assertEquals(0x4d, c.get(2));
    assertEquals(0x18, c.get(3));
    assertEquals(0x60, c.get(4));
    assertEquals(0x40, c.get(5));
    // end mark: four zero bytes
    assertEquals(0, c.getInt(c.limit() - 4));
  }

  static byte[] readAll(CompressionType type, ByteBuffer compressed, int chunk) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[chunk];
    try (InputStream in = Compression.wrapForInput(type, compressed)) {
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        out.write(buf, 0, n);
      }
    }
    return out.toByteArray();
  }

  /** JSON-like text: repetitive field names, varying values. */
  static byte[] compressible(int size, Random random) {
    StringBuilder sb = new StringBuilder(size + 100);
    while (sb.length() < size) {
      sb.append("{\"user\":")
          .append(random.nextInt(1000))
          .append(",\"event\":\"click\",\"page\":\"/home/")
          .append(random.nextInt(50))
          .append("\"}");
    }
    return sb.substring(0, size).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] randomBytes(int size, Random random) {
    byte[] b = new byte[size];
    random.nextBytes(b);
    return b;
  }

  private static ByteBuffer copy(ByteBuffer b) {
    ByteBuffer c = ByteBuffer.allocate(b.remaining());
    c.put(b.duplicate()).flip();
    return c;
  }
}
