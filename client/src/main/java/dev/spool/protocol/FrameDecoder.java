package dev.spool.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits a byte stream into frames: reads the int32 frame length, checks it against the limit
 * before buffering anything, and emits the frame's bytes (without the length field) as a
 * retained slice. A negative, too small or oversize length raises {@link InvalidFrameException};
 * the pipeline's exception handler closes the connection with one log line.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private final int maxFrameBytes;

  public FrameDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (in.readableBytes() < 4) {
      return;
    }
    int length = in.getInt(in.readerIndex());
    if (length < Frame.SECTION_LENGTHS_BYTES || length > maxFrameBytes) {
      in.skipBytes(in.readableBytes());
      throw new InvalidFrameException("frame length " + length + " outside [" + Frame.SECTION_LENGTHS_BYTES
          + ", " + maxFrameBytes + "]");
    }
    if (in.readableBytes() < 4 + length) {
      return;
    }
    in.skipBytes(4);
    out.add(in.readRetainedSlice(length));
  }
}
