package dev.spool.client;

import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.DescribeLogsResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * One broker's replica of a partition as that broker sees it ({@link Admin#describeLogs}): size,
 * offsets and, for a compacted topic, its cleaner's state. Replicas clean on their own, so the
 * cleaner fields differ between the brokers of one partition. Immutable.
 *
 * @param brokerId the broker holding this replica
 * @param compacted whether the topic's cleanup.policy has compact (the cleaner fields apply)
 * @param firstDirtyOffset the cleaner checkpoint: everything below it is cleaned
 * @param firstUncleanableOffset nothing at or above it may be cleaned now (the active segment, the
 *     high watermark, min.compaction.lag.ms)
 * @param cleanableBytes bytes between the two, which the next clean would read
 * @param dirtyRatio cleanable bytes over the bytes below the first uncleanable offset; the cleaner
 *     runs when it reaches min.cleanable.dirty.ratio
 * @param lastCleanTimeMs when the last clean finished, -1 never
 * @param bytesCleaned bytes the cleaner has read and rewritten here, in total
 * @param uncleanableReason why the cleaner gave up on this replica until its broker restarts (a
 *     corrupt batch, an I/O error); empty when it did not
 */
public record ReplicaLog(
    int brokerId,
    TopicPartition partition,
    long sizeBytes,
    int segments,
    long logStartOffset,
    long logEndOffset,
    long highWatermark,
    boolean compacted,
    long firstDirtyOffset,
    long firstUncleanableOffset,
    long cleanableBytes,
    double dirtyRatio,
    long lastCleanTimeMs,
    long lastCleanDurationMs,
    long bytesCleaned,
    String uncleanableReason) {
  /** Every replica in one broker's DescribeLogs answer. */
  static List<ReplicaLog> from(DescribeLogsResponse d) {
    List<ReplicaLog> out = new ArrayList<>();
    for (DescribeLogsResponse.ReplicaLog p : d.getPartitionsList()) {
      out.add(
          new ReplicaLog(
              d.getBrokerId(),
              new TopicPartition(p.getTopic(), p.getPartition()),
              p.getSizeBytes(),
              p.getSegments(),
              p.getLogStartOffset(),
              p.getLogEndOffset(),
              p.getHighWatermark(),
              p.getCompacted(),
              p.getFirstDirtyOffset(),
              p.getFirstUncleanableOffset(),
              p.getCleanableBytes(),
              p.getDirtyRatio(),
              p.getLastCleanTimeMs(),
              p.getLastCleanDurationMs(),
              p.getBytesCleaned(),
              p.getUncleanableReason()));
    }
    return out;
  }
}
