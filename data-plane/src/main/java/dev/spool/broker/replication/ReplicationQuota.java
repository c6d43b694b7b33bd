package dev.spool.broker.replication;

import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One side of the broker's replication throttle (Kafka's follower and leader replication quotas): a
 * token bucket of bytes, filled at the cluster's {@code replicationThrottleBytesPerSec} (read from
 * {@code rate} on every call, since the metadata image changes it at runtime; 0 = no throttle) and
 * holding at most {@link #BURST_MS} worth of it. A broker has two: the follower side's, in which
 * its fetchers {@link #record} the record bytes they receive for throttled partitions (the catch-up
 * fetching of this broker's adding replicas), and the leader side's ({@link
 * LeaderReplicationThrottle}), in which the fetch handler records the bytes it sends to other
 * brokers' adding replicas. While a bucket is in debt ({@link #delayMs} &gt; 0) its side moves no
 * throttled bytes: the fetchers leave those partitions out of their requests, the leader answers
 * them without records. Since one answer may carry more than the bucket holds, the bucket goes
 * negative rather than refusing bytes already read: the debt is paid back by waiting, so over any
 * long run the bytes counted stay within rate × time + {@link #BURST_MS} worth + one answer's
 * overshoot per fetch in flight ({@link #partitionMaxBytes} bounds it for Spool's fetchers).
 *
 * <p>Which partitions are throttled is one rule for both sides, {@link #throttles}: a replica
 * fetching a partition it is an adding replica of, and not in the ISR yet.
 *
 * <p>A bucket starts full when a throttle is set (after none), keeps its level when the rate
 * changes (capped at the new burst), and is forgotten when the throttle is removed.
 *
 * <p>Threads: the follower side's is created by {@link ReplicaFetcherManager} and shared by all its
 * fetchers, which all run on the replica fetchers' I/O thread; the leader side's is used by every
 * Netty event loop and partition worker that serves a follower fetch. The methods are synchronized,
 * so any thread may call them. {@link #throttledBytesTotal} is for any thread.
 */
final class ReplicationQuota {
  /** The burst the bucket holds: one second of the rate. */
  public static final long BURST_MS = 1000;

  private static final double NANOS_PER_SECOND = 1e9;

  private final Clock clock;
  private final LongSupplier rate;
  private final LongAdder throttledBytes = new LongAdder();
  // Guarded by this:
  private long lastRate;
  private double tokens;
  private long lastNs;

  /**
   * @param clock the time the bucket fills with
   * @param rate bytes per second, read on every call; 0 (or less) = unthrottled
   */
  ReplicationQuota(Clock clock, LongSupplier rate) {
    this.clock = clock;
    this.rate = rate;
  }

  /**
   * Whether the fetching of {@code tp} by broker {@code replicaId} counts against the replication
   * throttle: the broker is an adding replica of a reassignment in progress and not in the ISR yet
   * (catch-up traffic only; ISR members and partitions not being moved are never throttled).
   */
  static boolean throttles(MetadataImage image, TopicPartition tp, int replicaId) {
    PartitionState s = image.partition(tp);
    return s != null && s.addingReplicas().contains(replicaId) && !s.isrContains(replicaId);
  }

  /** The current throttle in bytes per second, 0 = none. Any thread; no lock. */
  public long bytesPerSec() {
    return Math.max(0, rate.getAsLong());
  }

  /** Counts {@code bytes} of throttled partitions (received or sent) against the bucket. */
  public synchronized void record(long bytes) {
    if (bytes <= 0) {
      return;
    }
    long r = refill();
    if (r == 0) {
      return;
    }
    tokens -= bytes;
    throttledBytes.add(bytes);
  }

  /**
   * Milliseconds until the bucket is out of debt: 0 when throttled partitions may be fetched now
   * (always 0 without a throttle), else how long their fetching must wait (at least 1).
   */
  public synchronized long delayMs() {
    long r = refill();
    if (r == 0 || tokens >= 0) {
      return 0;
    }
    double ms = Math.ceil(-tokens * BURST_MS / r);
    return Math.max(1, (long) Math.min(ms, Long.MAX_VALUE / 2));
  }

  /**
   * The per-partition max bytes for a throttled partition in a fetch that carries {@code
   * throttledInRequest} of them: their share of one burst ({@link #BURST_MS} of the rate), at most
   * {@code normalMax}, at least 1 (the leader still sends one whole first batch). So one answer
   * brings little more than one burst beyond what the bucket allowed.
   */
  public int partitionMaxBytes(int normalMax, int throttledInRequest) {
    long r = bytesPerSec();
    if (r == 0) {
      return normalMax;
    }
    long burst = burstBytes(r);
    long share = burst / Math.max(1, throttledInRequest);
    return (int) Math.max(1, Math.min(normalMax, share));
  }

  /** Bytes counted against the throttle since this broker started. Any thread. */
  public long throttledBytesTotal() {
    return throttledBytes.sum();
  }

  /** The bucket's level in bytes (negative = debt); for tests. */
  synchronized long tokens() {
    refill();
    return (long) Math.floor(tokens);
  }

  /** Reads the rate, fills the bucket up to now and returns the rate (0: the bucket is reset). */
  private long refill() {
    long r = bytesPerSec();
    long nowNs = clock.nanoTime();
    if (r == 0) {
      lastRate = 0;
      tokens = 0;
      lastNs = nowNs;
      return 0;
    }
    if (lastRate == 0) {
      tokens = burstBytes(r); // a new throttle starts with a full burst
    } else {
      // Time since the last call filled at the rate then in force.
      tokens += Math.max(0, nowNs - lastNs) * (double) lastRate / NANOS_PER_SECOND;
    }
    tokens = Math.min(tokens, burstBytes(r));
    lastRate = r;
    lastNs = nowNs;
    return r;
  }

  private static long burstBytes(long bytesPerSec) {
    long perBurst =
        bytesPerSec > Long.MAX_VALUE / BURST_MS ? bytesPerSec : bytesPerSec * BURST_MS / 1000;
    return Math.max(1, perBurst);
  }
}
