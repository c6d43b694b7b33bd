package dev.spool.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where {@link FrameDecoder} puts a received frame.
 *
 * <ul>
 *   <li>{@link #DIRECT}: a direct buffer from the channel's allocator. The broker's choice: produce
 *       data is appended to segment files straight from it, and the replica fetcher's answers too.
 *   <li>{@link #heap(long)}: a heap buffer, for a consumer that decodes every record of the frame
 *       on the application thread. Reading varints and copying keys and values out of a heap array
 *       is far cheaper than doing so byte by byte from direct memory, and the frame needs no second
 *       copy to get there. Arrays of frames of 64 KiB and more are reused (by power-of-two size
 *       class, at most {@code maxPooledBytes} kept): a fetch answer of several MiB would otherwise
 *       be a fresh humongous array, zeroed and page-faulted in, a hundred times a second.
 * </ul>
 */
public interface FrameBuffers {
  /** An empty buffer with room for at least {@code length} bytes. */
  ByteBuf allocate(ByteBufAllocator alloc, int length);

  /**
   * Whether a frame that lies whole in the read buffer {@code in} may be passed on as its slice.
   */
  boolean mayShare(ByteBuf in);

  FrameBuffers DIRECT =
      new FrameBuffers() {
        @Override
        public ByteBuf allocate(ByteBufAllocator alloc, int length) {
          return alloc.directBuffer(length, length);
        }

        @Override
        public boolean mayShare(ByteBuf in) {
          return in.isDirect();
        }
      };

  static FrameBuffers heap(long maxPooledBytes) {
    return new HeapArrays(maxPooledBytes);
  }

  /**
   * Heap frames; large arrays come back to a bounded pool when their buffer is released.
   * Thread-safe.
   */
  final class HeapArrays implements FrameBuffers {
    private static final int MIN_POOLED_SHIFT = 16; // 64 KiB
    private static final int MAX_POOLED_SHIFT = 30; // 1 GiB

    private final long maxPooledBytes;
    private final AtomicLong pooledBytes = new AtomicLong();

    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedQueue<byte[]>[] free =
        new ConcurrentLinkedQueue[MAX_POOLED_SHIFT + 1];

    HeapArrays(long maxPooledBytes) {
      this.maxPooledBytes = maxPooledBytes;
      for (int i = MIN_POOLED_SHIFT; i <= MAX_POOLED_SHIFT; i++) {
        free[i] = new ConcurrentLinkedQueue<>();
      }
    }

    @Override
    public ByteBuf allocate(ByteBufAllocator alloc, int length) {
      int shift = 32 - Integer.numberOfLeadingZeros(Math.max(1, length - 1));
      if (shift < MIN_POOLED_SHIFT || shift > MAX_POOLED_SHIFT) {
        return UnpooledByteBufAllocator.DEFAULT.heapBuffer(length, length);
      }
      byte[] array = free[shift].poll();
      if (array != null) {
        pooledBytes.addAndGet(-array.length);
      } else {
        array = new byte[1 << shift];
      }
      return new PooledArrayBuf(this, array);
    }

    @Override
    public boolean mayShare(ByteBuf in) {
      return in.hasArray();
    }

    void recycle(byte[] array) {
      int shift = Integer.numberOfTrailingZeros(array.length);
      if (array.length != 1 << shift || shift < MIN_POOLED_SHIFT || shift > MAX_POOLED_SHIFT) {
        return;
      }
      if (pooledBytes.addAndGet(array.length) > maxPooledBytes) {
        pooledBytes.addAndGet(-array.length);
        return; // the garbage collector takes it
      }
      free[shift].offer(array);
    }

    /** Bytes of arrays waiting for reuse (tests). */
    long pooledBytes() {
      return pooledBytes.get();
    }
  }

  /**
   * A heap buffer over a pooled array (maybe longer than the frame); returns the array when freed.
   */
  final class PooledArrayBuf extends UnpooledHeapByteBuf {
    private final HeapArrays pool;

    PooledArrayBuf(HeapArrays pool, byte[] array) {
      super(UnpooledByteBufAllocator.DEFAULT, array, array.length);
      this.pool = pool;
      setIndex(0, 0);
    }

    @Override
    protected void freeArray(byte[] array) {
      pool.recycle(array);
    }
  }
}
