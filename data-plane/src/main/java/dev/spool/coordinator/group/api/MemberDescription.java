package dev.spool.coordinator.group.api;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Set;

/**
 * One member as DescribeGroups shows it: {@code assignment} is what it owns now (assigned and not
 * pending revocation), {@code targetAssignment} what it will own once reconciled.
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
    String memberState) {}
