package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.spool.common.TopicPartition;
import java.util.Objects;

/**
 * White-box: at {@code timeNs}, node {@code observer} believed that {@code leader} led {@code
 * partition} in {@code leaderEpoch}. The harness records one whenever a node's view changes (from
 * its metadata image or its status endpoint).
 *
 * @param leader the leader's node id, or {@link #NO_LEADER}
 */
@JsonPropertyOrder({"timeNs", "observer", "partition", "leader", "leaderEpoch"})
public record EpochObservation(
    long timeNs, int observer, TopicPartition partition, int leader, int leaderEpoch)
    implements HistoryEntry {
  public static final int NO_LEADER = -1;

  public EpochObservation {
    Objects.requireNonNull(partition, "partition");
  }
}
