package dev.spool.chaos.fuzz;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * The byte-level mutations both fuzzers apply where a decoder is weakest: an int or short set to an
 * extreme, an unsigned varint made huge, bits flipped, a slice repeated (an array with an element
 * too many), the bytes truncated or extended with garbage. Each returns the mutated bytes (the
 * input itself when changed in place, or a new array).
 */
final class Mutations {
  private static final int[] EXTREMES = {-1, 0, 1, 0x7fff, 0x8000, 0x7fffffff, 0x80000000, 0xffff};

  private Mutations() {}

  /** A length, count or int field at a random place (from {@code from} on) set to an extreme. */
  static byte[] extreme(Random random, byte[] b, int from) {
    if (b.length <= from) {
      return b;
    }
    int at = from + random.nextInt(Math.max(1, b.length - from - 3));
    int v = EXTREMES[random.nextInt(EXTREMES.length)];
    if (random.nextBoolean() && at + 4 <= b.length) {
      ByteBuffer.wrap(b).putInt(at, v);
    } else if (at + 2 <= b.length) {
      ByteBuffer.wrap(b).putShort(at, (short) v);
    }
    return b;
  }

  /** A varint length or count at a random place from {@code from} on made huge. */
  static byte[] hugeVarint(Random random, byte[] b, int from) {
    if (b.length <= from) {
      return b;
    }
    int at = from + random.nextInt(b.length - from);
    byte[] varint = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};
    System.arraycopy(varint, 0, b, at, Math.min(varint.length, b.length - at));
    return b;
  }

  /** One to four bits flipped anywhere from {@code from} on. */
  static byte[] flipBits(Random random, byte[] b, int from) {
    if (b.length <= from) {
      return b;
    }
    int flips = 1 + random.nextInt(4);
    for (int i = 0; i < flips; i++) {
      b[from + random.nextInt(b.length - from)] ^= (byte) (1 << random.nextInt(8));
    }
    return b;
  }

  /** A slice of up to 32 bytes repeated in place. */
  static byte[] repeatSlice(Random random, byte[] b) {
    if (b.length == 0) {
      return b;
    }
    int from = random.nextInt(b.length);
    int len = 1 + random.nextInt(Math.min(32, b.length - from));
    byte[] out = Arrays.copyOf(b, b.length + len);
    System.arraycopy(b, from, out, from + len, b.length - from);
    return out;
  }

  /** The bytes cut at a random length (possibly 0). */
  static byte[] truncate(Random random, byte[] b) {
    return Arrays.copyOf(b, random.nextInt(b.length + 1));
  }

  /** 1 to 64 random bytes appended. */
  static byte[] appendGarbage(Random random, byte[] b) {
    byte[] tail = new byte[1 + random.nextInt(64)];
    random.nextBytes(tail);
    byte[] out = Arrays.copyOf(b, b.length + tail.length);
    System.arraycopy(tail, 0, out, b.length, tail.length);
    return out;
  }
}
