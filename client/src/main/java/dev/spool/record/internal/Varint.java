package dev.spool.record.internal;

import java.nio.ByteBuffer;

/**
 * Zig-zag variable-length integers as in protobuf and Kafka's {@code DefaultRecord}: the value is
 * zig-zag mapped ({@code (n << 1) ^ (n >> 31)}) so small negative numbers stay short, then written
 * 7 bits at a time, least significant group first, high bit set on every byte but the last. An int
 * takes 1–5 bytes, a long 1–10. Decoding lives in {@link VarintReader}.
 */
public final class Varint {
  private Varint() {}

  public static int sizeOfVarint(int value) {
    int v = (value << 1) ^ (value >> 31);
    int bytes = 1;
    while ((v & 0xffffff80) != 0) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  public static int sizeOfVarlong(long value) {
    long v = (value << 1) ^ (value >> 63);
    int bytes = 1;
    while ((v & 0xffffffffffffff80L) != 0L) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  /** Writes {@code value} at the buffer's position and advances it. */
  public static void writeVarint(int value, ByteBuffer buffer) {
    int v = (value << 1) ^ (value >> 31);
    while ((v & 0xffffff80) != 0) {
      buffer.put((byte) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    buffer.put((byte) v);
  }

  /** Writes {@code value} at the buffer's position and advances it. */
  public static void writeVarlong(long value, ByteBuffer buffer) {
    long v = (value << 1) ^ (value >> 63);
    while ((v & 0xffffffffffffff80L) != 0L) {
      buffer.put((byte) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    buffer.put((byte) v);
  }
}
