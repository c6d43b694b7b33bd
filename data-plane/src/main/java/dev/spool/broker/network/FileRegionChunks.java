package dev.spool.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FileRegion;
import io.netty.handler.stream.ChunkedInput;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * A {@link FileRegion} read into buffers of at most {@link #CHUNK_BYTES}: how fetch answers leave a
 * TLS connection, where the record bytes must pass through the TLS engine in user space and
 * sendfile cannot be used. Reading chunk by chunk (as the channel drains, see {@link
 * TlsFileRegionCopier}) holds at most one chunk per connection rather than a whole fetch answer.
 *
 * <p>Owned by the channel's event loop. It owns the region: {@link #close} releases it, once.
 */
final class FileRegionChunks implements ChunkedInput<ByteBuf> {
  /** Four TLS records' worth: large enough to amortise a read, small enough to hold per socket. */
  static final int CHUNK_BYTES = 64 * 1024;

  private final FileRegion region;
  private long progress;
  private boolean closed;

  FileRegionChunks(FileRegion region) {
    this.region = region;
  }

  @Override
  public boolean isEndOfInput() {
    return progress >= region.count();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      region.release();
    }
  }

  @Override
  @Deprecated
  public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
    return readChunk(ctx.alloc());
  }

  @Override
  public ByteBuf readChunk(ByteBufAllocator alloc) throws IOException {
    if (isEndOfInput()) {
      return null;
    }
    int size = (int) Math.min(CHUNK_BYTES, region.count() - progress);
    ByteBuf chunk = alloc.buffer(size, size);
    try {
      WritableByteChannel sink = new ChunkSink(chunk);
      while (chunk.isWritable()) {
        // The region's own transferTo reads its file at its offset, whatever region it is.
        long read = region.transferTo(sink, progress);
        if (read <= 0) {
          throw new EOFException(
              "segment file ended "
                  + (region.count() - progress)
                  + " bytes before the end of the records a fetch answer announced");
        }
        progress += read;
      }
      return chunk;
    } catch (IOException | RuntimeException e) {
      chunk.release();
      throw e;
    }
  }

  @Override
  public long length() {
    return region.count();
  }

  @Override
  public long progress() {
    return progress;
  }

  /** Accepts bytes up to the chunk's capacity and no more, so a transfer stops where it is full. */
  private static final class ChunkSink implements WritableByteChannel {
    private final ByteBuf chunk;

    ChunkSink(ByteBuf chunk) {
      this.chunk = chunk;
    }

    @Override
    public int write(ByteBuffer src) {
      int n = Math.min(src.remaining(), chunk.writableBytes());
      ByteBuffer part = src.slice();
      part.limit(n);
      chunk.writeBytes(part);
      src.position(src.position() + n);
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
