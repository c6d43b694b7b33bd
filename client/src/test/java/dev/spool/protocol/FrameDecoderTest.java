package dev.spool.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Frames cut at random places, into heap or direct buffers; the heap arrays' pool. */
@Tag("unit")
class FrameDecoderTest {
  private static final long SEED = 7L;

  /**
   * Frames of random sizes (some above the pooled size) back to back, then cut at random places.
   */
  private static List<byte[]> frames(Random r, int n) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] f = new byte[8 + r.nextInt(i % 3 == 0 ? 300_000 : 2_000)];
      r.nextBytes(f);
      out.add(f);
    }
    return out;
  }

  private static List<byte[]> decodeCut(
      FrameBuffers buffers, List<byte[]> frames, Random r, boolean direct, boolean expectHeap) {
    return decodeCut(new FrameDecoder(1 << 20, buffers), frames, r, direct, expectHeap);
  }

  private static List<byte[]> decodeCut(
      FrameDecoder decoder, List<byte[]> frames, Random r, boolean direct, boolean expectHeap) {
    ByteBuf wire = Unpooled.buffer();
    for (byte[] f : frames) {
      wire.writeInt(f.length).writeBytes(f);
    }
    EmbeddedChannel ch = new EmbeddedChannel(decoder);
    while (wire.isReadable()) {
      int n = Math.min(wire.readableBytes(), 1 + r.nextInt(r.nextBoolean() ? 16 : 100_000));
      ByteBuf chunk =
          direct ? Unpooled.directBuffer(n).writeBytes(wire, n) : wire.readRetainedSlice(n);
      ch.writeInbound(chunk);
    }
    wire.release();
    List<byte[]> out = new ArrayList<>();
    for (ByteBuf b; (b = ch.readInbound()) != null; ) {
      if (expectHeap) {
        assertTrue(b.hasArray(), "a heap frame");
      }
      byte[] copy = new byte[b.readableBytes()];
      b.readBytes(copy);
      b.release();
      out.add(copy);
    }
    ch.finishAndReleaseAll();
    return out;
  }

  @Test
  void shouldCutFramesAnywhereIntoHeapBuffers() {
    Random r = new Random(SEED);
    List<byte[]> frames = frames(r, 40);
    List<byte[]> got = decodeCut(FrameBuffers.heap(64L << 20), frames, r, true, true);
    assertEquals(frames.size(), got.size(), "seed " + SEED);
    for (int i = 0; i < frames.size(); i++) {
      assertArrayEquals(frames.get(i), got.get(i), "frame " + i + ", seed " + SEED);
    }
  }

  @Test
  void shouldCutFramesAnywhereIntoDirectBuffers() {
    Random r = new Random(SEED + 1);
    List<byte[]> frames = frames(r, 40);
    List<byte[]> got = decodeCut(FrameBuffers.DIRECT, frames, r, false, false);
    assertEquals(frames.size(), got.size(), "seed " + (SEED + 1));
    for (int i = 0; i < frames.size(); i++) {
      assertArrayEquals(frames.get(i), got.get(i), "frame " + i + ", seed " + (SEED + 1));
    }
  }

  /** A request memory pool that only counts. */
  static final class CountingMemory implements FrameMemory {
    long reserved;
    long limit = Long.MAX_VALUE;

    @Override
    public void reserve(long bytes) {
      reserved += bytes;
    }

    @Override
    public void release(long bytes) {
      reserved -= bytes;
    }

    @Override
    public boolean exhausted() {
      return reserved >= limit;
    }
  }

  @Test
  void shouldCutFramesAnywhereIntoAServersGrowingBuffers() {
    Random r = new Random(SEED + 2);
    List<byte[]> frames = frames(r, 40);
    CountingMemory memory = new CountingMemory();
    List<byte[]> got =
        decodeCut(FrameDecoder.forServer(1 << 20, memory, 60_000), frames, r, false, false);
    assertEquals(frames.size(), got.size(), "seed " + (SEED + 2));
    for (int i = 0; i < frames.size(); i++) {
      assertArrayEquals(frames.get(i), got.get(i), "frame " + i + ", seed " + (SEED + 2));
    }
    long total = frames.stream().mapToLong(f -> f.length).sum();
    assertEquals(total, memory.reserved, "every emitted frame's bytes, reserved exactly once");
  }

  @Test
  void shouldGrowAServerFrameWithItsBytesNotItsLengthPrefix() {
    CountingMemory memory = new CountingMemory();
    EmbeddedChannel ch = new EmbeddedChannel(FrameDecoder.forServer(64 << 20, memory, 60_000));
    int length = 40 << 20;
    ch.writeInbound(Unpooled.buffer().writeInt(length).writeBytes(new byte[100]));
    assertEquals(1024, memory.reserved, "a 40 MiB prefix and 100 bytes hold 1 KiB");
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[3000]));
    assertEquals(4096, memory.reserved);
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[(5 << 20) - 3100]));
    assertEquals(length, memory.reserved, "an eighth arrived: the frame's full size");
    assertNull(ch.readInbound());
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[length - (5 << 20)]));
    ByteBuf f = ch.readInbound();
    assertEquals(length, f.readableBytes());
    f.release();
    ch.close();
    assertEquals(
        length, memory.reserved, "the emitted frame's bytes are its consumer's to release");
  }

  @Test
  void shouldSignalExhaustedMemoryAndReleaseAPartialFrameOnClose() {
    CountingMemory memory = new CountingMemory();
    memory.limit = 2048;
    List<Object> events = new ArrayList<>();
    EmbeddedChannel ch =
        new EmbeddedChannel(
            FrameDecoder.forServer(64 << 20, memory, 60_000),
            new io.netty.channel.ChannelInboundHandlerAdapter() {
              @Override
              public void userEventTriggered(
                  io.netty.channel.ChannelHandlerContext ctx, Object evt) {
                events.add(evt);
              }
            });
    ch.writeInbound(Unpooled.buffer().writeInt(1 << 20).writeBytes(new byte[1000]));
    assertEquals(List.of(), events);
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[2000]));
    assertEquals(List.of(FrameMemory.EXHAUSTED), events);
    ch.close();
    assertEquals(0, memory.reserved, "closing released the partial frame");
  }

  @Test
  void shouldFailAFrameThatDoesNotArriveWholeWithinTheReceiveTimeout() {
    CountingMemory memory = new CountingMemory();
    EmbeddedChannel ch = new EmbeddedChannel(FrameDecoder.forServer(64 << 20, memory, 1_000));
    ch.writeInbound(Unpooled.buffer().writeInt(8).writeBytes(new byte[8])); // whole: no deadline
    ((ByteBuf) ch.readInbound()).release();
    memory.release(8);
    ch.writeInbound(Unpooled.buffer().writeInt(1 << 20).writeBytes(new byte[10]));
    ch.advanceTimeBy(999, java.util.concurrent.TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    ch.checkException();
    ch.advanceTimeBy(2, java.util.concurrent.TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    io.netty.handler.codec.DecoderException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            io.netty.handler.codec.DecoderException.class, ch::checkException);
    assertTrue(e.getCause() instanceof InvalidFrameException, String.valueOf(e));
    assertTrue(e.getMessage().contains("not received whole within 1000 ms"), e.getMessage());
    assertEquals(0, memory.reserved, "the stalled frame's memory is released");
    ch.writeInbound(Unpooled.buffer().writeInt(8).writeBytes(new byte[8]));
    assertNull(ch.readInbound(), "nothing more is read from a failed stream");
    ch.finishAndReleaseAll();
  }

  @Test
  void shouldGrowByPowersOfTwoUntilAnEighthArrived() {
    assertEquals(1024, FrameDecoder.growingCapacity(100 << 20, 1));
    assertEquals(1024, FrameDecoder.growingCapacity(100 << 20, 1024));
    assertEquals(2048, FrameDecoder.growingCapacity(100 << 20, 1025));
    assertEquals(8 << 20, FrameDecoder.growingCapacity(100 << 20, (8 << 20) - 1));
    assertEquals(100 << 20, FrameDecoder.growingCapacity(100 << 20, (100 << 20) / 8));
    assertEquals(500, FrameDecoder.growingCapacity(500, 10), "never beyond the frame");
  }

  @Test
  void shouldReuseALargeArrayOnceItsFrameIsReleasedWithinTheBound() {
    FrameBuffers.HeapArrays pool = (FrameBuffers.HeapArrays) FrameBuffers.heap(1 << 20);
    ByteBuf a = pool.allocate(null, 300_000);
    byte[] array = a.array();
    assertEquals(512 * 1024, array.length, "power-of-two size class");
    ByteBuf slice = a.retainedSlice(0, 10);
    a.release();
    assertEquals(0, pool.pooledBytes(), "a slice still holds the frame");
    slice.release();
    assertEquals(array.length, pool.pooledBytes());
    ByteBuf b = pool.allocate(null, 400_000);
    assertSame(array, b.array(), "same size class: reused");
    assertEquals(0, b.readableBytes());
    ByteBuf c = pool.allocate(null, 400_000);
    ByteBuf d = pool.allocate(null, 400_000);
    b.release();
    c.release();
    d.release();
    assertEquals(1 << 20, pool.pooledBytes(), "no more than the bound is kept");
    ByteBuf small = pool.allocate(null, 1000);
    assertTrue(small.hasArray());
    small.release();
    assertEquals(1 << 20, pool.pooledBytes(), "small frames are not pooled");
  }

  @Test
  void shouldEmitNothingForAPartialLengthField() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(1024, FrameBuffers.heap(1 << 20)));
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0}));
    assertNull(ch.readInbound());
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 8, 1, 2, 3, 4, 5, 6, 7}));
    assertNull(ch.readInbound());
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {8}));
    ByteBuf f = ch.readInbound();
    assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, io.netty.buffer.ByteBufUtil.getBytes(f));
    f.release();
    ch.finishAndReleaseAll();
  }
}
