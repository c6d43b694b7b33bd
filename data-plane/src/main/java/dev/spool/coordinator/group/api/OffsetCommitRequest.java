package dev.spool.coordinator.group.api;

import dev.spool.common.TopicPartition;
import java.util.Map;

/**
 * Offsets to commit for a group. A member passes its id and epoch; a commit from outside the group
 * (a consumer using assign, or an admin reset) passes an empty member id and epoch -1 and is only
 * accepted while the group has no members. For a classic group the epoch is the generation and a
 * static member passes its instance id (null otherwise).
 */
public record OffsetCommitRequest(
    String groupId,
    String memberId,
    int memberEpoch,
    Map<TopicPartition, OffsetAndMetadata> offsets,
    String instanceId) {

  public OffsetCommitRequest(
      String groupId,
      String memberId,
      int memberEpoch,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    this(groupId, memberId, memberEpoch, offsets, null);
  }
}
