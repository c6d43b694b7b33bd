package dev.spool.coordinator.group.runtime;

import dev.spool.broker.replication.Partition;
import dev.spool.broker.replication.ReplicaManager;
import dev.spool.broker.replication.ReplicaObserver;
import dev.spool.broker.replication.ReplicaRole;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.Classic;
import dev.spool.coordinator.group.api.CoordinatorLocation;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.GroupListing;
import dev.spool.coordinator.group.api.GroupResult;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.OffsetDeleteResult;
import dev.spool.coordinator.group.api.OffsetFetchRequest;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.coordinator.group.api.PartitionResult;
import dev.spool.coordinator.group.core.GroupShard;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import io.netty.util.Timer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's group coordinator, Kafka's design: group state and committed offsets live in the
 * internal topic {@code __consumer_offsets}; the coordinator of a group is the leader of its
 * partition ({@link OffsetsTopic#partitionFor}); a broker loads a partition's groups when it
 * becomes its leader and drops them when it stops ({@link ReplicaObserver}). This class is the
 * protocol-neutral entry point: requests and results are plain Java values (package {@code
 * dev.spool.coordinator.group.api}), errors are {@link ErrorCode}s, so Spool's handlers and a
 * Kafka-protocol listener share it.
 *
 * <p>Threading: the API is called from any thread and returns futures; each request runs on the
 * owner worker of its group's offsets partition, where that partition's {@link ShardRuntime} lives,
 * and its future completes there once the answer may be given (docs/threads.md).
 */
public final class GroupCoordinator implements ReplicaObserver {
  private static final Logger log = LoggerFactory.getLogger(GroupCoordinator.class);

  /**
   * Creates the offsets topic through the quorum (CreateTopics with the coordinator's settings).
   */
  public interface TopicCreator {
    CompletableFuture<Void> create(
        String name, int partitions, int replicationFactor, Map<String, String> configs);
  }

  private final int brokerId;
  private final CoordinatorConfig config;
  private final ReplicaManager replicas;
  private final Timer timer;
  private final Clock clock;
  private final TopicCreator topicCreator;
  private final ConcurrentHashMap<TopicPartition, ShardRuntime> shards = new ConcurrentHashMap<>();
  private final AtomicReference<CompletableFuture<Void>> creating = new AtomicReference<>();

  public GroupCoordinator(
      int brokerId,
      CoordinatorConfig config,
      ReplicaManager replicas,
      Timer timer,
      Clock clock,
      TopicCreator topicCreator) {
    this.brokerId = brokerId;
    this.config = config;
    this.replicas = replicas;
    this.timer = timer;
    this.clock = clock;
    this.topicCreator = topicCreator;
  }

  public CoordinatorConfig config() {
    return config;
  }

  /** The offsets partition of {@code groupId} by the topic's actual partition count. */
  public TopicPartition partitionFor(String groupId) {
    TopicImage t = replicas.image().topic(OffsetsTopic.NAME);
    int n = t == null ? config.offsetsTopicPartitions() : t.partitions().size();
    return new TopicPartition(OffsetsTopic.NAME, OffsetsTopic.partitionFor(groupId, n));
  }

  // ---------------------------------------------------------------- FindCoordinator

  /**
   * Where each group's coordinator is. Creates the offsets topic on first use (answering
   * COORDINATOR_NOT_AVAILABLE meanwhile, which clients retry).
   */
  public List<CoordinatorLocation> findCoordinators(List<String> groupIds) {
    MetadataImage img = replicas.image();
    TopicImage topic = img.topic(OffsetsTopic.NAME);
    if (topic == null) {
      ensureTopic(img);
    }
    List<CoordinatorLocation> out = new ArrayList<>();
    for (String g : groupIds) {
      if (g == null || g.isEmpty()) {
        out.add(
            new CoordinatorLocation(
                "", ErrorCode.INVALID_GROUP_ID, "the group id is empty", -1, "", -1));
        continue;
      }
      if (topic == null) {
        out.add(
            new CoordinatorLocation(
                g,
                ErrorCode.COORDINATOR_NOT_AVAILABLE,
                OffsetsTopic.NAME + " is being created",
                -1,
                "",
                -1));
        continue;
      }
      int p = OffsetsTopic.partitionFor(g, topic.partitions().size());
      PartitionState st = topic.partition(p);
      BrokerRegistration leader = st == null || !st.hasLeader() ? null : img.broker(st.leader());
      if (leader != null && leader.id() == brokerId && !replicas.leaseHeld()) {
        // This broker's metadata may be stale (another broker may lead the partition by now) and
        // it refuses to coordinate anyway: the client asks again, ideally elsewhere.
        out.add(
            new CoordinatorLocation(
                g,
                ErrorCode.COORDINATOR_NOT_AVAILABLE,
                "broker "
                    + brokerId
                    + " has lost its leadership lease (no word from the active controller), so it"
                    + " coordinates no group now",
                -1,
                "",
                -1));
      } else if (leader == null) {
        out.add(
            new CoordinatorLocation(
                g,
                ErrorCode.COORDINATOR_NOT_AVAILABLE,
                OffsetsTopic.NAME + "-" + p + " has no leader now",
                -1,
                "",
                -1));
      } else {
        out.add(
            new CoordinatorLocation(
                g, ErrorCode.NONE, "", leader.id(), leader.host(), leader.port()));
      }
    }
    return out;
  }

  private void ensureTopic(MetadataImage img) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    if (!creating.compareAndSet(null, mine)) {
      return;
    }
    int live = Math.max(1, img.liveBrokers().size());
    int rf = Math.min(config.offsetsTopicReplicationFactor(), live);
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put("segment.bytes", Integer.toString(config.offsetsTopicSegmentBytes()));
    if (dev.spool.config.TopicConfig.DEF.keys().stream()
        .anyMatch(k -> k.name().equals("cleanup.policy"))) {
      configs.put("cleanup.policy", "compact");
    }
    log.info(
        "[node={}] creating {} with {} partitions, replication factor {}",
        brokerId,
        OffsetsTopic.NAME,
        config.offsetsTopicPartitions(),
        rf);
    topicCreator
        .create(OffsetsTopic.NAME, config.offsetsTopicPartitions(), rf, configs)
        .whenComplete(
            (v, err) -> {
              if (err != null) {
                log.warn(
                    "[node={}] creating {} failed: {}",
                    brokerId,
                    OffsetsTopic.NAME,
                    err.toString());
              }
              creating.set(null);
              mine.complete(null);
            });
  }

  // ---------------------------------------------------------------- group operations

  public CompletableFuture<HeartbeatResult> heartbeat(HeartbeatRequest r) {
    return onShard(
        r.groupId(),
        s -> s.heartbeat(r),
        e -> HeartbeatResult.error(e.errorCode(), e.getMessage()));
  }

  // ---------------------------------------------------------------- classic groups

  /** A JoinGroup; answered when the join phase ends (or at once when refused). */
  public CompletableFuture<Classic.JoinResult> joinGroup(Classic.JoinRequest r) {
    String memberId = r.memberId() == null ? "" : r.memberId();
    return held(
        r.groupId(),
        s -> s.classic().join(r),
        e -> Classic.JoinResult.error(e.errorCode(), e.getMessage(), memberId));
  }

  /** A SyncGroup; a follower's is answered once the leader's assignment is committed. */
  public CompletableFuture<Classic.SyncResult> syncGroup(Classic.SyncRequest r) {
    return held(
        r.groupId(),
        s -> s.classic().sync(r),
        e -> Classic.SyncResult.error(e.errorCode(), e.getMessage()));
  }

  public CompletableFuture<GroupResult> classicHeartbeat(Classic.HeartbeatRequest r) {
    return onShard(
        r.groupId(),
        s -> s.classic().heartbeat(r),
        e -> new GroupResult(r.groupId(), e.errorCode(), e.getMessage()));
  }

  public CompletableFuture<Classic.LeaveResult> leaveGroup(
      String groupId, List<Classic.LeaveMember> members) {
    return onShard(
        groupId,
        s -> s.classic().leave(groupId, members),
        e -> new Classic.LeaveResult(e.errorCode(), e.getMessage(), List.of()));
  }

  /** An operation whose answer the shard may hold back: a failure of either step is an answer. */
  private <T> CompletableFuture<T> held(
      String groupId,
      Function<GroupShard, CompletableFuture<T>> op,
      Function<SpoolException, T> onError) {
    return onShard(groupId, op, e -> CompletableFuture.completedFuture(onError.apply(e)))
        .thenCompose(f -> f)
        .exceptionally(t -> onError.apply(ShardRuntime.asSpool(t)));
  }

  public CompletableFuture<Map<TopicPartition, PartitionResult>> commitOffsets(
      OffsetCommitRequest r) {
    return onShard(
        r.groupId(),
        s -> s.offsets().commit(r, clock.nowMs()),
        e -> {
          Map<TopicPartition, PartitionResult> out = new LinkedHashMap<>();
          r.offsets()
              .keySet()
              .forEach(tp -> out.put(tp, new PartitionResult(e.errorCode(), e.getMessage())));
          return out;
        });
  }

  public CompletableFuture<OffsetFetchResult> fetchOffsets(OffsetFetchRequest r) {
    return onShard(
        r.groupId(),
        s -> s.offsets().fetch(r),
        e -> OffsetFetchResult.error(e.errorCode(), e.getMessage()));
  }

  public CompletableFuture<GroupDescription> describeGroup(String groupId) {
    return onShard(
        groupId,
        s -> s.offsets().describe(groupId),
        e -> GroupDescription.error(groupId, e.errorCode(), e.getMessage()));
  }

  public CompletableFuture<GroupResult> deleteGroup(String groupId) {
    return onShard(
        groupId,
        s -> s.offsets().deleteGroup(groupId),
        e -> new GroupResult(groupId, e.errorCode(), e.getMessage()));
  }

  public CompletableFuture<OffsetDeleteResult> deleteOffsets(
      String groupId, List<TopicPartition> partitions) {
    return onShard(
        groupId,
        s -> s.offsets().deleteOffsets(groupId, partitions),
        e -> new OffsetDeleteResult(e.errorCode(), e.getMessage(), Map.of()));
  }

  /** The result of ListGroups on this broker: groups of every loaded partition it leads. */
  public record Listing(ErrorCode error, String message, List<GroupListing> groups) {}

  public CompletableFuture<Listing> listGroups(List<String> states) {
    List<CompletableFuture<List<GroupListing>>> parts = new ArrayList<>();
    boolean[] loading = {false};
    for (TopicPartition tp : List.copyOf(shards.keySet())) {
      CompletableFuture<List<GroupListing>> f = new CompletableFuture<>();
      boolean queued =
          replicas.executeOnOwner(
              tp,
              () -> {
                ShardRuntime s = shards.get(tp);
                if (s == null) {
                  f.complete(List.of());
                } else {
                  s.run(
                      sh -> sh.offsets().list(states),
                      e -> {
                        synchronized (loading) {
                          loading[0] |= e.errorCode() == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
                        }
                        return List.of();
                      },
                      f);
                }
              });
      if (!queued) {
        f.complete(List.of());
      }
      parts.add(f);
    }
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]))
        .thenApply(
            v -> {
              List<GroupListing> all = new ArrayList<>();
              parts.forEach(p -> all.addAll(p.join()));
              synchronized (loading) {
                return loading[0]
                    ? new Listing(
                        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
                        "some offsets partitions of this broker are still loading",
                        all)
                    : new Listing(ErrorCode.NONE, "", all);
              }
            });
  }

  private <T> CompletableFuture<T> onShard(
      String groupId, Function<GroupShard, T> op, Function<SpoolException, T> onError) {
    CompletableFuture<T> out = new CompletableFuture<>();
    if (groupId == null || groupId.isEmpty()) {
      out.complete(
          onError.apply(new SpoolException(ErrorCode.INVALID_GROUP_ID, "the group id is empty")));
      return out;
    }
    TopicPartition tp = partitionFor(groupId);
    boolean queued =
        replicas.executeOnOwner(
            tp,
            () -> {
              ShardRuntime s = shards.get(tp);
              if (s != null && replicas.leaseHeld()) {
                s.run(op, onError, out);
                return;
              }
              // Cut off from the controller (no lease), this broker may already have been
              // replaced as the leader of the offsets partition: it answers as a non-coordinator,
              // so clients look for the new one rather than wait on writes that cannot commit.
              String why =
                  s == null
                      ? " is not the coordinator of group "
                      : " has lost its leadership lease (no word from the active controller within"
                          + " its session timeout), so it no longer coordinates group ";
              out.complete(
                  onError.apply(
                      new SpoolException(
                          ErrorCode.NOT_COORDINATOR,
                          "broker " + brokerId + why + groupId + " (" + tp + ")")));
            });
    if (!queued) {
      out.complete(
          onError.apply(
              new SpoolException(
                  ErrorCode.COORDINATOR_NOT_AVAILABLE,
                  "the worker of " + tp + " on broker " + brokerId + " is overloaded")));
    }
    return out;
  }

  // ---------------------------------------------------------------- leadership (owner workers)

  @Override
  public void onRoleChanged(Partition partition, ReplicaRole role, int leaderEpoch) {
    TopicPartition tp = partition.topicPartition();
    if (!tp.topic().equals(OffsetsTopic.NAME)) {
      return;
    }
    ShardRuntime s = shards.get(tp);
    if (role == ReplicaRole.LEADER) {
      if (s != null && s.leaderEpoch() == leaderEpoch) {
        return;
      }
      if (s != null) {
        s.close("leader epoch " + leaderEpoch + " replaces " + s.leaderEpoch());
      }
      ShardRuntime fresh =
          new ShardRuntime(
              partition,
              leaderEpoch,
              config,
              task -> replicas.executeOnOwner(tp, task),
              timer,
              clock,
              () -> new ImageTopicsView(replicas.image()),
              brokerId);
      shards.put(tp, fresh);
      fresh.load("became leader in epoch " + leaderEpoch);
    } else if (s != null) {
      shards.remove(tp);
      s.close("now " + role);
    }
  }

  @Override
  public void onHighWatermarkChanged(TopicPartition tp, long highWatermark) {
    if (tp.topic().equals(OffsetsTopic.NAME)) {
      ShardRuntime s = shards.get(tp);
      if (s != null) {
        s.onHighWatermark(highWatermark);
      }
    }
  }

  /** Receives committed offsets; returns false to stop. */
  public interface CommittedOffsetVisitor {
    boolean visit(String groupId, TopicPartition tp, long offset);
  }

  /**
   * Visits the committed offset of every partition of every group this broker coordinates (its
   * loaded shards), until {@code v} returns false. Any thread: reads the shards' published views
   * and never waits for an owner worker (the metrics scrape calls it).
   */
  public void forEachCommittedOffset(CommittedOffsetVisitor v) {
    for (ShardRuntime s : shards.values()) {
      Map<ShardRuntime.GroupPartition, Long> offsets = s.committedOffsets();
      if (offsets == null) {
        continue;
      }
      for (Map.Entry<ShardRuntime.GroupPartition, Long> e : offsets.entrySet()) {
        if (!v.visit(e.getKey().groupId(), e.getKey().tp(), e.getValue())) {
          return;
        }
      }
    }
  }

  /** Whether this broker leads {@code tp} and has loaded it (tests, status). */
  public boolean isLoaded(TopicPartition tp) {
    ShardRuntime s = shards.get(tp);
    return s != null && !s.isLoading();
  }
}
