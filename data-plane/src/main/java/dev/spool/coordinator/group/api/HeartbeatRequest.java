package dev.spool.coordinator.group.api;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Set;

/**
 * One ConsumerGroupHeartbeat (KIP-848). Null fields mean "unchanged since the last heartbeat", as
 * Kafka's; a member sends them all when it joins (member epoch 0).
 *
 * @param memberId chosen by the client and kept across rejoins; empty on a join = the coordinator
 *     chooses one
 * @param memberEpoch 0 join, -1 leave, -2 leave for now (a static member keeps its partitions until
 *     its session times out), else the member's current epoch
 * @param subscribedTopicNames topic names (null = unchanged)
 * @param subscribedTopicRegex a java.util.regex matched against whole topic names (null =
 *     unchanged, empty = none)
 * @param serverAssignor "uniform" or "range"; null = unchanged, empty = the broker's default
 * @param owned the partitions the member owns now (null = unknown/unchanged)
 * @param clientId and {@code clientHost}: from the connection, for describe
 */
public record HeartbeatRequest(
    String groupId,
    String memberId,
    int memberEpoch,
    String instanceId,
    String rackId,
    Integer rebalanceTimeoutMs,
    List<String> subscribedTopicNames,
    String subscribedTopicRegex,
    String serverAssignor,
    Set<TopicPartition> owned,
    String clientId,
    String clientHost) {

  public static final int JOIN_EPOCH = 0;
  public static final int LEAVE_EPOCH = -1;
  public static final int STATIC_LEAVE_EPOCH = -2;
}
