package dev.spool.broker.replication;

import dev.spool.broker.log.OffsetOutOfRangeException;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.ErrorCode;

/**
 * DeleteRecords on a partition's leader, with Kafka's rules: offset -1 means the high watermark; an
 * offset below -1 or past the high watermark is OFFSET_OUT_OF_RANGE; a topic without {@code
 * cleanup.policy} delete refuses with POLICY_VIOLATION (a compacted log keeps every key's latest
 * record by design); an offset at or below the log start changes nothing and answers the current
 * start. The new log start offset takes effect on the leader at once; followers take it from the
 * leader's fetch answers ({@link FollowerLog}) and the log manager's retention pass deletes the
 * whole segments below it. Kafka's leader also waits until every live follower has moved its start
 * before answering; Spool's answers once the leader has, since what matters to readers (fetches and
 * ListOffsets go to the leader) is then already true, and a follower that becomes leader has the
 * new start from its next fetch of the old leader or serves from the old one.
 *
 * <p>Threads: the partition's owner thread, like every mutation of its {@link Partition}.
 */
public final class RecordDeletion {
  private RecordDeletion() {}

  /** Kafka's stand-in for "the high watermark" in a DeleteRecords request. */
  public static final long HIGH_WATERMARK = -1;

  /** The outcome for one partition; {@code lowWatermark} is -1 on an error. */
  public record Result(ErrorCode error, String message, long lowWatermark, LeaderHintInfo hint) {}

  /** Moves {@code partition}'s log start offset to {@code offset} if this replica leads it. */
  public static Result onLeader(Partition partition, long offset) {
    if (partition.role() != ReplicaRole.LEADER) {
      return new Result(
          ErrorCode.NOT_LEADER_OR_FOLLOWER,
          "this broker does not lead " + partition.topicPartition(),
          -1,
          partition.hint());
    }
    PartitionLog log = partition.log();
    if (!log.config().cleanup().delete()) {
      return new Result(
          ErrorCode.POLICY_VIOLATION,
          "records of "
              + partition.topicPartition()
              + " cannot be deleted: its cleanup.policy has no delete",
          -1,
          null);
    }
    long target = offset == HIGH_WATERMARK ? log.highWatermark() : offset;
    if (target < 0) {
      return new Result(
          ErrorCode.OFFSET_OUT_OF_RANGE,
          "offset " + offset + " is negative (-1 alone means the high watermark)",
          -1,
          null);
    }
    try {
      return new Result(ErrorCode.NONE, "", log.incrementLogStartOffset(target), null);
    } catch (OffsetOutOfRangeException e) {
      return new Result(ErrorCode.OFFSET_OUT_OF_RANGE, e.getMessage(), -1, null);
    }
  }
}
