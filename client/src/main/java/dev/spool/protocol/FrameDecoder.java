package dev.spool.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Splits a byte stream into frames: reads the int32 frame length, checks it against the limit
 * before buffering anything, and emits the frame's bytes (without the length field). A negative,
 * too small or oversize length raises a {@link DecoderException} caused by an {@link
 * InvalidFrameException}; the pipeline's exception handler closes the connection with one log line,
 * and nothing more is read from the stream.
 *
 * <p>Why not Netty's {@code ByteToMessageDecoder}: its cumulation buffer grows by doubling and
 * copying, so a frame of a few MiB that arrives in 64 KiB reads was copied two to three times
 * (measured: a consumer's I/O thread spent ~0.4 s of CPU per GB on those copies). Here a client
 * (trusting its broker) takes one buffer of exactly the frame's size from {@link FrameBuffers} as
 * soon as the length is known and copies every read into it once. A frame that lies whole inside
 * one read is handed on as a retained slice of that read, without a copy, when the read's kind
 * (heap or direct) is the kind the {@link FrameBuffers} hands out.
 *
 * <p>A server ({@link #forServer}) cannot trust a length prefix: a peer that sends large prefixes
 * and then a few bytes on many connections would otherwise make it allocate whole frames for bytes
 * that never come. There the buffer grows with the bytes that arrived (doubling, from 1 KiB) until
 * they are an eighth of the frame, and only then takes the frame's full size: at most 8 times the
 * bytes received are held, and at most an eighth of a large frame is copied twice. Every byte held
 * is reserved from a {@link FrameMemory} as it is allocated, and a frame whose first bytes arrived
 * must arrive whole within the receive timeout, or the connection is closed.
 *
 * <p>One instance per channel (it holds the partial frame); event loop only.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
  private static final int LENGTH_FIELD_BYTES = 4;

  /** A server's first buffer for a frame that did not arrive whole. */
  static final int MIN_GROWING_BYTES = 1024;

  /** A server allocates a frame's full size once this fraction of it (1/8) has arrived. */
  private static final int GROWTH_SHIFT = 3;

  private static final FrameMemory NO_ACCOUNTING =
      new FrameMemory() {
        @Override
        public void reserve(long bytes) {}

        @Override
        public void release(long bytes) {}

        @Override
        public boolean exhausted() {
          return false;
        }
      };

  private final int maxFrameBytes;

  /** The limit now: {@link #maxFrameBytes} or less ({@link #limit}). */
  private int limitBytes;

  /** Why the limit is below {@link #maxFrameBytes} (a config key), or null. */
  private String limitReason;

  private final FrameBuffers buffers;
  private final FrameMemory memory;
  private final boolean growWithArrivals;
  private final long receiveTimeoutNanos;

  /** The frame being filled, or null between frames. */
  private ByteBuf frame;

  /** The length of the frame being filled. */
  private int frameLength;

  /** Bytes of {@link #frame}'s capacity reserved from {@link #memory}. */
  private int reservedBytes;

  /**
   * Bytes of the length field seen so far (0-3) while no frame is being filled, and their value.
   */
  private int lengthBytesSeen;

  private int partialLength;
  private boolean failed;

  /** Whether a partial frame (or length field) is pending, and since when (the loop's ticker). */
  private boolean timingPartial;

  private long partialSinceNanos;

  private ScheduledFuture<?> receiveTimer;

  /**
   * Frames in direct buffers from the channel's allocator (the broker: record data goes to files).
   */
  public FrameDecoder(int maxFrameBytes) {
    this(maxFrameBytes, FrameBuffers.DIRECT);
  }

  public FrameDecoder(int maxFrameBytes, FrameBuffers buffers) {
    this(maxFrameBytes, buffers, NO_ACCOUNTING, false, 0);
  }

  private FrameDecoder(
      int maxFrameBytes,
      FrameBuffers buffers,
      FrameMemory memory,
      boolean growWithArrivals,
      long receiveTimeoutMs) {
    this.maxFrameBytes = maxFrameBytes;
    this.limitBytes = maxFrameBytes;
    this.buffers = buffers;
    this.memory = memory;
    this.growWithArrivals = growWithArrivals;
    this.receiveTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(receiveTimeoutMs);
  }

  /**
   * A server's decoder: direct frames whose memory is reserved from {@code memory} as their bytes
   * arrive (the consumer of each frame releases its readable bytes), and a deadline of {@code
   * receiveTimeoutMs} for a frame to arrive whole once it began.
   */
  public static FrameDecoder forServer(
      int maxFrameBytes, FrameMemory memory, long receiveTimeoutMs) {
    if (receiveTimeoutMs <= 0) {
      throw new IllegalArgumentException("receive timeout must be positive: " + receiveTimeoutMs);
    }
    return new FrameDecoder(maxFrameBytes, FrameBuffers.DIRECT, memory, true, receiveTimeoutMs);
  }

  /**
   * Lowers the frame limit for the frames to come (a SASL listener before authentication), or with
   * {@code reason} null restores the limit the decoder was made with. Event loop only.
   */
  public void limit(int bytes, String reason) {
    if (reason == null) {
      limitBytes = maxFrameBytes;
      limitReason = null;
    } else {
      limitBytes = Math.min(bytes, maxFrameBytes);
      limitReason = reason;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      if (failed) {
        return;
      }
      while (in.isReadable()) {
        if (frame == null && !startFrame(ctx, in)) {
          break;
        }
        if (frame == null) {
          continue; // a whole frame was sliced out of this read
        }
        int n = Math.min(frameLength - frame.writerIndex(), in.readableBytes());
        if (frame.writableBytes() < n) {
          grow(ctx, frame.writerIndex() + n);
        }
        frame.writeBytes(in, n);
        if (frame.writerIndex() == frameLength) {
          ByteBuf done = frame;
          frame = null;
          reservedBytes = 0; // the frame's consumer releases them
          timingPartial = false;
          ctx.fireChannelRead(done);
        }
      }
    } finally {
      in.release();
    }
    if (receiveTimeoutNanos > 0 && !failed) {
      watchPartial(ctx);
    }
  }

  /**
   * Reads the length field (possibly split over reads) and starts the next frame: either emits it
   * at once as a slice of {@code in}, or allocates its buffer. False when {@code in} ran out first.
   */
  private boolean startFrame(ChannelHandlerContext ctx, ByteBuf in) {
    int length;
    if (lengthBytesSeen == 0 && in.readableBytes() >= LENGTH_FIELD_BYTES) {
      length = in.readInt();
    } else {
      while (lengthBytesSeen < LENGTH_FIELD_BYTES && in.isReadable()) {
        partialLength = (partialLength << 8) | in.readUnsignedByte();
        lengthBytesSeen++;
      }
      if (lengthBytesSeen < LENGTH_FIELD_BYTES) {
        return false;
      }
      length = partialLength;
      lengthBytesSeen = 0;
      partialLength = 0;
    }
    if (length < Frame.SECTION_LENGTHS_BYTES || length > limitBytes) {
      failed = true;
      in.skipBytes(in.readableBytes());
      throw new DecoderException(
          new InvalidFrameException(
              "frame length "
                  + length
                  + " outside ["
                  + Frame.SECTION_LENGTHS_BYTES
                  + ", "
                  + limitBytes
                  + "]"
                  + (limitReason == null || length < Frame.SECTION_LENGTHS_BYTES
                      ? ""
                      : " (" + limitReason + ")")));
    }
    if (in.readableBytes() >= length && buffers.mayShare(in)) {
      reserve(ctx, length);
      timingPartial = false;
      ctx.fireChannelRead(in.readRetainedSlice(length));
      return true;
    }
    frameLength = length;
    if (growWithArrivals) {
      int initial = growingCapacity(length, Math.min(length, in.readableBytes()));
      frame = ctx.alloc().directBuffer(initial, length);
    } else {
      frame = buffers.allocate(ctx.alloc(), length);
    }
    reserve(ctx, frame.capacity());
    reservedBytes = frame.capacity();
    return true;
  }

  /**
   * A server frame's capacity once {@code needed} of its {@code length} bytes have arrived: the
   * full length once they are an eighth of it, else the next power of two (at least 1 KiB).
   */
  static int growingCapacity(int length, int needed) {
    if ((long) needed << GROWTH_SHIFT >= length) {
      return length;
    }
    int pow2 = needed <= 1 ? 1 : Integer.highestOneBit(needed - 1) << 1;
    return Math.min(length, Math.max(MIN_GROWING_BYTES, pow2));
  }

  private void grow(ChannelHandlerContext ctx, int needed) {
    int capacity = growingCapacity(frameLength, needed);
    frame.capacity(capacity); // the allocator copies what arrived so far
    memory.reserve(capacity - reservedBytes);
    reservedBytes = capacity;
    signalIfExhausted(ctx);
  }

  private void reserve(ChannelHandlerContext ctx, int bytes) {
    memory.reserve(bytes);
    signalIfExhausted(ctx);
  }

  private void signalIfExhausted(ChannelHandlerContext ctx) {
    if (memory.exhausted()) {
      ctx.fireUserEventTriggered(FrameMemory.EXHAUSTED);
    }
  }

  /** Starts or keeps the receive deadline of a frame that did not arrive whole. */
  private void watchPartial(ChannelHandlerContext ctx) {
    if (frame == null && lengthBytesSeen == 0) {
      timingPartial = false;
      return;
    }
    // The event loop's ticker, not System.nanoTime: tests drive an embedded loop's clock.
    long now = ctx.executor().ticker().nanoTime();
    if (!timingPartial) {
      timingPartial = true;
      partialSinceNanos = now;
    }
    if (receiveTimer == null) {
      long delay = partialSinceNanos + receiveTimeoutNanos - now;
      receiveTimer =
          ctx.executor()
              .schedule(() -> checkReceiveDeadline(ctx), Math.max(0, delay), TimeUnit.NANOSECONDS);
    }
  }

  private void checkReceiveDeadline(ChannelHandlerContext ctx) {
    receiveTimer = null;
    if (failed || !timingPartial || !ctx.channel().isActive()) {
      return;
    }
    long late = ctx.executor().ticker().nanoTime() - partialSinceNanos - receiveTimeoutNanos;
    if (late < 0) {
      watchPartial(ctx); // a newer frame is pending; its own deadline
      return;
    }
    failed = true;
    int received = frame == null ? lengthBytesSeen : frame.writerIndex();
    int length = frame == null ? -1 : frameLength;
    releasePartial();
    ctx.fireExceptionCaught(
        new DecoderException(
            new InvalidFrameException(
                "request not received whole within "
                    + TimeUnit.NANOSECONDS.toMillis(receiveTimeoutNanos)
                    + " ms ("
                    + received
                    + (length < 0 ? " bytes of the length field" : " of " + length + " bytes")
                    + ")")));
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    releasePartial();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releasePartial();
  }

  private void releasePartial() {
    ScheduledFuture<?> t = receiveTimer;
    receiveTimer = null;
    if (t != null) {
      t.cancel(false);
    }
    ByteBuf f = frame;
    frame = null;
    if (f != null) {
      f.release();
      memory.release(reservedBytes);
      reservedBytes = 0;
    }
  }
}
