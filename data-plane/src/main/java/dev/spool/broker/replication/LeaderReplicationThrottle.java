package dev.spool.broker.replication;

import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.MetadataImage;
import java.util.function.LongSupplier;

/**
 * The leader side of the broker's replication throttle (Kafka's leader replication quota, {@code
 * leader.replication.throttled.rate}): the record bytes this broker sends to other brokers' adding
 * replicas, in one {@link ReplicationQuota} per broker filled at the cluster's {@code
 * replicationThrottleBytesPerSec}, so a leader serving many adding replicas moves no more than the
 * throttle in total (the follower side limits each receiving broker; this limits each sending one).
 *
 * <p>The fetch handler applies it as Kafka's {@code ReplicaManager.readFromLocalLog} and {@code
 * DelayedFetch} do with {@code shouldLeaderThrottle}: a partition of a follower fetch that {@link
 * #throttles} is read as usual (the follower's progress is recorded, its epochs and divergence
 * checked), but while the bucket is in debt ({@link #delayMs} &gt; 0) it is answered without
 * records (not an error: the follower keeps its position) and its bytes do not count towards the
 * fetch's min_bytes, so the fetch long-polls instead of coming back at once. The bytes of the
 * throttled partitions an answer carries are {@link #record recorded} once the answer is built.
 * Consumers, ISR members and partitions without a move in progress are never throttled; a rate of 0
 * throttles nothing and costs one read of the rate per fetch.
 *
 * <p>Threads: one per broker, created and owned by {@link ReplicaManager} ({@link
 * ReplicaManager#leaderThrottle}); used by whichever thread completes a follower fetch's reads (a
 * partition worker, a Netty event loop or the broker's timer thread), several at once. The quota's
 * methods are synchronized and the rate is a volatile read of the image, so every method here is
 * for any thread.
 */
public final class LeaderReplicationThrottle {
  private final ReplicationQuota quota;

  /**
   * @param clock the time the bucket fills with
   * @param rate bytes per second, read on every call; 0 (or less) = unthrottled
   */
  public LeaderReplicationThrottle(Clock clock, LongSupplier rate) {
    this.quota = new ReplicationQuota(clock, rate);
  }

  /** Whether a throttle is set now (a rate above 0); when not, nothing else needs asking. */
  public boolean isActive() {
    return quota.bytesPerSec() > 0;
  }

  /**
   * Whether the fetching of {@code tp} by {@code replicaId} (-1 for a consumer) counts against the
   * throttle: a follower that is an adding replica of the partition's move and not in its ISR,
   * while a throttle is set.
   */
  public boolean throttles(MetadataImage image, TopicPartition tp, int replicaId) {
    return replicaId >= 0 && isActive() && ReplicationQuota.throttles(image, tp, replicaId);
  }

  /**
   * 0 when throttled partitions may be sent records now; else the milliseconds until the bucket is
   * out of debt, during which they are answered without records.
   */
  public long delayMs() {
    return quota.delayMs();
  }

  /** Counts {@code bytes} of throttled partitions' records sent in one answer. */
  public void record(long bytes) {
    quota.record(bytes);
  }

  /** Record bytes sent to adding replicas counted against the throttle since start. Any thread. */
  public long throttledBytesTotal() {
    return quota.throttledBytesTotal();
  }
}
