package dev.spool.coordinator.group.api;

import com.google.protobuf.ByteString;
import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Set;

/**
 * One member as DescribeGroups shows it: {@code assignment} is what it owns now (assigned and not
 * pending revocation), {@code targetAssignment} what it will own once reconciled. A classic member
 * also has its metadata for the group's protocol and its assignment as the leader encoded them
 * (ByteString: immutable, compared by content).
 */
public record MemberDescription(
    String memberId,
    String instanceId,
    String rackId,
    int memberEpoch,
    String clientId,
    String clientHost,
    List<String> subscribedTopicNames,
    String subscribedTopicRegex,
    Set<TopicPartition> assignment,
    Set<TopicPartition> targetAssignment,
    String memberState,
    ByteString metadata,
    ByteString assignmentBytes) {

  /** A consumer-protocol member. */
  public MemberDescription(
      String memberId,
      String instanceId,
      String rackId,
      int memberEpoch,
      String clientId,
      String clientHost,
      List<String> subscribedTopicNames,
      String subscribedTopicRegex,
      Set<TopicPartition> assignment,
      Set<TopicPartition> targetAssignment,
      String memberState) {
    this(
        memberId,
        instanceId,
        rackId,
        memberEpoch,
        clientId,
        clientHost,
        subscribedTopicNames,
        subscribedTopicRegex,
        assignment,
        targetAssignment,
        memberState,
        ByteString.EMPTY,
        ByteString.EMPTY);
  }
}
