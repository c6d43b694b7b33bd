package dev.spool.client.internal.producer;

import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Partitions for records without a key or partition, like Kafka's built-in partitioner (KIP-480,
 * KIP-794 without its weighting): all such records of a topic go to one partition until about
 * {@code batch.size} bytes were produced to it, then to another partition picked at random among
 * those that have a leader and room in their queue (the accumulator's queue bound), or among all
 * with a leader when none has room. Whole batches fill up instead of many small ones, and records
 * do not wait behind a partition whose leader is behind while another has room. Thread-safe; a race
 * at a switch sends a few records to the old partition, which is harmless.
 */
public final class StickyPartitioner {
  private record Sticky(int partition, AtomicInteger producedBytes) {}

  private final int stickyBatchSizeBytes;
  private final Predicate<TopicPartition> hasRoom;
  private final Map<String, Sticky> current = new ConcurrentHashMap<>();

  public StickyPartitioner(int stickyBatchSizeBytes) {
    this(stickyBatchSizeBytes, tp -> true);
  }

  /** {@code hasRoom}: whether a partition's queue may take another batch now. */
  public StickyPartitioner(int stickyBatchSizeBytes, Predicate<TopicPartition> hasRoom) {
    this.stickyBatchSizeBytes = stickyBatchSizeBytes;
    this.hasRoom = hasRoom;
  }

  /** The topic's current sticky partition (chosen now if there is none, or it no longer exists). */
  public int partition(String topic, List<PartitionInfo> partitions) {
    Sticky s = current.get(topic);
    if (s == null || s.partition() >= partitions.size()) {
      Sticky fresh = new Sticky(next(partitions, -1), new AtomicInteger());
      s = current.merge(topic, fresh, (old, nu) -> old.partition() < partitions.size() ? old : nu);
    }
    return s.partition();
  }

  /** Counts bytes appended to {@code partition}; switches after a batch's worth. */
  public void onAppend(String topic, int partition, int bytes, List<PartitionInfo> partitions) {
    Sticky s = current.get(topic);
    if (s == null || s.partition() != partition) {
      return;
    }
    if (s.producedBytes().addAndGet(bytes) >= stickyBatchSizeBytes) {
      current.replace(topic, s, new Sticky(next(partitions, partition), new AtomicInteger()));
    }
  }

  private int next(List<PartitionInfo> partitions, int avoid) {
    List<Integer> available = new ArrayList<>();
    List<Integer> withRoom = new ArrayList<>();
    for (PartitionInfo p : partitions) {
      if (p.hasLeader() && p.topicPartition().partition() != avoid) {
        available.add(p.topicPartition().partition());
        if (hasRoom.test(p.topicPartition())) {
          withRoom.add(p.topicPartition().partition());
        }
      }
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    if (!withRoom.isEmpty()) {
      return withRoom.get(random.nextInt(withRoom.size()));
    }
    if (!available.isEmpty()) {
      return available.get(random.nextInt(available.size()));
    }
    return partitions.size() <= 1 ? 0 : random.nextInt(partitions.size());
  }
}
