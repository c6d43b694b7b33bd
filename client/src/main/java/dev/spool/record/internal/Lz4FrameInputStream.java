package dev.spool.record.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Reads one LZ4 frame (layout in {@link Lz4FrameOutputStream}) and accepts what Kafka's consumers
 * accept: frame version 01, independent blocks only, block maximum 64 KiB to 4 MiB, the optional
 * content size (skipped), block checksums (verified) and a content checksum (skipped, as Kafka
 * does); the header checksum is verified. Bytes after the end mark are ignored, as Kafka does.
 *
 * <p>A compressed block is decompressed straight into the caller's array when the read asks for at
 * least a whole block, else through one block buffer; the safe decompressor never writes past the
 * block maximum, so a block cannot inflate beyond it whatever it claims. Not thread-safe.
 */
public final class Lz4FrameInputStream extends BlockInputStream {
  private static final LZ4SafeDecompressor DECOMPRESSOR =
      LZ4Factory.fastestInstance().safeDecompressor();

  private final ByteBuffer in;
  private final boolean blockChecksum;
  private final boolean contentChecksum;
  private final int maxBlockSize;
  private byte[] block;
  private ByteBuffer blockView;
  private boolean finished;

  public Lz4FrameInputStream(ByteBuffer source) throws IOException {
    this.in = source.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (in.remaining() < 7) {
      throw new IOException("lz4 frame of " + in.remaining() + " bytes is shorter than a header");
    }
    int magic = in.getInt();
    if (magic != Lz4FrameOutputStream.MAGIC) {
      throw new IOException("not an lz4 frame (magic " + Integer.toHexString(magic) + ")");
    }
    int descriptorStart = in.position();
    int flg = in.get() & 0xff;
    int bd = in.get() & 0xff;
    if ((flg >>> 6) != 1) {
      throw new IOException("lz4 frame version " + (flg >>> 6) + " is not supported");
    }
    if ((flg & 0x03) != 0 || (bd & 0x8f) != 0) {
      throw new IOException("lz4 frame descriptor has reserved bits set");
    }
    if ((flg & 0x20) == 0) {
      throw new IOException("lz4 frames with dependent blocks are not supported (Kafka's rule)");
    }
    blockChecksum = (flg & 0x10) != 0;
    contentChecksum = (flg & 0x04) != 0;
    int blockSizeId = (bd >>> 4) & 0x07;
    if (blockSizeId < 4) {
      throw new IOException("lz4 block size id " + blockSizeId + " is not 4 to 7");
    }
    maxBlockSize = 1 << (2 * blockSizeId + 8);
    if ((flg & 0x08) != 0) {
      require(8);
      in.position(in.position() + 8);
    }
    require(1);
    int expected =
        (Lz4FrameOutputStream.XXHASH.hash(in, descriptorStart, in.position() - descriptorStart, 0)
                >> 8)
            & 0xff;
    int stored = in.get() & 0xff;
    if (stored != expected) {
      throw new IOException("lz4 frame descriptor checksum mismatch");
    }
  }

  private void require(int bytes) throws IOException {
    if (in.remaining() < bytes) {
      throw new IOException("lz4 frame ends early (" + in.remaining() + " bytes left)");
    }
  }

  @Override
  protected int nextBlock(byte[] b, int off, int len) throws IOException {
    if (finished) {
      return -1;
    }
    return len >= maxBlockSize ? readBlock(b, off) : readBlock(null, 0);
  }

  /**
   * Reads the next block: into {@code target} at {@code off} when given (returns its length), else
   * into the block buffer (returns 0). At the end mark sets {@link #finished} and returns 0.
   */
  private int readBlock(byte[] target, int off) throws IOException {
    require(4);
    int word = in.getInt();
    boolean stored = (word & Lz4FrameOutputStream.UNCOMPRESSED_FLAG) != 0;
    int size = word & ~Lz4FrameOutputStream.UNCOMPRESSED_FLAG;
    if (size == 0) {
      finished = true;
      if (contentChecksum) {
        require(4);
        in.getInt();
      }
      return 0;
    }
    if (size > maxBlockSize) {
      throw new IOException("lz4 block of " + size + " bytes exceeds the maximum " + maxBlockSize);
    }
    require(size + (blockChecksum ? 4 : 0));
    int at = in.position();
    if (blockChecksum) {
      int hash = Lz4FrameOutputStream.XXHASH.hash(in, at, size, 0);
      if (hash != in.getInt(at + size)) {
        throw new IOException("lz4 block checksum mismatch");
      }
    }
    byte[] dst = target;
    int dstOff = off;
    if (dst == null) {
      if (block == null) {
        block = new byte[maxBlockSize];
        blockView = ByteBuffer.wrap(block);
      }
      dst = block;
      dstOff = 0;
    }
    int n;
    if (stored) {
      in.get(at, dst, dstOff, size);
      n = size;
    } else {
      try {
        ByteBuffer view = dst == block ? blockView : ByteBuffer.wrap(dst);
        n = DECOMPRESSOR.decompress(in, at, size, view, dstOff, maxBlockSize);
      } catch (LZ4Exception e) {
        throw new IOException("lz4 block is corrupt: " + e.getMessage(), e);
      }
    }
    in.position(at + size + (blockChecksum ? 4 : 0));
    if (target != null) {
      return n;
    }
    buffered(block, n);
    return 0;
  }
}
