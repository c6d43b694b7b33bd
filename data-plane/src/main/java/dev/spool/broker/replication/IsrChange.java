package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import java.util.List;

/**
 * An ISR change a partition leader asks the quorum for (AlterPartition): the epochs it was decided
 * in, so that a late answer can be told apart from a current one. Immutable; any thread ({@link
 * #deliverAnswer} on the partition's owner thread).
 */
public record IsrChange(
    String topic,
    String topicId,
    int partition,
    int leaderEpoch,
    int partitionEpoch,
    List<Integer> newIsr) {

  /** The AlterPartition request that asks for this change, sent by broker {@code brokerId}. */
  public AlterPartitionRequest toRequest(int brokerId, long brokerEpoch) {
    return AlterPartitionRequest.newBuilder()
        .setBrokerId(brokerId)
        .setBrokerEpoch(brokerEpoch)
        .addPartitions(
            AlterPartitionRequest.Partition.newBuilder()
                .setTopic(topic)
                .setTopicId(topicId)
                .setPartition(partition)
                .setLeaderEpoch(leaderEpoch)
                .setPartitionEpoch(partitionEpoch)
                .addAllNewIsr(newIsr))
        .build();
  }

  /**
   * Hands the quorum's answer to this change to {@code p} ({@link Partition#onIsrChangeResult}): a
   * request-level error, or an answer without the partition (UNKNOWN_SERVER_ERROR), fails it
   * without a result; otherwise the partition's own result goes in. Owner thread of {@code p}.
   */
  public void deliverAnswer(Partition p, AlterPartitionResponse resp) {
    if (resp.getErrorCode() != ErrorCode.NONE || resp.getPartitionsCount() == 0) {
      ErrorCode code =
          resp.getErrorCode() == ErrorCode.NONE
              ? ErrorCode.UNKNOWN_SERVER_ERROR
              : resp.getErrorCode();
      p.onIsrChangeResult(this, code, resp.getErrorMessage(), -1, List.of(), -1, -1);
      return;
    }
    AlterPartitionResponse.PartitionResult r = resp.getPartitions(0);
    p.onIsrChangeResult(
        this,
        r.getErrorCode(),
        r.getErrorMessage(),
        r.getLeader(),
        r.getIsrList(),
        r.getLeaderEpoch(),
        r.getPartitionEpoch());
  }
}
