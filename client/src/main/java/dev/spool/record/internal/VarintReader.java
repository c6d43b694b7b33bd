package dev.spool.record.internal;

import dev.spool.record.CorruptRecordException;
import java.nio.ByteBuffer;

/**
 * A reusable reader of big-endian fixed-size fields and zig-zag varints at absolute positions of a
 * buffer, bounded by a limit. It never touches the buffer's own position, so one buffer can be read
 * by several readers, and it allocates nothing. Every read past the limit or of an over-long varint
 * throws {@link CorruptRecordException} with the position.
 *
 * <p>A buffer backed by an accessible array is read from the array directly: a consumer decodes a
 * few varints per record, and {@code ByteBuffer.get(int)} costs an index check and a call per byte
 * where an array read costs one bounds check the compiler can often drop (measured: the varint
 * reads were the second cost of a consumer's application thread after the copies).
 *
 * <p>Not thread-safe: one reader per thread (it is a cursor).
 */
public final class VarintReader {
  private ByteBuffer buffer;

  /** The buffer's array, or null when it has none (direct or read-only). */
  private byte[] array;

  /** Array index of buffer position 0 (the buffer's array offset). */
  private int arrayBase;

  private int position;
  private int limit;

  public VarintReader reset(ByteBuffer buffer, int position, int limit) {
    if (buffer != this.buffer) {
      this.buffer = buffer;
      this.array = buffer.hasArray() ? buffer.array() : null;
      this.arrayBase = buffer.hasArray() ? buffer.arrayOffset() : 0;
    }
    this.position = position;
    this.limit = limit;
    return this;
  }

  /** Moves to {@code position} with a new {@code limit}, on the same buffer. */
  public VarintReader reposition(int position, int limit) {
    this.position = position;
    this.limit = limit;
    return this;
  }

  public int position() {
    return position;
  }

  public int limit() {
    return limit;
  }

  public int remaining() {
    return limit - position;
  }

  public byte readByte() {
    require(1);
    byte[] a = array;
    return a != null ? a[arrayBase + position++] : buffer.get(position++);
  }

  /** Advances over {@code length} bytes, checking they are within the limit. */
  public void skip(int length) {
    if (length < 0) {
      throw new CorruptRecordException("negative length " + length, position);
    }
    require(length);
    position += length;
  }

  public int readVarint() {
    byte[] a = array;
    int start = position;
    int p = position;
    int value = 0;
    int shift = 0;
    int b;
    while (true) {
      if (p >= limit) {
        throw new CorruptRecordException("varint runs past the end of its record", start);
      }
      b = a != null ? a[arrayBase + p++] : buffer.get(p++);
      if ((b & 0x80) == 0) {
        break;
      }
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (shift > 28) {
        throw new CorruptRecordException("varint longer than 5 bytes", start);
      }
    }
    position = p;
    value |= b << shift;
    return (value >>> 1) ^ -(value & 1);
  }

  public long readVarlong() {
    byte[] a = array;
    int start = position;
    int p = position;
    long value = 0L;
    int shift = 0;
    long b;
    while (true) {
      if (p >= limit) {
        throw new CorruptRecordException("varlong runs past the end of its record", start);
      }
      b = a != null ? a[arrayBase + p++] : buffer.get(p++);
      if ((b & 0x80) == 0) {
        break;
      }
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (shift > 63) {
        throw new CorruptRecordException("varlong longer than 10 bytes", start);
      }
    }
    position = p;
    value |= b << shift;
    return (value >>> 1) ^ -(value & 1);
  }

  private void require(int bytes) {
    if (bytes > limit - position) {
      throw new CorruptRecordException(
          "field of " + bytes + " bytes runs past the end (" + (limit - position) + " bytes left)",
          position);
    }
  }
}
