package dev.spool.broker.request;

import dev.spool.broker.security.Authorizer;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.Classic;
import dev.spool.coordinator.group.api.CoordinatorLocation;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.GroupResult;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.OffsetDeleteResult;
import dev.spool.coordinator.group.api.OffsetFetchRequest;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.coordinator.group.api.PartitionResult;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The group coordinator as both listeners reach it, each call checked against the ACLs first
 * (docs/security.md#acls), as Kafka's KafkaApis checks them: READ on the group to join, sync,
 * heartbeat, leave and commit (and READ on each committed topic), DESCRIBE on the group to find its
 * coordinator, describe it and fetch its offsets (offsets of topics the caller may not DESCRIBE are
 * left out), DELETE on the group to delete it or its offsets (and READ on each topic), and
 * ListGroups answers only the groups the caller may DESCRIBE unless it may DESCRIBE the cluster.
 * Refusals are GROUP_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_FAILED per partition.
 *
 * <p>Threads: stateless; any thread (the coordinator's calls are).
 */
public final class AuthorizedGroups {
  private final GroupCoordinator coordinator;
  private final Authorizer authorizer;

  public AuthorizedGroups(GroupCoordinator coordinator, Authorizer authorizer) {
    this.coordinator = coordinator;
    this.authorizer = authorizer;
  }

  private boolean group(Caller c, AclOperation op, String groupId) {
    return authorizer.authorize(c, op, AclResourceType.GROUP, groupId);
  }

  private boolean topic(Caller c, AclOperation op, String topic) {
    return authorizer.authorize(c, op, AclResourceType.TOPIC, topic);
  }

  private static String refusal(Caller c, AclOperation op, String groupId) {
    return c.principal() + " is not authorized to " + op + " group '" + groupId + "'";
  }

  private static final ErrorCode GROUP = ErrorCode.GROUP_AUTHORIZATION_FAILED;

  private static <T> CompletableFuture<T> done(T t) {
    return CompletableFuture.completedFuture(t);
  }

  public List<CoordinatorLocation> findCoordinators(List<String> groupIds, Caller c) {
    List<String> allowed = new ArrayList<>();
    for (String g : groupIds) {
      if (g == null || g.isEmpty() || group(c, AclOperation.DESCRIBE, g)) {
        allowed.add(g);
      }
    }
    List<CoordinatorLocation> found =
        allowed.isEmpty() ? List.of() : coordinator.findCoordinators(allowed);
    List<CoordinatorLocation> out = new ArrayList<>(groupIds.size());
    int next = 0;
    for (String g : groupIds) {
      if (next < allowed.size() && allowed.get(next) == g) {
        out.add(found.get(next++));
      } else {
        out.add(
            new CoordinatorLocation(g, GROUP, refusal(c, AclOperation.DESCRIBE, g), -1, "", -1));
      }
    }
    return out;
  }

  public CompletableFuture<HeartbeatResult> heartbeat(HeartbeatRequest r, Caller c) {
    return group(c, AclOperation.READ, r.groupId())
        ? coordinator.heartbeat(r)
        : done(HeartbeatResult.error(GROUP, refusal(c, AclOperation.READ, r.groupId())));
  }

  public CompletableFuture<Classic.JoinResult> joinGroup(Classic.JoinRequest r, Caller c) {
    return group(c, AclOperation.READ, r.groupId())
        ? coordinator.joinGroup(r)
        : done(
            Classic.JoinResult.error(
                GROUP, refusal(c, AclOperation.READ, r.groupId()), r.memberId()));
  }

  public CompletableFuture<Classic.SyncResult> syncGroup(Classic.SyncRequest r, Caller c) {
    return group(c, AclOperation.READ, r.groupId())
        ? coordinator.syncGroup(r)
        : done(Classic.SyncResult.error(GROUP, refusal(c, AclOperation.READ, r.groupId())));
  }

  public CompletableFuture<GroupResult> classicHeartbeat(Classic.HeartbeatRequest r, Caller c) {
    return group(c, AclOperation.READ, r.groupId())
        ? coordinator.classicHeartbeat(r)
        : done(new GroupResult(r.groupId(), GROUP, refusal(c, AclOperation.READ, r.groupId())));
  }

  public CompletableFuture<Classic.LeaveResult> leaveGroup(
      String groupId, List<Classic.LeaveMember> members, Caller c) {
    return group(c, AclOperation.READ, groupId)
        ? coordinator.leaveGroup(groupId, members)
        : done(new Classic.LeaveResult(GROUP, refusal(c, AclOperation.READ, groupId), List.of()));
  }

  /** READ on the group, then READ on each partition's topic; refused partitions are not written. */
  public CompletableFuture<Map<TopicPartition, PartitionResult>> commitOffsets(
      OffsetCommitRequest r, Caller c) {
    Map<TopicPartition, PartitionResult> refused = new LinkedHashMap<>();
    if (!group(c, AclOperation.READ, r.groupId())) {
      PartitionResult no = new PartitionResult(GROUP, refusal(c, AclOperation.READ, r.groupId()));
      r.offsets().keySet().forEach(tp -> refused.put(tp, no));
      return done(refused);
    }
    Map<TopicPartition, OffsetAndMetadata> allowed = new LinkedHashMap<>();
    Map<String, Boolean> readable = new LinkedHashMap<>();
    r.offsets()
        .forEach(
            (tp, o) -> {
              if (readable.computeIfAbsent(tp.topic(), t -> topic(c, AclOperation.READ, t))) {
                allowed.put(tp, o);
              } else {
                refused.put(
                    tp,
                    new PartitionResult(
                        Authz.TOPIC, Authz.topicRefusal(c, AclOperation.READ, tp.topic())));
              }
            });
    if (refused.isEmpty()) {
      return coordinator.commitOffsets(r);
    }
    CompletableFuture<Map<TopicPartition, PartitionResult>> written =
        allowed.isEmpty()
            ? done(Map.of())
            : coordinator.commitOffsets(
                new OffsetCommitRequest(
                    r.groupId(), r.memberId(), r.memberEpoch(), allowed, r.instanceId()));
    return written.thenApply(
        w -> {
          Map<TopicPartition, PartitionResult> out = new LinkedHashMap<>();
          r.offsets().keySet().forEach(tp -> out.put(tp, w.getOrDefault(tp, refused.get(tp))));
          return out;
        });
  }

  public CompletableFuture<OffsetFetchResult> fetchOffsets(OffsetFetchRequest r, Caller c) {
    if (!group(c, AclOperation.DESCRIBE, r.groupId())) {
      return done(OffsetFetchResult.error(GROUP, refusal(c, AclOperation.DESCRIBE, r.groupId())));
    }
    if (!authorizer.enabled()) {
      return coordinator.fetchOffsets(r);
    }
    return coordinator
        .fetchOffsets(r)
        .thenApply(
            res -> {
              Map<TopicPartition, OffsetAndMetadata> visible = new LinkedHashMap<>();
              Map<String, Boolean> describable = new LinkedHashMap<>();
              res.offsets()
                  .forEach(
                      (tp, o) -> {
                        if (describable.computeIfAbsent(
                            tp.topic(), t -> topic(c, AclOperation.DESCRIBE, t))) {
                          visible.put(tp, o);
                        }
                      });
              return new OffsetFetchResult(res.error(), res.message(), visible);
            });
  }

  public CompletableFuture<GroupDescription> describeGroup(String groupId, Caller c) {
    return group(c, AclOperation.DESCRIBE, groupId)
        ? coordinator.describeGroup(groupId)
        : done(GroupDescription.error(groupId, GROUP, refusal(c, AclOperation.DESCRIBE, groupId)));
  }

  public CompletableFuture<GroupResult> deleteGroup(String groupId, Caller c) {
    return group(c, AclOperation.DELETE, groupId)
        ? coordinator.deleteGroup(groupId)
        : done(new GroupResult(groupId, GROUP, refusal(c, AclOperation.DELETE, groupId)));
  }

  /** DELETE on the group and READ on every partition's topic, all or nothing. */
  public CompletableFuture<OffsetDeleteResult> deleteOffsets(
      String groupId, List<TopicPartition> partitions, Caller c) {
    if (!group(c, AclOperation.DELETE, groupId)) {
      return done(
          new OffsetDeleteResult(GROUP, refusal(c, AclOperation.DELETE, groupId), Map.of()));
    }
    for (TopicPartition tp : partitions) {
      if (!topic(c, AclOperation.READ, tp.topic())) {
        Map<TopicPartition, PartitionResult> out = new LinkedHashMap<>();
        partitions.forEach(
            p ->
                out.put(
                    p,
                    new PartitionResult(
                        Authz.TOPIC, Authz.topicRefusal(c, AclOperation.READ, tp.topic()))));
        return done(new OffsetDeleteResult(ErrorCode.NONE, "", out));
      }
    }
    return coordinator.deleteOffsets(groupId, partitions);
  }

  public CompletableFuture<GroupCoordinator.Listing> listGroups(List<String> states, Caller c) {
    if (!authorizer.enabled() || authorizer.authorizeCluster(c, AclOperation.DESCRIBE)) {
      return coordinator.listGroups(states);
    }
    return coordinator
        .listGroups(states)
        .thenApply(
            l ->
                new GroupCoordinator.Listing(
                    l.error(),
                    l.message(),
                    l.groups().stream()
                        .filter(g -> group(c, AclOperation.DESCRIBE, g.groupId()))
                        .toList()));
  }
}
