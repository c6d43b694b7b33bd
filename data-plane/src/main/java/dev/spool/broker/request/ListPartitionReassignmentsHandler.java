package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * ListPartitionReassignments, answered from this broker's metadata image (it lags the quorum by at
 * most one heartbeat): the partitions being reassigned, sorted, and the cluster's replication
 * throttle. Partitions asked for that do not exist or are not moving are left out, as Kafka's.
 * Netty thread.
 */
public final class ListPartitionReassignmentsHandler
    extends MessageHandler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse> {
  private final BrokerContext ctx;

  public ListPartitionReassignmentsHandler(BrokerContext ctx) {
    super(ListPartitionReassignmentsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<ListPartitionReassignmentsResponse> call(
      ListPartitionReassignmentsRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.DESCRIBE)) {
      return CompletableFuture.completedFuture(
          ListPartitionReassignmentsResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.DESCRIBE))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<ListPartitionReassignmentsResponse> call(
      ListPartitionReassignmentsRequest req) {
    return CompletableFuture.completedFuture(answer(req, ctx.image()));
  }

  static ListPartitionReassignmentsResponse answer(
      ListPartitionReassignmentsRequest req, MetadataImage img) {
    Set<PartitionState> moving = new LinkedHashSet<>();
    if (req.getPartitionsCount() == 0) {
      for (PartitionState p : img.allPartitions()) {
        if (p.isReassigning()) {
          moving.add(p);
        }
      }
    } else {
      for (TopicPartitions tps : req.getPartitionsList()) {
        for (int partition : tps.getPartitionsList()) {
          TopicPartition tp = BrokerContext.tpOrNull(tps.getTopic(), partition);
          PartitionState p = tp == null ? null : img.partition(tp); // no such partition: not moving
          if (p != null && p.isReassigning()) {
            moving.add(p);
          }
        }
      }
    }
    List<PartitionState> sorted = new ArrayList<>(moving);
    sorted.sort(Comparator.comparing(PartitionState::topicPartition));
    ListPartitionReassignmentsResponse.Builder b =
        ListPartitionReassignmentsResponse.newBuilder()
            .setThrottleBytesPerSec(img.replicationThrottleBytesPerSec());
    for (PartitionState p : sorted) {
      b.addPartitions(
          ListPartitionReassignmentsResponse.Reassignment.newBuilder()
              .setTopic(p.topic())
              .setPartition(p.partition())
              .addAllReplicas(p.replicas())
              .addAllAddingReplicas(p.addingReplicas())
              .addAllRemovingReplicas(p.removingReplicas())
              .addAllIsr(p.isr())
              .setLeader(p.leader()));
    }
    return b.build();
  }
}
