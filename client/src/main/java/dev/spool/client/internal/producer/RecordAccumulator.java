package dev.spool.client.internal.producer;

import dev.spool.client.RecordMetadata;
import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.Node;
import dev.spool.record.Compression;
import dev.spool.record.Header;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Per-partition queues of batches between the application threads that append records and the
 * sender (I/O thread) that drains them, as Kafka's RecordAccumulator. Each partition's deque is its
 * own lock: appends touch only the last batch, the sender takes batches from the front. Retried
 * batches go back to the front in sequence order.
 *
 * <p>A partition is <i>ready</i> when its first batch is full, has waited {@code linger.ms} (or its
 * retry backoff), or when a flush or close is in progress or appenders wait for memory. A node is
 * ready when any partition it leads is; draining then takes the first batch of every partition the
 * node leads (one per partition per request), up to {@code max.request.size}.
 *
 * <p><b>Queue bound.</b> {@code buffer.memory} alone lets a producer whose brokers are slower than
 * its application queue the whole buffer, and every record then waits buffer ÷ throughput (hundreds
 * of milliseconds with 32 MiB) without the brokers writing any faster. With {@code queue.target.ms}
 * &gt; 0 a partition opens a new batch only while its unsent batches come to less than {@link
 * #queueLimitBytes}: the larger of two batches and what the sender drained from that partition in
 * the last {@code queue.target.ms} (a rate measured as batches leave). At saturation two full
 * batches wait for the next requests and one fills. An append that needs a new batch while its
 * partition is at the bound waits, inside {@code max.block.ms} as for memory, until the sender
 * takes a batch of that partition. A partition whose leader keeps up never reaches the bound; one
 * whose leader is the bottleneck keeps enough queued to fill every request it is sent, and the rest
 * of the wait happens in {@code send()}, before a record exists, rather than in the buffer. {@code
 * buffer.memory} stays the hard cap over all partitions. Keyless records move to partitions below
 * the bound ({@link #hasQueueRoom}).
 */
public final class RecordAccumulator {
  /**
   * Lets the sender hold back partitions (ordering, idempotence) and stamp batches as they leave.
   */
  public interface DrainGate {
    /** Whether the first batch of {@code tp} may be sent to {@code leader} now. */
    boolean mayDrain(TopicPartition tp, Node leader, ProducerBatch first);

    /** Called for each drained batch, before it is built (assigns sequence numbers). */
    void onDrain(ProducerBatch batch);
  }

  /** The outcome of one append. */
  public record AppendResult(
      CompletableFuture<RecordMetadata> future,
      boolean batchIsFull,
      boolean newBatchCreated,
      int appendedBytes) {}

  /** Which nodes have something to send, and when to look again. */
  public record ReadyCheck(
      Set<Node> readyNodes, long nextReadyCheckDelayMs, Set<String> unknownLeaderTopics) {}

  private final int batchSizeBytes;
  private final long lingerMs;
  private final long deliveryTimeoutMs;
  private final BufferPool pool;
  private final Compression compression;
  private final int maxUncompressedBytes;
  private final CompressionRatios ratios = new CompressionRatios();
  private final ConcurrentMap<TopicPartition, Deque<ProducerBatch>> batches =
      new ConcurrentHashMap<>();
  private final Set<ProducerBatch> incomplete = ConcurrentHashMap.newKeySet();

  /** Per partition, the rate its batches were drained at; guarded by the partition's deque. */
  private final ConcurrentMap<TopicPartition, DrainRate> drainRates = new ConcurrentHashMap<>();

  private final long queueTargetMs;
  private final AtomicInteger flushesInProgress = new AtomicInteger();
  private volatile boolean closed;
  private int drainRotation;

  public RecordAccumulator(
      int batchSizeBytes, long lingerMs, long deliveryTimeoutMs, BufferPool pool) {
    this(batchSizeBytes, lingerMs, deliveryTimeoutMs, pool, Compression.NONE, Integer.MAX_VALUE, 0);
  }

  /**
   * With a codec: batches are compressed as they are built, and a batch takes records until its
   * expected compressed size reaches {@code batch.size} ({@link CompressionRatios}), but never more
   * than {@code maxRequestBytes} less 1 KiB of uncompressed records (so even records that do not
   * compress at all still fit a request) nor 8 times {@code batch.size}. {@code queueTargetMs}: the
   * queue bound of the class doc ({@code queue.target.ms}; 0 = none beyond the buffer pool).
   */
  public RecordAccumulator(
      int batchSizeBytes,
      long lingerMs,
      long deliveryTimeoutMs,
      BufferPool pool,
      Compression compression,
      int maxRequestBytes,
      long queueTargetMs) {
    this.queueTargetMs = queueTargetMs;
    this.batchSizeBytes = batchSizeBytes;
    this.lingerMs = lingerMs;
    this.deliveryTimeoutMs = deliveryTimeoutMs;
    this.pool = pool;
    this.compression = compression;
    this.maxUncompressedBytes =
        (int)
            Math.max(batchSizeBytes, Math.min(8L * batchSizeBytes, (long) maxRequestBytes - 1024));
  }

  // ------------------------------------------------------------------ application threads

  /**
   * Appends one record to the partition's open batch, or to a new batch, which may wait up to
   * {@code maxBlockMs} in all for room in the partition's queue (the queue bound of the class doc)
   * and for its buffer from the pool.
   */
  public AppendResult append(
      TopicPartition tp,
      long timestamp,
      byte[] key,
      byte[] value,
      List<Header> headers,
      long maxBlockMs,
      long nowMs)
      throws InterruptedException {
    Deque<ProducerBatch> dq = batches.computeIfAbsent(tp, k -> new ArrayDeque<>());
    // The clock is read only once the open batch is full (not per record): from then on send may
    // wait, within max.block.ms.
    long startNs = 0;
    long deadlineNs = 0;
    boolean waited = false;
    synchronized (dq) {
      while (true) {
        checkOpen();
        AppendResult r = tryAppend(dq, timestamp, key, value, headers);
        if (r != null) {
          return r;
        }
        if (waited) {
          // The caller's clock reading is as old as the wait; the new batch starts now.
          nowMs += TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
          startNs = System.nanoTime();
        } else { // the first try: the open batch is full
          startNs = System.nanoTime();
          deadlineNs = startNs + TimeUnit.MILLISECONDS.toNanos(maxBlockMs);
        }
        if (hasQueueRoom(tp, dq, nowMs)) {
          break;
        }
        // Real time on purpose, as the buffer pool's wait: an application thread blocks here.
        long remainingNs = deadlineNs - System.nanoTime();
        if (remainingNs <= 0) {
          throw new SpoolException(
              ErrorCode.REQUEST_TIMED_OUT,
              "partition "
                  + tp
                  + " kept "
                  + queuedBytes(dq)
                  + " bytes of batches queued for longer than max.block.ms="
                  + maxBlockMs
                  + ": its leader takes records slower than they arrive");
        }
        TimeUnit.NANOSECONDS.timedWait(dq, remainingNs);
        waited = true;
      }
    }
    long remainingMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
    int size = Math.max(batchSizeBytes, ProducerBatch.estimateSizeUpperBound(key, value, headers));
    ByteBuffer buffer = pool.allocate(size, remainingMs);
    boolean used = false;
    try {
      synchronized (dq) {
        checkOpen();
        AppendResult r = tryAppend(dq, timestamp, key, value, headers);
        if (r != null) {
          return r;
        }
        ProducerBatch batch =
            new ProducerBatch(
                tp,
                buffer,
                size,
                nowMs,
                compression,
                ratios.estimate(tp.topic()),
                maxUncompressedBytes);
        int before = batch.estimatedSizeBytes();
        CompletableFuture<RecordMetadata> f = batch.tryAppend(timestamp, key, value, headers, size);
        dq.addLast(batch);
        incomplete.add(batch);
        used = true;
        return new AppendResult(
            f,
            dq.size() > 1 || batch.isFull(batchSizeBytes),
            true,
            batch.estimatedSizeBytes() - before);
      }
    } finally {
      if (!used) {
        pool.deallocate(buffer, size);
      }
    }
  }

  private AppendResult tryAppend(
      Deque<ProducerBatch> dq, long timestamp, byte[] key, byte[] value, List<Header> headers) {
    ProducerBatch last = dq.peekLast();
    if (last == null || last.isBuilt()) {
      return null;
    }
    int before = last.estimatedSizeBytes();
    CompletableFuture<RecordMetadata> f =
        last.tryAppend(timestamp, key, value, headers, batchSizeBytes);
    if (f == null) {
      return null;
    }
    return new AppendResult(
        f, dq.size() > 1 || last.isFull(batchSizeBytes), false, last.estimatedSizeBytes() - before);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("producer closed");
    }
  }

  // ------------------------------------------------------------------ queue bound

  /**
   * The bound on {@code tp}'s unsent batches (class doc): two batches, or what was drained from it
   * in the last {@code queue.target.ms}, whichever is more; unbounded when {@code queue.target.ms}
   * is 0. Caller holds the partition's deque.
   */
  long queueLimitBytes(TopicPartition tp, long nowMs) {
    if (queueTargetMs <= 0) {
      return Long.MAX_VALUE;
    }
    DrainRate rate = drainRates.get(tp);
    long drained = rate == null ? 0 : rate.bytesPerSecond(nowMs) * queueTargetMs / 1000;
    return Math.max(2L * batchSizeBytes, drained);
  }

  /**
   * Whether {@code tp} may take a new batch now (below its queue bound, or nothing queued). The
   * sticky partitioner asks before moving keyless records to a partition.
   */
  public boolean hasQueueRoom(TopicPartition tp, long nowMs) {
    Deque<ProducerBatch> dq = batches.get(tp);
    if (dq == null) {
      return true;
    }
    synchronized (dq) {
      return hasQueueRoom(tp, dq, nowMs);
    }
  }

  private boolean hasQueueRoom(TopicPartition tp, Deque<ProducerBatch> dq, long nowMs) {
    return dq.isEmpty() || queuedBytes(dq) < queueLimitBytes(tp, nowMs);
  }

  /** Bytes of {@code tp}'s batches not yet drained (for tests and the bound). */
  public long queuedBytes(TopicPartition tp) {
    Deque<ProducerBatch> dq = batches.get(tp);
    if (dq == null) {
      return 0;
    }
    synchronized (dq) {
      return queuedBytes(dq);
    }
  }

  private static long queuedBytes(Deque<ProducerBatch> dq) {
    long sum = 0;
    for (ProducerBatch b : dq) {
      sum += b.estimatedSizeBytes();
    }
    return sum;
  }

  /**
   * Bytes drained from one partition per second, over windows of at least {@link #WINDOW_MS}: the
   * last complete window, or the current one once it drained more. Guarded by the partition's
   * deque.
   */
  static final class DrainRate {
    static final long WINDOW_MS = 200;

    private long windowStartMs = Long.MIN_VALUE;
    private long windowBytes;
    private long lastRate;

    void record(long bytes, long nowMs) {
      if (windowStartMs == Long.MIN_VALUE) {
        windowStartMs = nowMs;
      }
      windowBytes += bytes;
      long elapsed = nowMs - windowStartMs;
      if (elapsed >= WINDOW_MS) {
        lastRate = windowBytes * 1000 / elapsed;
        windowStartMs = nowMs;
        windowBytes = 0;
      }
    }

    long bytesPerSecond(long nowMs) {
      long elapsed = nowMs - windowStartMs;
      if (windowStartMs == Long.MIN_VALUE || elapsed > 5 * WINDOW_MS) {
        // Nothing drained for a while: the old rate says nothing about the leader now.
        return 0;
      }
      long current = elapsed >= WINDOW_MS ? windowBytes * 1000 / elapsed : 0;
      return Math.max(lastRate, current);
    }
  }

  /** Makes every batch ready at once until {@link #endFlush()}. */
  public void beginFlush() {
    flushesInProgress.incrementAndGet();
  }

  public void endFlush() {
    flushesInProgress.decrementAndGet();
  }

  /** Completes when every batch that exists now has finished. */
  public CompletableFuture<Void> incompleteDone() {
    return CompletableFuture.allOf(
        incomplete.stream().map(b -> b.done).toArray(CompletableFuture[]::new));
  }

  /** No more appends (appenders waiting for queue room fail); everything queued becomes ready. */
  public void close() {
    closed = true;
    for (Deque<ProducerBatch> dq : batches.values()) {
      synchronized (dq) {
        dq.notifyAll();
      }
    }
  }

  public boolean isClosed() {
    return closed;
  }

  // ------------------------------------------------------------------ sender (I/O thread)

  /** Which nodes to drain now, per the class doc, and how long until something becomes ready. */
  public ReadyCheck ready(MetadataSnapshot md, long nowMs, DrainGate gate) {
    Set<Node> readyNodes = new HashSet<>();
    Set<String> unknownLeaderTopics = new HashSet<>();
    long nextDelayMs = Long.MAX_VALUE;
    boolean urgent = closed || flushesInProgress.get() > 0 || pool.queuedWaiters() > 0;
    for (Map.Entry<TopicPartition, Deque<ProducerBatch>> e : batches.entrySet()) {
      Deque<ProducerBatch> dq = e.getValue();
      ProducerBatch first;
      boolean full;
      synchronized (dq) {
        first = dq.peekFirst();
        if (first == null) {
          continue;
        }
        full = dq.size() > 1 || first.isFull(batchSizeBytes);
      }
      long expiresInMs = first.createdMs + deliveryTimeoutMs - nowMs;
      if (expiresInMs > 0) {
        // Expired batches are handled on every sender run; responses wake the sender.
        nextDelayMs = Math.min(nextDelayMs, expiresInMs);
      }
      Node leader = md.leaderFor(e.getKey());
      if (leader == null) {
        unknownLeaderTopics.add(e.getKey().topic());
        continue;
      }
      if (readyNodes.contains(leader) || !gate.mayDrain(e.getKey(), leader, first)) {
        continue;
      }
      boolean backingOff = backingOff(first, md, nowMs);
      long readyAtMs =
          first.attempts == 0
              ? first.createdMs + lingerMs
              : backingOff ? first.retryAfterMs : nowMs;
      if (!backingOff && (full || urgent || nowMs >= readyAtMs)) {
        readyNodes.add(leader);
      } else {
        nextDelayMs = Math.min(nextDelayMs, Math.max(1, readyAtMs - nowMs));
      }
    }
    return new ReadyCheck(readyNodes, nextDelayMs, unknownLeaderTopics);
  }

  /**
   * Whether a retried batch still waits out its retry backoff. Not once the metadata names another
   * leader (or a newer leader epoch) than the one its last attempt went to: the backoff is there to
   * not hammer a leader that is failing, and a new one is worth trying at once (as Kafka's
   * KIP-951). After a failover this saves up to a whole backoff step (up to retry.backoff.max.ms)
   * between the new leader becoming known and the first write reaching it.
   */
  private static boolean backingOff(ProducerBatch b, MetadataSnapshot md, long nowMs) {
    if (b.attempts == 0 || nowMs >= b.retryAfterMs) {
      return false;
    }
    PartitionInfo p = md.partition(b.topicPartition);
    return p == null || !b.leaderMovedTo(p.leaderId(), p.leaderEpoch());
  }

  /**
   * Takes, for each node, the first batch of every partition it leads (rotating the starting
   * partition for fairness) while the request stays within {@code maxRequestBytes}; builds them.
   */
  public Map<Node, List<ProducerBatch>> drain(
      MetadataSnapshot md, Set<Node> nodes, int maxRequestBytes, long nowMs, DrainGate gate) {
    Map<Node, List<ProducerBatch>> out = new HashMap<>();
    if (nodes.isEmpty()) {
      return out;
    }
    List<TopicPartition> all = new ArrayList<>(batches.keySet());
    if (all.isEmpty()) {
      return out;
    }
    int start = Math.floorMod(drainRotation++, all.size());
    for (Node node : nodes) {
      List<ProducerBatch> ready = new ArrayList<>();
      int size = 0;
      for (int i = 0; i < all.size(); i++) {
        TopicPartition tp = all.get((start + i) % all.size());
        if (!node.equals(md.leaderFor(tp))) {
          continue;
        }
        Deque<ProducerBatch> dq = batches.get(tp);
        synchronized (dq) {
          ProducerBatch first = dq.peekFirst();
          if (first == null || backingOff(first, md, nowMs) || !gate.mayDrain(tp, node, first)) {
            continue;
          }
          if (!ready.isEmpty() && size + first.estimatedSizeBytes() > maxRequestBytes) {
            break;
          }
          dq.pollFirst();
          dq.notifyAll();
          gate.onDrain(first);
          PartitionInfo p = md.partition(tp);
          first.sentToLeader(node.id(), p == null ? -1 : p.leaderEpoch());
          first.build();
          float observed = first.observedRatio();
          if (observed >= 0) {
            ratios.observe(tp.topic(), observed);
          }
          size += first.estimatedSizeBytes();
          if (queueTargetMs > 0) {
            drainRates
                .computeIfAbsent(tp, k -> new DrainRate())
                .record(first.estimatedSizeBytes(), nowMs);
          }
          ready.add(first);
        }
      }
      if (!ready.isEmpty()) {
        out.put(node, ready);
      }
    }
    return out;
  }

  /**
   * Puts retried batches back at the front of their partition's deque, in sequence order (batches
   * without a sequence keep their relative order before the unsent ones).
   */
  public void reenqueue(List<ProducerBatch> retries) {
    for (ProducerBatch b : retries) {
      Deque<ProducerBatch> dq = batches.computeIfAbsent(b.topicPartition, k -> new ArrayDeque<>());
      synchronized (dq) {
        insertInOrder(dq, b);
      }
    }
  }

  private static void insertInOrder(Deque<ProducerBatch> dq, ProducerBatch b) {
    if (!b.hasSequence()) {
      // A retried batch without a sequence (idempotence off) goes first, as in Kafka.
      dq.addFirst(b);
      return;
    }
    List<ProducerBatch> before = new ArrayList<>();
    while (!dq.isEmpty()) {
      ProducerBatch head = dq.peekFirst();
      if (head.hasSequence() && SequenceNumbers.before(head.baseSequence, b.baseSequence)) {
        before.add(dq.pollFirst());
      } else {
        break;
      }
    }
    dq.addFirst(b);
    for (int i = before.size() - 1; i >= 0; i--) {
      dq.addFirst(before.get(i));
    }
  }

  /**
   * Removes batches whose {@code delivery.timeout.ms} has passed, from the front of each deque
   * whose partition {@code mayExpire} (the sender allows it only while nothing of the partition is
   * in flight, so futures still finish in order).
   */
  public List<ProducerBatch> expiredBatches(long nowMs, Predicate<TopicPartition> mayExpire) {
    List<ProducerBatch> expired = new ArrayList<>();
    for (Map.Entry<TopicPartition, Deque<ProducerBatch>> e : batches.entrySet()) {
      Deque<ProducerBatch> dq = e.getValue();
      synchronized (dq) {
        ProducerBatch first = dq.peekFirst();
        if (first == null
            || nowMs - first.createdMs < deliveryTimeoutMs
            || !mayExpire.test(e.getKey())) {
          continue;
        }
        while ((first = dq.peekFirst()) != null && nowMs - first.createdMs >= deliveryTimeoutMs) {
          expired.add(dq.pollFirst());
        }
        dq.notifyAll();
      }
    }
    return expired;
  }

  /** Removes every queued batch of {@code tp} that satisfies {@code which}, in queue order. */
  public List<ProducerBatch> removeQueued(TopicPartition tp, Predicate<ProducerBatch> which) {
    List<ProducerBatch> removed = new ArrayList<>();
    Deque<ProducerBatch> dq = batches.get(tp);
    if (dq == null) {
      return removed;
    }
    synchronized (dq) {
      for (Iterator<ProducerBatch> it = dq.iterator(); it.hasNext(); ) {
        ProducerBatch b = it.next();
        if (which.test(b)) {
          it.remove();
          removed.add(b);
        }
      }
      dq.notifyAll();
    }
    return removed;
  }

  /** Visits every queued batch of {@code tp} under its lock (for re-sequencing). */
  public void forEachQueued(TopicPartition tp, java.util.function.Consumer<ProducerBatch> action) {
    Deque<ProducerBatch> dq = batches.get(tp);
    if (dq == null) {
      return;
    }
    synchronized (dq) {
      dq.forEach(action);
    }
  }

  /** Removes every queued batch (close after its timeout); appends still running finish first. */
  public List<ProducerBatch> drainAll() {
    List<ProducerBatch> all = new ArrayList<>();
    for (Deque<ProducerBatch> dq : batches.values()) {
      synchronized (dq) {
        all.addAll(dq);
        dq.clear();
        dq.notifyAll();
      }
    }
    return all;
  }

  /** Gives a finished batch's memory back and forgets it. */
  public void deallocate(ProducerBatch batch) {
    if (incomplete.remove(batch)) {
      pool.deallocate(batch.pooledBuffer(), batch.allocatedBytes());
    }
  }

  public BufferPool pool() {
    return pool;
  }
}
