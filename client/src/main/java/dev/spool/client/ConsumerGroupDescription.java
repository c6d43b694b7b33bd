package dev.spool.client;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Set;

/**
 * A consumer group as its coordinator sees it ({@link Admin#describeConsumerGroup}): state (Empty,
 * Assigning, Reconciling, Stable), epochs, the server-side assignor and the members. Immutable.
 */
public record ConsumerGroupDescription(
    String groupId,
    String state,
    int groupEpoch,
    int assignmentEpoch,
    String assignor,
    List<Member> members) {
  public ConsumerGroupDescription {
    members = List.copyOf(members);
  }

  /**
   * One member: {@code assignment} is what it owns now, {@code targetAssignment} what it will own
   * once reconciled.
   */
  public record Member(
      String memberId,
      String instanceId,
      String clientId,
      String host,
      int memberEpoch,
      Set<TopicPartition> assignment,
      Set<TopicPartition> targetAssignment,
      String memberState) {
    public Member {
      assignment = Set.copyOf(assignment);
      targetAssignment = Set.copyOf(targetAssignment);
    }
  }
}
