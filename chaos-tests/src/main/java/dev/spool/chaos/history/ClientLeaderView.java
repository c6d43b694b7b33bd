package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.spool.common.TopicPartition;
import java.util.Objects;

/**
 * White-box, client side: at {@code timeNs} the producer of {@code worker}'s {@code process}
 * learned (from a metadata refresh or a leader named in a produce answer) that {@code leader} leads
 * {@code partition} in {@code leaderEpoch}; its next send to that partition goes there. The
 * workload records one whenever a producer's cached leader or epoch of a partition changes,
 * starting with what a new producer first learns. The fault timelines read them as "the client
 * switched" (chaos-tests/README.md#fault-timelines); no checker judges them.
 *
 * <pre>
 * timeNs       long    monotonic ns since the run started, when the producer's cache changed
 * worker       int     the producer worker
 * process      long    its Jepsen process (one producer instance)
 * partition    string  "topic-3"
 * leader       int     the leader's node id, -1 for none
 * leaderEpoch  int     the leader epoch
 * </pre>
 */
@JsonPropertyOrder({"timeNs", "worker", "process", "partition", "leader", "leaderEpoch"})
public record ClientLeaderView(
    long timeNs, int worker, long process, TopicPartition partition, int leader, int leaderEpoch)
    implements HistoryEntry {
  public ClientLeaderView {
    Objects.requireNonNull(partition, "partition");
  }
}
