package dev.spool.record.internal;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * gzip through the JDK's Deflater/Inflater, with the buffer sizes Kafka uses (8 KiB deflate output,
 * 16 KiB of input collected before deflating, 8 KiB inflate input): small writes and reads cost a
 * native call each otherwise.
 */
final class GzipCodec {
  private GzipCodec() {}

  static OutputStream wrapForOutput(OutputStream out, int level) throws IOException {
    return new BufferedOutputStream(new LeveledGzipOutputStream(out, level), 16 * 1024);
  }

  static InputStream wrapForInput(ByteBuffer in) throws IOException {
    return new GZIPInputStream(new ByteBufferInputStream(in), 8 * 1024);
  }

  /** GZIPOutputStream with a level: its Deflater is protected. */
  private static final class LeveledGzipOutputStream extends GZIPOutputStream {
    LeveledGzipOutputStream(OutputStream out, int level) throws IOException {
      super(out, 8 * 1024);
      def.setLevel(level);
    }
  }
}
