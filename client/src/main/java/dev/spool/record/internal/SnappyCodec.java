package dev.spool.record.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.xerial.snappy.SnappyOutputStream;

/**
 * snappy in the xerial framing Kafka uses: snappy-java writes it, {@link SnappyStreamInputStream}
 * reads it.
 */
final class SnappyCodec {
  private SnappyCodec() {}

  static OutputStream wrapForOutput(OutputStream out) {
    return new SnappyOutputStream(out);
  }

  static InputStream wrapForInput(ByteBuffer in) throws IOException {
    return new SnappyStreamInputStream(in);
  }
}
