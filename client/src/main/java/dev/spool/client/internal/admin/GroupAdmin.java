package dev.spool.client.internal.admin;

import dev.spool.client.ConsumerGroupDescription;
import dev.spool.client.ConsumerGroupListing;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.client.internal.ClientContext;
import dev.spool.client.internal.consumer.CoordinatorClient;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.DeleteGroupsRequest;
import dev.spool.protocol.message.DeleteGroupsResponse;
import dev.spool.protocol.message.DescribeGroupsRequest;
import dev.spool.protocol.message.DescribeGroupsResponse;
import dev.spool.protocol.message.ListGroupsRequest;
import dev.spool.protocol.message.ListGroupsResponse;
import dev.spool.protocol.message.OffsetDeleteRequest;
import dev.spool.protocol.message.OffsetDeleteResponse;
import dev.spool.protocol.message.TopicPartitions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The admin side of consumer groups: ListGroups to every broker (each lists the groups it
 * coordinates), the rest to the group's coordinator through {@link CoordinatorClient} (found and
 * retried as a consumer does). Thread-safe; futures complete on the I/O thread.
 */
public final class GroupAdmin {
  private final ClientContext context;
  private final long defaultApiTimeoutMs;
  private final long requestTimeoutMs;

  public GroupAdmin(ClientContext context, long defaultApiTimeoutMs, long requestTimeoutMs) {
    this.context = context;
    this.defaultApiTimeoutMs = defaultApiTimeoutMs;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  private CoordinatorClient coordinator(String groupId) {
    if (groupId == null || groupId.isEmpty()) {
      throw new SpoolException(ErrorCode.INVALID_GROUP_ID, "the group id is empty");
    }
    return new CoordinatorClient(
        groupId,
        context.metadata(),
        context.network(),
        context.clock(),
        context.retryBackoff(),
        requestTimeoutMs);
  }

  private long deadline() {
    return context.clock().monotonicMs() + defaultApiTimeoutMs;
  }

  /** Every group of the brokers {@code brokers}, sorted by id. */
  public CompletableFuture<List<ConsumerGroupListing>> list(Collection<Node> brokers) {
    List<CompletableFuture<List<ConsumerGroupListing>>> parts = new ArrayList<>();
    for (Node b : brokers) {
      parts.add(
          context
              .network()
              .send(b, ApiKey.LIST_GROUPS, ListGroupsRequest.getDefaultInstance(), requestTimeoutMs)
              .thenApply(
                  response -> {
                    try (ClientResponse r = response) {
                      ListGroupsResponse l = r.body(ListGroupsResponse.class);
                      if (l.getErrorCode() != ErrorCode.NONE) {
                        throw new SpoolException(
                            l.getErrorCode(), l.getErrorMessage() + " (broker " + b.id() + ")");
                      }
                      List<ConsumerGroupListing> out = new ArrayList<>();
                      l.getGroupsList()
                          .forEach(
                              g -> out.add(new ConsumerGroupListing(g.getGroupId(), g.getState())));
                      return out;
                    }
                  }));
    }
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]))
        .thenApply(
            v -> {
              Map<String, ConsumerGroupListing> all = new TreeMap<>();
              parts.forEach(p -> p.join().forEach(g -> all.put(g.groupId(), g)));
              return List.copyOf(all.values());
            });
  }

  public CompletableFuture<ConsumerGroupDescription> describe(String groupId) {
    return coordinator(groupId)
        .call(
            ApiKey.DESCRIBE_GROUPS,
            DescribeGroupsRequest.newBuilder().addGroupIds(groupId).build(),
            deadline(),
            r -> {
              DescribeGroupsResponse.Group g = r.body(DescribeGroupsResponse.class).getGroups(0);
              if (g.getErrorCode() != ErrorCode.NONE) {
                throw new SpoolException(g.getErrorCode(), g.getErrorMessage());
              }
              List<ConsumerGroupDescription.Member> members = new ArrayList<>();
              for (DescribeGroupsResponse.Member m : g.getMembersList()) {
                members.add(
                    new ConsumerGroupDescription.Member(
                        m.getMemberId(),
                        m.getInstanceId(),
                        m.getClientId(),
                        m.getClientHost(),
                        m.getMemberEpoch(),
                        toSet(m.getAssignmentList()),
                        toSet(m.getTargetAssignmentList()),
                        m.getMemberState()));
              }
              return new ConsumerGroupDescription(
                  g.getGroupId(),
                  g.getState(),
                  g.getGroupEpoch(),
                  g.getAssignmentEpoch(),
                  g.getAssignorName(),
                  members);
            });
  }

  /** Every committed offset of the group. */
  public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> offsets(String groupId) {
    return coordinator(groupId).fetch(List.of(), "", -1, deadline());
  }

  /** Commits from outside the group (refused with NON_EMPTY_GROUP while it has members). */
  public CompletableFuture<Void> alterOffsets(
      String groupId, Map<TopicPartition, OffsetAndMetadata> offsets) {
    return coordinator(groupId)
        .commit(offsets, "", -1, deadline())
        .thenApply(
            results -> {
              for (SpoolException e : results.values()) {
                if (e != null) {
                  throw e;
                }
              }
              return null;
            });
  }

  public CompletableFuture<Void> deleteOffsets(
      String groupId, Collection<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    partitions.forEach(
        tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    OffsetDeleteRequest.Builder b = OffsetDeleteRequest.newBuilder().setGroupId(groupId);
    byTopic.forEach(
        (t, ps) -> b.addTopics(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps)));
    return coordinator(groupId)
        .call(
            ApiKey.OFFSET_DELETE,
            b.build(),
            deadline(),
            r -> {
              OffsetDeleteResponse d = r.body(OffsetDeleteResponse.class);
              if (d.getErrorCode() != ErrorCode.NONE) {
                throw new SpoolException(d.getErrorCode(), d.getErrorMessage());
              }
              for (OffsetDeleteResponse.Topic t : d.getTopicsList()) {
                for (OffsetDeleteResponse.Partition p : t.getPartitionsList()) {
                  if (p.getErrorCode() != ErrorCode.NONE) {
                    throw new SpoolException(p.getErrorCode(), p.getErrorMessage());
                  }
                }
              }
              return null;
            });
  }

  /** Deletes the group and its offsets (refused with NON_EMPTY_GROUP while it has members). */
  public CompletableFuture<Void> delete(String groupId) {
    return coordinator(groupId)
        .call(
            ApiKey.DELETE_GROUPS,
            DeleteGroupsRequest.newBuilder().addGroupIds(groupId).build(),
            deadline(),
            r -> {
              DeleteGroupsResponse.Result res = r.body(DeleteGroupsResponse.class).getResults(0);
              if (res.getErrorCode() != ErrorCode.NONE) {
                throw new SpoolException(res.getErrorCode(), res.getErrorMessage());
              }
              return null;
            });
  }

  private static Set<TopicPartition> toSet(List<TopicPartitions> list) {
    Set<TopicPartition> out = new HashSet<>();
    list.forEach(
        t -> t.getPartitionsList().forEach(p -> out.add(new TopicPartition(t.getTopic(), p))));
    return out;
  }
}
