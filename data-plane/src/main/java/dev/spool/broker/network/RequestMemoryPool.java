package dev.spool.broker.network;

import dev.spool.protocol.FrameMemory;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds the bytes held by requests that have been read but not yet answered, across all
 * connections (backpressure, not out-of-memory). A connection whose read pushes the total over the
 * limit stops reading; it is resumed when enough memory is released. A single request is always
 * admitted when the pool is below its limit, so a frame up to the frame-size limit can never
 * deadlock the pool.
 *
 * <p>The server's frame decoders reserve a frame's bytes as they arrive ({@link FrameMemory}), so
 * partial frames count too; the connection releases a frame's bytes once its answer is written.
 * Thread-safe.
 */
final class RequestMemoryPool implements FrameMemory {
  private final long limitBytes;
  private final AtomicLong usedBytes = new AtomicLong();
  private final ConcurrentLinkedQueue<Runnable> waiters = new ConcurrentLinkedQueue<>();

  RequestMemoryPool(long limitBytes) {
    this.limitBytes = limitBytes;
  }

  @Override
  public void reserve(long bytes) {
    usedBytes.addAndGet(bytes);
  }

  @Override
  public boolean exhausted() {
    return usedBytes.get() >= limitBytes;
  }

  /** Registers a callback to run once when memory is released below the limit. */
  void awaitAvailable(Runnable resume) {
    waiters.add(resume);
    if (!exhausted()) {
      wakeWaiters();
    }
  }

  @Override
  public void release(long bytes) {
    long now = usedBytes.addAndGet(-bytes);
    if (now < limitBytes && !waiters.isEmpty()) {
      wakeWaiters();
    }
  }

  /** Bytes reserved now, for tests and metrics. */
  long usedBytes() {
    return usedBytes.get();
  }

  private void wakeWaiters() {
    Runnable r;
    while (!exhausted() && (r = waiters.poll()) != null) {
      r.run();
    }
  }
}
