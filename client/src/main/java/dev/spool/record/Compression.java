package dev.spool.record;

import dev.spool.record.internal.ByteBufferOutputStream;
import dev.spool.record.internal.Codecs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A codec and its level: what a producer or a topic compresses batches with. The codecs write and
 * read what Kafka's clients write and read for RecordBatch v2 (magic 2):
 *
 * <ul>
 *   <li>gzip: a gzip member (RFC 1952) through the JDK's Deflater/Inflater;
 *   <li>snappy: snappy-java's xerial framing (16-byte header, then length-prefixed snappy blocks);
 *   <li>lz4: one LZ4 frame with independent 64 KiB blocks and no checksums but the header's, the
 *       subset Kafka's lz4 reader accepts (see {@code internal.Lz4FrameOutputStream});
 *   <li>zstd: one zstd frame through zstd-jni.
 * </ul>
 *
 * <p>In a batch the compressed blob replaces the records after the 61-byte header; the header
 * (counts, offsets, timestamps, producer fields) stays uncompressed. {@link RecordBatchBuilder}
 * builds compressed batches, {@link RecordCursor} iterates them, {@link RecordStreamReader} checks
 * them without holding the inflated records. Immutable and thread-safe; the streams it hands out
 * are not.
 */
public final class Compression {
  public static final Compression NONE = new Compression(CompressionType.NONE, 0);

  private final CompressionType type;
  private final int level;

  private Compression(CompressionType type, int level) {
    this.type = type;
    this.level = level;
  }

  /** {@code type} at its default level. */
  public static Compression of(CompressionType type) {
    return type == CompressionType.NONE ? NONE : new Compression(type, type.defaultLevel());
  }

  /** {@code type} at {@code level}; throws {@link IllegalArgumentException} if out of range. */
  public static Compression of(CompressionType type, int level) {
    if (type == CompressionType.NONE || type == CompressionType.SNAPPY) {
      return of(type);
    }
    if (!type.isValidLevel(level)) {
      throw new IllegalArgumentException(
          type.displayName() + " does not support compression level " + level);
    }
    return new Compression(type, level);
  }

  public CompressionType type() {
    return type;
  }

  /** The level (0 for none and snappy, which have none). */
  public int level() {
    return level;
  }

  /**
   * A stream that compresses what is written to it into {@code out}; {@code close()} ends the frame
   * and closes {@code out}. For {@link #NONE}, {@code out} itself.
   */
  public OutputStream wrapForOutput(OutputStream out) throws IOException {
    return Codecs.wrapForOutput(type, level, out);
  }

  /**
   * A stream that inflates the {@code type}-compressed bytes between {@code compressed}'s position
   * and limit (which do not move). Reads throw {@link IOException} on corrupt input.
   */
  public static InputStream wrapForInput(CompressionType type, ByteBuffer compressed)
      throws IOException {
    return Codecs.wrapForInput(type, compressed);
  }

  /**
   * Compresses the bytes between {@code src}'s position and limit (not moved) into a new heap
   * buffer, returned positioned at 0 with its limit at the end of the compressed bytes.
   */
  public ByteBuffer compress(ByteBuffer src) {
    ByteBufferOutputStream out = new ByteBufferOutputStream(Math.max(64, src.remaining() / 2 + 64));
    try (OutputStream c = wrapForOutput(out)) {
      writeTo(src, c);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress with " + this, e);
    }
    return out.buffer().flip();
  }

  /** Writes the bytes between {@code src}'s position and limit (not moved) to {@code out}. */
  static void writeTo(ByteBuffer src, OutputStream out) throws IOException {
    if (src.hasArray()) {
      out.write(src.array(), src.arrayOffset() + src.position(), src.remaining());
      return;
    }
    byte[] chunk = new byte[Math.min(src.remaining(), 64 * 1024)];
    ByteBuffer view = src.duplicate();
    while (view.hasRemaining()) {
      int n = Math.min(chunk.length, view.remaining());
      view.get(chunk, 0, n);
      out.write(chunk, 0, n);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Compression c && c.type == type && c.level == level;
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, level);
  }

  @Override
  public String toString() {
    return type == CompressionType.NONE || type == CompressionType.SNAPPY
        ? type.displayName()
        : type.displayName() + "(level " + level + ")";
  }
}
