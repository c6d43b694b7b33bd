package dev.spool.record.internal;

import dev.spool.record.CompressionType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * The one switch from a codec to its streams. Each codec lives in its own class so that its library
 * (and native code) is loaded only when a batch of that codec is written or read, as Kafka does: a
 * platform without, say, zstd's native library still handles every other codec.
 */
public final class Codecs {
  /** What {@link #inflateInto} returns for a codec read only through a stream. */
  public static final int NO_ONE_SHOT = -2;

  private Codecs() {}

  /**
   * A stream compressing into {@code out}; closing it ends the frame and closes {@code out}. For
   * {@link CompressionType#NONE}, {@code out} itself.
   */
  public static OutputStream wrapForOutput(CompressionType type, int level, OutputStream out)
      throws IOException {
    return switch (type) {
      case NONE -> out;
      case GZIP -> GzipCodec.wrapForOutput(out, level);
      case SNAPPY -> SnappyCodec.wrapForOutput(out);
      case LZ4 -> new Lz4FrameOutputStream(out, level);
      case ZSTD -> ZstdCodec.wrapForOutput(out, level);
    };
  }

  /**
   * A stream inflating the bytes between {@code in}'s position and limit (which do not move). Fails
   * with an {@link IOException} naming the problem when the header is not the codec's.
   */
  public static InputStream wrapForInput(CompressionType type, ByteBuffer in) throws IOException {
    return switch (type) {
      case NONE -> new ByteBufferInputStream(in);
      case GZIP -> GzipCodec.wrapForInput(in);
      case SNAPPY -> SnappyCodec.wrapForInput(in);
      case LZ4 -> new Lz4FrameInputStream(in);
      case ZSTD -> ZstdCodec.wrapForInput(in);
    };
  }

  /**
   * Inflates the {@code type}-compressed bytes between {@code in}'s position and limit (not moved)
   * in one call into {@code dst} from index 0, for the codecs that can (zstd); returns the inflated
   * length, -1 when they do not fit in {@code dst}, or -2 when {@code type} has no one-shot path
   * (use {@link #wrapForInput}). Throws {@link IOException} on corrupt input.
   */
  public static int inflateInto(CompressionType type, ByteBuffer in, byte[] dst)
      throws IOException {
    return type == CompressionType.ZSTD ? ZstdCodec.inflate(in, dst) : NO_ONE_SHOT;
  }
}
