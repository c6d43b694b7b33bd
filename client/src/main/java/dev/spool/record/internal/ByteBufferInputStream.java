package dev.spool.record.internal;

import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * Reads the bytes between a buffer's position and limit as a stream, through a duplicate, so the
 * caller's buffer never moves. The source of every decompressing stream: codecs read compressed
 * bytes from it in blocks. Not thread-safe (one reader).
 */
public final class ByteBufferInputStream extends InputStream {
  private final ByteBuffer buffer;

  public ByteBufferInputStream(ByteBuffer buffer) {
    this.buffer = buffer.duplicate();
  }

  @Override
  public int read() {
    return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    if (len == 0) {
      return 0;
    }
    if (!buffer.hasRemaining()) {
      return -1;
    }
    int n = Math.min(len, buffer.remaining());
    buffer.get(b, off, n);
    return n;
  }

  @Override
  public long skip(long n) {
    int k = (int) Math.max(0, Math.min(n, buffer.remaining()));
    buffer.position(buffer.position() + k);
    return k;
  }

  @Override
  public int available() {
    return buffer.remaining();
  }
}
