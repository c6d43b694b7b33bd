package dev.spool.record.internal;

import java.io.IOException;
import java.io.OutputStream;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Writes one LZ4 frame exactly as Kafka's producers write it for RecordBatch v2, so Kafka's
 * consumers (which accept only part of the frame format) read it:
 *
 * <pre>
 * magic        4 bytes LE  0x184D2204
 * FLG          1 byte      0x60: version 01, independent blocks, no block/content checksum, no size
 * BD           1 byte      0x40: blocks of at most 64 KiB
 * HC           1 byte      second byte of XXHash32(FLG, BD; seed 0)
 * blocks       each: size 4 bytes LE (high bit set = stored uncompressed), then the block
 * end mark     4 zero bytes
 * </pre>
 *
 * <p>Level 9 (the default) uses lz4's fast compressor, any other its high-compression mode at that
 * level, as Kafka does. A block that does not shrink is stored as is. Not thread-safe.
 */
public final class Lz4FrameOutputStream extends OutputStream {
  static final int MAGIC = 0x184D2204;
  static final int BLOCK_SIZE_BYTES = 64 * 1024;
  static final int UNCOMPRESSED_FLAG = 0x80000000;
  static final byte FLG = 0x60;
  static final byte BD = 0x40;
  static final int DEFAULT_LEVEL = 9;

  private static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
  static final XXHash32 XXHASH = XXHashFactory.fastestInstance().hash32();

  private final OutputStream out;
  private final LZ4Compressor compressor;
  private final byte[] block = new byte[BLOCK_SIZE_BYTES];
  private final byte[] compressed;
  private final byte[] sizeBytes = new byte[4];
  private int blockLength;
  private boolean closed;

  public Lz4FrameOutputStream(OutputStream out, int level) throws IOException {
    this.out = out;
    this.compressor =
        level == DEFAULT_LEVEL ? FACTORY.fastCompressor() : FACTORY.highCompressor(level);
    this.compressed = new byte[compressor.maxCompressedLength(BLOCK_SIZE_BYTES)];
    byte[] header = new byte[7];
    writeIntLe(header, 0, MAGIC);
    header[4] = FLG;
    header[5] = BD;
    header[6] = (byte) ((XXHASH.hash(header, 4, 2, 0) >> 8) & 0xff);
    out.write(header);
  }

  @Override
  public void write(int b) throws IOException {
    ensureOpen();
    if (blockLength == BLOCK_SIZE_BYTES) {
      writeBlock(block, 0, blockLength);
      blockLength = 0;
    }
    block[blockLength++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    ensureOpen();
    while (len > 0) {
      if (blockLength == 0 && len >= BLOCK_SIZE_BYTES) {
        // A whole block is at hand: compress it from the caller's array, no copy.
        writeBlock(b, off, BLOCK_SIZE_BYTES);
        off += BLOCK_SIZE_BYTES;
        len -= BLOCK_SIZE_BYTES;
        continue;
      }
      int n = Math.min(len, BLOCK_SIZE_BYTES - blockLength);
      System.arraycopy(b, off, block, blockLength, n);
      blockLength += n;
      off += n;
      len -= n;
      if (blockLength == BLOCK_SIZE_BYTES) {
        writeBlock(block, 0, blockLength);
        blockLength = 0;
      }
    }
  }

  private void writeBlock(byte[] src, int off, int len) throws IOException {
    int size = compressor.compress(src, off, len, compressed, 0, compressed.length);
    if (size >= len) {
      writeIntLe(sizeBytes, 0, len | UNCOMPRESSED_FLAG);
      out.write(sizeBytes);
      out.write(src, off, len);
    } else {
      writeIntLe(sizeBytes, 0, size);
      out.write(sizeBytes);
      out.write(compressed, 0, size);
    }
  }

  /** Ends the frame (last block, end mark) and closes the target stream. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (blockLength > 0) {
        writeBlock(block, 0, blockLength);
        blockLength = 0;
      }
      writeIntLe(sizeBytes, 0, 0);
      out.write(sizeBytes);
    } finally {
      out.close();
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) {
      throw new IOException("lz4 frame already closed");
    }
  }

  static void writeIntLe(byte[] b, int at, int v) {
    b[at] = (byte) v;
    b[at + 1] = (byte) (v >>> 8);
    b[at + 2] = (byte) (v >>> 16);
    b[at + 3] = (byte) (v >>> 24);
  }
}
