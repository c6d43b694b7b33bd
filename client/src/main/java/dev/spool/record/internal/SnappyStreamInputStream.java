package dev.spool.record.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.xerial.snappy.Snappy;

/**
 * Reads the xerial-framed snappy stream Kafka's producers write (snappy-java's {@code
 * SnappyOutputStream}), and what snappy-java's own reader accepts besides:
 *
 * <pre>
 * header   16 bytes   0x82 "SNAPPY" 0x00, version int32 BE, compatible version int32 BE (both 1)
 * chunks   each: compressed length int32 BE, then one raw snappy block (at most 32 KiB inflated
 *          as snappy-java writes them); a second header between chunks (concatenated streams)
 *          is skipped
 * </pre>
 *
 * Input without the header is one raw snappy block, as snappy-java reads it. Written here rather
 * than taken from snappy-java because its reader allocates whatever inflated length a chunk claims
 * before checking it; this one refuses a claim that snappy's format cannot produce from the chunk's
 * size (at most 64 bytes out per 3 bytes in), inflates into the caller's array when it has room,
 * and so allocates at most one chunk's worth. Not thread-safe.
 */
public final class SnappyStreamInputStream extends BlockInputStream {
  private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
  private static final int HEADER_BYTES = 16;

  /** Snappy's largest expansion: a 3-byte copy element emits up to 64 bytes. */
  private static final int MAX_EXPANSION = 22;

  private final ByteBuffer in;
  private final boolean framed;
  private byte[] copy;
  private byte[] chunk;
  private boolean rawDone;

  public SnappyStreamInputStream(ByteBuffer source) throws IOException {
    this.in = source.duplicate();
    this.framed = startsWithMagic();
    if (framed) {
      readHeader();
    }
  }

  private boolean startsWithMagic() {
    if (in.remaining() < HEADER_BYTES) {
      return false;
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (in.get(in.position() + i) != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  private void readHeader() throws IOException {
    int version = in.getInt(in.position() + MAGIC.length);
    if (version < 1) {
      throw new IOException("snappy stream version " + version + " is not supported");
    }
    in.position(in.position() + HEADER_BYTES);
  }

  /**
   * Inflates the next chunk into {@code b} when it fits in {@code len} (returns its length), else
   * into the chunk buffer (returns 0); -1 at the end of the input.
   */
  @Override
  protected int nextBlock(byte[] b, int off, int len) throws IOException {
    int length;
    if (!framed) {
      if (rawDone) {
        return -1;
      }
      rawDone = true;
      length = in.remaining();
    } else {
      if (startsWithMagic()) {
        readHeader();
      }
      if (!in.hasRemaining()) {
        return -1;
      }
      if (in.remaining() < 4) {
        throw new IOException("snappy stream ends inside a chunk length");
      }
      length = in.getInt();
      if (length < 0 || length > in.remaining()) {
        throw new IOException(
            "snappy chunk of " + length + " bytes, only " + in.remaining() + " left");
      }
    }
    byte[] src;
    int srcOff;
    if (in.hasArray()) {
      src = in.array();
      srcOff = in.arrayOffset() + in.position();
    } else {
      if (copy == null || copy.length < length) {
        copy = new byte[length];
      }
      in.get(in.position(), copy, 0, length);
      src = copy;
      srcOff = 0;
    }
    in.position(in.position() + length);
    int inflated = Snappy.uncompressedLength(src, srcOff, length);
    if (inflated < 0 || (long) inflated > (long) length * MAX_EXPANSION + 32) {
      throw new IOException(
          "snappy chunk of " + length + " bytes claims an impossible " + inflated + " bytes");
    }
    if (inflated <= len) {
      return checked(Snappy.uncompress(src, srcOff, length, b, off), inflated);
    }
    if (chunk == null || chunk.length < inflated) {
      chunk = new byte[inflated];
    }
    buffered(chunk, checked(Snappy.uncompress(src, srcOff, length, chunk, 0), inflated));
    return 0;
  }

  private static int checked(int actual, int claimed) throws IOException {
    if (actual != claimed) {
      throw new IOException("snappy chunk inflated to " + actual + " bytes, claimed " + claimed);
    }
    return actual;
  }
}
