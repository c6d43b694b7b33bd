package dev.spool.broker.kafka;

import dev.spool.broker.kafka.codec.ClassicGroupCodec;
import dev.spool.broker.kafka.codec.GroupCodec;
import dev.spool.broker.kafka.codec.GroupOffsetsCodec;
import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.network.WireProtocol.Connection;
import dev.spool.broker.request.AuthorizedGroups;
import dev.spool.broker.security.Caller;
import dev.spool.quorum.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The group APIs of the Kafka listener, served by the broker's {@link GroupCoordinator} (the
 * instance Spool's own group handlers call): the codec translates each request into the
 * coordinator's protocol-neutral types and its results back. A request naming several groups
 * (OffsetFetch v8+, ConsumerGroupDescribe, DescribeGroups, DeleteGroups) becomes one coordinator
 * call per group, each on its group's shard, answered together once all are done.
 *
 * <p>Threads: stateless; called on event loops, answers complete on the coordinator's owner
 * workers.
 */
final class KafkaGroupApis {
  private final AuthorizedGroups coordinator;
  private final Supplier<MetadataImage> image;

  KafkaGroupApis(AuthorizedGroups coordinator, Supplier<MetadataImage> image) {
    this.coordinator = coordinator;
    this.image = image;
  }

  CompletableFuture<KafkaResponse> findCoordinator(KafkaRequest r, Caller c) {
    KafkaResponse refused = GroupCodec.findCoordinatorRefusal(r);
    if (refused != null) {
      return CompletableFuture.completedFuture(refused);
    }
    MetadataImage img = image.get();
    return CompletableFuture.completedFuture(
        GroupCodec.findCoordinatorToKafka(
            r, coordinator.findCoordinators(GroupCodec.findCoordinatorKeys(r), c), img));
  }

  CompletableFuture<KafkaResponse> heartbeat(KafkaRequest r, Connection connection, Caller c) {
    return coordinator
        .heartbeat(GroupCodec.heartbeatToSpool(r, image.get(), connection.remoteAddress()), c)
        .thenApply(res -> GroupCodec.heartbeatToKafka(r, res, image.get()));
  }

  CompletableFuture<KafkaResponse> joinGroup(KafkaRequest r, Connection connection, Caller c) {
    return coordinator
        .joinGroup(ClassicGroupCodec.joinToSpool(r, connection.remoteAddress()), c)
        .thenApply(res -> ClassicGroupCodec.joinToKafka(r, res));
  }

  CompletableFuture<KafkaResponse> syncGroup(KafkaRequest r, Caller c) {
    return coordinator
        .syncGroup(ClassicGroupCodec.syncToSpool(r), c)
        .thenApply(res -> ClassicGroupCodec.syncToKafka(r, res));
  }

  CompletableFuture<KafkaResponse> classicHeartbeat(KafkaRequest r, Caller c) {
    return coordinator
        .classicHeartbeat(ClassicGroupCodec.heartbeatToSpool(r), c)
        .thenApply(res -> ClassicGroupCodec.heartbeatToKafka(r, res));
  }

  CompletableFuture<KafkaResponse> leaveGroup(KafkaRequest r, Caller c) {
    return coordinator
        .leaveGroup(ClassicGroupCodec.leaveGroupId(r), ClassicGroupCodec.leaveToSpool(r), c)
        .thenApply(res -> ClassicGroupCodec.leaveToKafka(r, res));
  }

  CompletableFuture<KafkaResponse> offsetCommit(KafkaRequest r, Caller c) {
    GroupOffsetsCodec.CommitCall call = GroupOffsetsCodec.offsetCommitToSpool(r, image.get());
    return coordinator
        .commitOffsets(call.request(), c)
        .thenApply(res -> GroupOffsetsCodec.offsetCommitToKafka(r, call, res));
  }

  CompletableFuture<KafkaResponse> offsetFetch(KafkaRequest r, Caller c) {
    List<GroupOffsetsCodec.FetchGroup> groups =
        GroupOffsetsCodec.offsetFetchToSpool(r, image.get());
    return all(groups, g -> coordinator.fetchOffsets(g.request(), c))
        .thenApply(res -> GroupOffsetsCodec.offsetFetchToKafka(r, groups, res, image.get()));
  }

  CompletableFuture<KafkaResponse> offsetDelete(KafkaRequest r, Caller c) {
    GroupOffsetsCodec.DeleteCall call = GroupOffsetsCodec.offsetDeleteToSpool(r);
    return coordinator
        .deleteOffsets(call.groupId(), call.partitions(), c)
        .thenApply(res -> GroupOffsetsCodec.offsetDeleteToKafka(r, res));
  }

  CompletableFuture<KafkaResponse> consumerGroupDescribe(KafkaRequest r, Caller c) {
    return all(GroupCodec.consumerGroupDescribeIds(r), id -> coordinator.describeGroup(id, c))
        .thenApply(res -> GroupCodec.consumerGroupDescribeToKafka(r, res, image.get()));
  }

  CompletableFuture<KafkaResponse> describeGroups(KafkaRequest r, Caller c) {
    return all(GroupCodec.describeGroupsIds(r), id -> coordinator.describeGroup(id, c))
        .thenApply(res -> GroupCodec.describeGroupsToKafka(r, res));
  }

  CompletableFuture<KafkaResponse> deleteGroups(KafkaRequest r, Caller c) {
    return all(GroupCodec.deleteGroupsIds(r), id -> coordinator.deleteGroup(id, c))
        .thenApply(res -> GroupCodec.deleteGroupsToKafka(r, res));
  }

  CompletableFuture<KafkaResponse> listGroups(KafkaRequest r, Caller c) {
    return coordinator
        .listGroups(GroupCodec.listGroupsStates(r), c)
        .thenApply(l -> GroupCodec.listGroupsToKafka(r, l.error(), l.groups()));
  }

  /** One coordinator call per item, the results in the items' order. */
  private static <I, T> CompletableFuture<List<T>> all(
      List<I> items, Function<I, CompletableFuture<T>> call) {
    List<CompletableFuture<T>> calls = new ArrayList<>(items.size());
    for (I item : items) {
      calls.add(call.apply(item));
    }
    return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            v -> {
              List<T> out = new ArrayList<>(calls.size());
              calls.forEach(c -> out.add(c.join()));
              return out;
            });
  }
}
