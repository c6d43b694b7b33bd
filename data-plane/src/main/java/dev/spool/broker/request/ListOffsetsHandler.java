package dev.spool.broker.request;

import dev.spool.broker.replication.ExceptionCodes;
import dev.spool.broker.replication.ListOffsetResult;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * ListOffsets on the partition leader: -2 earliest (log start), -1 latest (the high watermark for
 * consumers, the log end for replicas), else the first offset whose timestamp is at or after the
 * one asked, searched only below the high watermark for consumers. current_leader_epoch fences
 * stale leaders and clients. Netty thread; the lookup runs on the owner worker.
 */
public final class ListOffsetsHandler
    extends MessageHandler<ListOffsetsRequest, ListOffsetsResponse> {
  private final BrokerContext ctx;

  public ListOffsetsHandler(BrokerContext ctx) {
    super(ListOffsetsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<ListOffsetsResponse> call(ListOffsetsRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            ListOffsetsRequest.Topic::getName,
            t -> Authz.topic(ctx, caller, AclOperation.DESCRIBE, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<ListOffsetsResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(ListOffsetsResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          ListOffsetsResponse.Builder b = r.toBuilder();
          for (ListOffsetsRequest.Topic t : split.refused()) {
            ListOffsetsResponse.Topic.Builder tb =
                ListOffsetsResponse.Topic.newBuilder().setName(t.getName());
            for (var p :
                t.getPartitionsList().stream()
                    .map(ListOffsetsRequest.Partition::getPartition)
                    .toList()) {
              tb.addPartitions(
                  ListOffsetsResponse.Partition.newBuilder()
                      .setPartition(p)
                      .setErrorCode(Authz.TOPIC)
                      .setErrorMessage(
                          Authz.topicRefusal(caller, AclOperation.DESCRIBE, t.getName())));
            }
            b.addTopics(tb);
          }
          return b.build();
        });
  }

  @Override
  public CompletableFuture<ListOffsetsResponse> call(ListOffsetsRequest req) {
    boolean consumer = req.getReplicaId() < 0;
    List<CompletableFuture<ListOffsetsResponse.Topic>> topics = new ArrayList<>();
    for (ListOffsetsRequest.Topic t : req.getTopicsList()) {
      List<CompletableFuture<ListOffsetsResponse.Partition>> parts = new ArrayList<>();
      for (ListOffsetsRequest.Partition p : t.getPartitionsList()) {
        parts.add(one(t.getName(), p, consumer));
      }
      topics.add(
          Futures.all(parts)
              .thenApply(
                  list ->
                      ListOffsetsResponse.Topic.newBuilder()
                          .setName(t.getName())
                          .addAllPartitions(list)
                          .build()));
    }
    return Futures.all(topics)
        .thenApply(list -> ListOffsetsResponse.newBuilder().addAllTopics(list).build());
  }

  private CompletableFuture<ListOffsetsResponse.Partition> one(
      String topic, ListOffsetsRequest.Partition p, boolean consumer) {
    TopicPartition tp = BrokerContext.tpOrNull(topic, p.getPartition());
    ListOffsetsResponse.Partition.Builder b =
        ListOffsetsResponse.Partition.newBuilder()
            .setPartition(p.getPartition())
            .setTimestamp(-1)
            .setOffset(-1)
            .setLeaderEpoch(-1);
    if (tp == null || ctx.image().partition(tp) == null) {
      return CompletableFuture.completedFuture(
          b.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
              .setErrorMessage("partition " + topic + "-" + p.getPartition() + " does not exist")
              .build());
    }
    return ctx.replicas()
        .onPartition(
            tp,
            part -> part.listOffset(p.getTimestamp(), p.getCurrentLeaderEpoch(), consumer),
            () ->
                new ListOffsetResult(
                    ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    "broker " + ctx.brokerId() + " has no replica of " + tp,
                    -1,
                    -1,
                    -1,
                    null))
        .handle(
            (r, err) -> {
              if (err != null) {
                return b.setErrorCode(ExceptionCodes.of(err))
                    .setErrorMessage(String.valueOf(err))
                    .build();
              }
              b.setErrorCode(r.error())
                  .setErrorMessage(r.message())
                  .setTimestamp(r.timestamp())
                  .setOffset(r.offset())
                  .setLeaderEpoch(r.leaderEpoch());
              if (r.error() == ErrorCode.NOT_LEADER_OR_FOLLOWER
                  || r.error() == ErrorCode.FENCED_LEADER_EPOCH) {
                b.setCurrentLeader(ctx.hint(tp, r.hint()));
              }
              return b.build();
            });
  }
}
