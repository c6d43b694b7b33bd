package dev.spool.record.internal;

import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * A stream that writes into a heap buffer from its position on, replacing it by one twice as large
 * when it fills (so {@link #buffer()} may change while writing). Where compressed batches are
 * built: the compressed size is not known in advance. Not thread-safe (one writer).
 */
public final class ByteBufferOutputStream extends OutputStream {
  private ByteBuffer buffer;

  public ByteBufferOutputStream(ByteBuffer buffer) {
    this.buffer = buffer;
  }

  public ByteBufferOutputStream(int initialCapacityBytes) {
    this(ByteBuffer.allocate(initialCapacityBytes));
  }

  /** The buffer written into now; its position is the end of what was written. */
  public ByteBuffer buffer() {
    return buffer;
  }

  public int position() {
    return buffer.position();
  }

  @Override
  public void write(int b) {
    ensureRoom(1);
    buffer.put((byte) b);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    ensureRoom(len);
    buffer.put(b, off, len);
  }

  /** Writes the bytes between {@code src}'s position and limit without moving them. */
  public void write(ByteBuffer src) {
    ensureRoom(src.remaining());
    buffer.put(src.duplicate());
  }

  /** Makes room for {@code bytes} more, growing the buffer if needed. */
  public void ensureRoom(int bytes) {
    if (buffer.remaining() >= bytes) {
      return;
    }
    long wanted = Math.max(2L * buffer.capacity(), (long) buffer.position() + bytes);
    if (wanted > Integer.MAX_VALUE - 8) {
      if ((long) buffer.position() + bytes > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException(
            "cannot grow a buffer of " + buffer.position() + " bytes by " + bytes);
      }
      wanted = Integer.MAX_VALUE - 8;
    }
    ByteBuffer bigger = ByteBuffer.allocate((int) wanted);
    bigger.put(buffer.flip());
    buffer = bigger;
  }
}
