package dev.spool.broker.request;

import dev.spool.broker.replication.ExceptionCodes;
import dev.spool.broker.replication.ListOffsetResult;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.OffsetForLeaderEpochRequest;
import dev.spool.protocol.message.OffsetForLeaderEpochResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetForLeaderEpoch (KIP-320): on the leader, the largest epoch at or below the one asked and
 * its end offset, from the leader-epoch cache. Consumers use it to detect truncation after a leader
 * change. Netty thread; the lookup runs on the owner worker.
 */
public final class OffsetForLeaderEpochHandler
    extends MessageHandler<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse> {
  private final BrokerContext ctx;

  public OffsetForLeaderEpochHandler(BrokerContext ctx) {
    super(OffsetForLeaderEpochRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<OffsetForLeaderEpochResponse> call(
      OffsetForLeaderEpochRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            OffsetForLeaderEpochRequest.Topic::getName,
            t -> Authz.describeOrReplica(ctx, caller, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<OffsetForLeaderEpochResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(OffsetForLeaderEpochResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          OffsetForLeaderEpochResponse.Builder b = r.toBuilder();
          for (OffsetForLeaderEpochRequest.Topic t : split.refused()) {
            OffsetForLeaderEpochResponse.Topic.Builder tb =
                OffsetForLeaderEpochResponse.Topic.newBuilder().setName(t.getName());
            for (var p :
                t.getPartitionsList().stream()
                    .map(OffsetForLeaderEpochRequest.Partition::getPartition)
                    .toList()) {
              tb.addPartitions(
                  OffsetForLeaderEpochResponse.Partition.newBuilder()
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
  public CompletableFuture<OffsetForLeaderEpochResponse> call(OffsetForLeaderEpochRequest req) {
    List<CompletableFuture<OffsetForLeaderEpochResponse.Topic>> topics = new ArrayList<>();
    for (OffsetForLeaderEpochRequest.Topic t : req.getTopicsList()) {
      List<CompletableFuture<OffsetForLeaderEpochResponse.Partition>> parts = new ArrayList<>();
      for (OffsetForLeaderEpochRequest.Partition p : t.getPartitionsList()) {
        parts.add(one(t.getName(), p));
      }
      topics.add(
          CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]))
              .thenApply(
                  v ->
                      OffsetForLeaderEpochResponse.Topic.newBuilder()
                          .setName(t.getName())
                          .addAllPartitions(parts.stream().map(CompletableFuture::join).toList())
                          .build()));
    }
    return CompletableFuture.allOf(topics.toArray(new CompletableFuture[0]))
        .thenApply(
            v ->
                OffsetForLeaderEpochResponse.newBuilder()
                    .addAllTopics(topics.stream().map(CompletableFuture::join).toList())
                    .build());
  }

  private CompletableFuture<OffsetForLeaderEpochResponse.Partition> one(
      String topic, OffsetForLeaderEpochRequest.Partition p) {
    TopicPartition tp = BrokerContext.tpOrNull(topic, p.getPartition());
    OffsetForLeaderEpochResponse.Partition.Builder b =
        OffsetForLeaderEpochResponse.Partition.newBuilder()
            .setPartition(p.getPartition())
            .setLeaderEpoch(-1)
            .setEndOffset(-1);
    if (tp == null || ctx.image().partition(tp) == null) {
      return CompletableFuture.completedFuture(
          b.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
              .setErrorMessage("partition " + topic + "-" + p.getPartition() + " does not exist")
              .build());
    }
    return ctx.replicas()
        .onPartition(
            tp,
            part -> part.endOffsetForEpoch(p.getCurrentLeaderEpoch(), p.getLeaderEpoch()),
            () ->
                new ListOffsetResult(
                    ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    "broker " + ctx.brokerId() + " has no replica of " + tp,
                    -1,
                    -1,
                    -1,
                    null))
        .handle(
            (r, err) ->
                err != null
                    ? b.setErrorCode(ExceptionCodes.of(err))
                        .setErrorMessage(String.valueOf(err))
                        .build()
                    : b.setErrorCode(r.error())
                        .setErrorMessage(r.message())
                        .setLeaderEpoch(r.leaderEpoch())
                        .setEndOffset(r.offset())
                        .build());
  }
}
