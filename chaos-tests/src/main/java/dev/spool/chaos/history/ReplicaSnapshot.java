package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Objects;

/**
 * White-box: what one replica of one partition holds below its high watermark at one moment.
 * Batches at or above the replica's high watermark are not committed and may legitimately differ
 * between replicas, so the probe leaves them out (the checker also ignores any it is given).
 *
 * @param node the node that hosts the replica
 * @param highWatermark the replica's own high watermark when it was read
 * @param logStartOffset the first offset still in the replica's log (retention may have moved it)
 * @param batches the replica's batches below {@code highWatermark}, in offset order
 */
@JsonPropertyOrder({"timeNs", "node", "partition", "highWatermark", "logStartOffset", "batches"})
public record ReplicaSnapshot(
    long timeNs,
    int node,
    TopicPartition partition,
    long highWatermark,
    long logStartOffset,
    List<BatchSummary> batches)
    implements HistoryEntry {
  public ReplicaSnapshot {
    Objects.requireNonNull(partition, "partition");
    batches = List.copyOf(batches);
  }
}
