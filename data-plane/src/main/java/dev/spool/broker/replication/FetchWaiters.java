package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fetches in long poll, by partition: a waiting fetch is woken once when one of its partitions gets
 * something it may want. Consumers read only below the high watermark, so they wake on high
 * watermark moves; followers wake on appends (new data to replicate), not on high watermark moves
 * alone: every append costs a follower one fetch round trip already, and waking it again for the
 * high watermark (which the next answer carries anyway) doubled the replication traffic of a
 * lightly loaded partition, with a worker hop on both brokers each time (as Kafka, an idle follower
 * learns the last high watermark when its long poll ends). Leadership changes wake both. A woken
 * fetch reads again and answers, or waits again if it still has too little and time is left.
 *
 * <p>Threads: {@link #watch} from Netty threads, {@link #wake} from partition workers, {@link
 * Waiter#cancel} from timers; everything here is concurrent and lock-free. Limit: at most {@code
 * maxWaiters} fetches wait at once; {@link #watch} refuses more (the fetch then answers at once
 * with what it has).
 */
public final class FetchWaiters {
  /** One waiting fetch. {@link #fire} runs at most once. */
  public static final class Waiter {
    private final boolean follower;
    private final Runnable onWake;
    private final AtomicBoolean done = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile Collection<TopicPartition> partitions = Set.of();
    private volatile FetchWaiters owner;

    public Waiter(boolean follower, Runnable onWake) {
      this.follower = follower;
      this.onWake = onWake;
    }

    boolean wants(boolean highWatermarkMoved) {
      return follower != highWatermarkMoved;
    }

    /** Wakes the fetch unless it already woke or was cancelled; true if this call woke it. */
    public boolean fire() {
      if (!done.compareAndSet(false, true)) {
        return false;
      }
      detach();
      onWake.run();
      return true;
    }

    /** Stops waiting without waking (timeout handled by the caller); true if it was waiting. */
    public boolean cancel() {
      if (!done.compareAndSet(false, true)) {
        return false;
      }
      detach();
      return true;
    }

    private void detach() {
      FetchWaiters o = owner;
      if (o != null) {
        o.remove(this);
      }
    }
  }

  private final ConcurrentHashMap<TopicPartition, Set<Waiter>> byPartition =
      new ConcurrentHashMap<>();
  private final AtomicInteger waiting = new AtomicInteger();
  private final int maxWaiters;

  public FetchWaiters(int maxWaiters) {
    this.maxWaiters = maxWaiters;
  }

  /** Registers {@code w} on {@code partitions}; false (nothing registered) when at the limit. */
  public boolean watch(Collection<TopicPartition> partitions, Waiter w) {
    if (waiting.incrementAndGet() > maxWaiters) {
      waiting.decrementAndGet();
      return false;
    }
    w.partitions = partitions;
    w.owner = this;
    for (TopicPartition tp : partitions) {
      byPartition.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(w);
    }
    if (w.done.get()) {
      remove(w);
    }
    return true;
  }

  /**
   * Something happened on {@code tp}: an append ({@code highWatermarkMoved} false) wakes the
   * followers' fetches, a high watermark move the consumers'.
   */
  public void wake(TopicPartition tp, boolean highWatermarkMoved) {
    Set<Waiter> set = byPartition.get(tp);
    if (set == null || set.isEmpty()) {
      return;
    }
    for (Waiter w : set.toArray(new Waiter[0])) {
      if (w.wants(highWatermarkMoved)) {
        w.fire();
      }
    }
  }

  /** Wakes every fetch waiting on {@code tp} (its leadership changed). */
  public void wakeAll(TopicPartition tp) {
    Set<Waiter> set = byPartition.get(tp);
    if (set == null || set.isEmpty()) {
      return;
    }
    for (Waiter w : set.toArray(new Waiter[0])) {
      w.fire();
    }
  }

  public int waitingCount() {
    return waiting.get();
  }

  private void remove(Waiter w) {
    for (TopicPartition tp : w.partitions) {
      Set<Waiter> set = byPartition.get(tp);
      if (set != null) {
        set.remove(w); // empty sets stay: one per partition, and removing them would race with adds
      }
    }
    if (w.released.compareAndSet(false, true)) {
      waiting.decrementAndGet();
    }
  }
}
