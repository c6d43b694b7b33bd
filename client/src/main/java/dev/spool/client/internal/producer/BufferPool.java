package dev.spool.client.internal.producer;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The producer's bounded memory ({@code buffer.memory}): batches take their buffer here and give it
 * back when they complete. Buffers of exactly the poolable size ({@code batch.size}) are kept for
 * reuse, so steady-state batching allocates nothing; other sizes come from the same budget and are
 * left to the garbage collector. When the budget is used up {@link #allocate} blocks up to the
 * caller's limit ({@code max.block.ms}), first come first served, then fails with a retriable
 * REQUEST_TIMED_OUT. Thread-safe.
 */
public final class BufferPool {
  private final long totalBytes;
  private final int poolableBytes;
  private final ReentrantLock lock = new ReentrantLock();
  private final Deque<ByteBuffer> free = new ArrayDeque<>();
  private final Deque<Condition> waiters = new ArrayDeque<>();

  /** Budget not held by anyone and not sitting in {@link #free}. */
  private long nonPooledAvailableBytes;

  private boolean closed;

  public BufferPool(long totalBytes, int poolableBytes) {
    if (poolableBytes <= 0 || totalBytes < poolableBytes) {
      throw new IllegalArgumentException(
          "buffer.memory " + totalBytes + " must be at least batch.size " + poolableBytes);
    }
    this.totalBytes = totalBytes;
    this.poolableBytes = poolableBytes;
    this.nonPooledAvailableBytes = totalBytes;
  }

  /**
   * A cleared buffer of {@code size} bytes, waiting up to {@code maxBlockMs} for memory.
   *
   * @throws SpoolException REQUEST_TIMED_OUT when no memory freed up in time
   * @throws IllegalArgumentException when {@code size} exceeds the whole budget
   */
  public ByteBuffer allocate(int size, long maxBlockMs) throws InterruptedException {
    if (size > totalBytes) {
      throw new IllegalArgumentException(
          "cannot allocate " + size + " bytes from a buffer.memory of " + totalBytes);
    }
    lock.lock();
    try {
      checkOpen();
      if (size == poolableBytes && !free.isEmpty()) {
        return free.pollFirst();
      }
      if (waiters.isEmpty() && available() >= size) {
        freeUp(size);
        nonPooledAvailableBytes -= size;
      } else {
        ByteBuffer pooled = awaitMemory(size, maxBlockMs);
        if (pooled != null) {
          return pooled;
        }
      }
    } finally {
      lock.unlock();
    }
    return ByteBuffer.allocate(size);
  }

  /**
   * Waits for {@code size} bytes; returns a pooled buffer if one came back, else null (budget
   * taken).
   */
  private ByteBuffer awaitMemory(int size, long maxBlockMs) throws InterruptedException {
    Condition turn = lock.newCondition();
    waiters.addLast(turn);
    long remainingNs = TimeUnit.MILLISECONDS.toNanos(maxBlockMs);
    long accumulated = 0;
    try {
      while (accumulated < size) {
        checkOpen();
        if (remainingNs <= 0) {
          nonPooledAvailableBytes += accumulated;
          accumulated = 0;
          throw new SpoolException(
              ErrorCode.REQUEST_TIMED_OUT,
              "could not get "
                  + size
                  + " bytes of buffer.memory ("
                  + totalBytes
                  + " bytes) within max.block.ms="
                  + maxBlockMs
                  + ": the producer is sending slower than records arrive");
        }
        if (waiters.peekFirst() == turn) {
          if (accumulated == 0 && size == poolableBytes && !free.isEmpty()) {
            return free.pollFirst();
          }
          freeUp(size - accumulated);
          long got = Math.min(size - accumulated, nonPooledAvailableBytes);
          nonPooledAvailableBytes -= got;
          accumulated += got;
          if (accumulated >= size) {
            break;
          }
        }
        // Real time on purpose: this is a blocking wait of an application thread.
        remainingNs = turn.awaitNanos(remainingNs);
      }
      return null;
    } catch (InterruptedException | RuntimeException e) {
      nonPooledAvailableBytes += accumulated;
      throw e;
    } finally {
      waiters.remove(turn);
      Condition next = waiters.peekFirst();
      if (next != null && available() > 0) {
        next.signal();
      }
    }
  }

  private void freeUp(long size) {
    while (!free.isEmpty() && nonPooledAvailableBytes < size) {
      nonPooledAvailableBytes += free.pollLast().capacity();
    }
  }

  private long available() {
    return nonPooledAvailableBytes + (long) free.size() * poolableBytes;
  }

  /** Returns a buffer taken with {@link #allocate}; {@code size} is what was asked for. */
  public void deallocate(ByteBuffer buffer, int size) {
    lock.lock();
    try {
      if (size == poolableBytes && buffer != null && buffer.capacity() == poolableBytes) {
        buffer.clear();
        free.addFirst(buffer);
      } else {
        nonPooledAvailableBytes += size;
      }
      Condition next = waiters.peekFirst();
      if (next != null) {
        next.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Bytes not in use (free pooled buffers plus unallocated budget). */
  public long availableBytes() {
    lock.lock();
    try {
      return available();
    } finally {
      lock.unlock();
    }
  }

  /** Threads blocked in {@link #allocate}; the sender sends early while anyone waits. */
  public int queuedWaiters() {
    lock.lock();
    try {
      return waiters.size();
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiter, which then fails: the producer is closing. */
  public void close() {
    lock.lock();
    try {
      closed = true;
      waiters.forEach(Condition::signal);
    } finally {
      lock.unlock();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("producer closed while waiting for buffer memory");
    }
  }
}
