package dev.spool.broker.request;

import dev.spool.broker.replication.ExceptionCodes;
import dev.spool.broker.replication.RecordDeletion;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DeleteRecordsResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteRecords on the partitions' leader (docs/architecture.md#deleting-records): each partition
 * moves its log start offset on its owner worker ({@link RecordDeletion}); answers are in request
 * order. A partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION; one named twice in the same
 * request is INVALID_REQUEST at each mention (which offset was meant is ambiguous), and neither
 * reaches the log. Netty thread; the work runs on the owner workers.
 */
public final class DeleteRecordsHandler
    extends MessageHandler<DeleteRecordsRequest, DeleteRecordsResponse> {
  private final BrokerContext ctx;

  public DeleteRecordsHandler(BrokerContext ctx) {
    super(DeleteRecordsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DeleteRecordsResponse> call(DeleteRecordsRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            DeleteRecordsRequest.Topic::getName,
            t -> Authz.topic(ctx, caller, AclOperation.DELETE, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<DeleteRecordsResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(DeleteRecordsResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          DeleteRecordsResponse.Builder b = r.toBuilder();
          for (DeleteRecordsRequest.Topic t : split.refused()) {
            DeleteRecordsResponse.Topic.Builder tb =
                DeleteRecordsResponse.Topic.newBuilder().setName(t.getName());
            for (var p :
                t.getPartitionsList().stream()
                    .map(DeleteRecordsRequest.Partition::getPartition)
                    .toList()) {
              tb.addPartitions(
                  DeleteRecordsResponse.Partition.newBuilder()
                      .setPartition(p)
                      .setErrorCode(Authz.TOPIC)
                      .setErrorMessage(
                          Authz.topicRefusal(caller, AclOperation.DELETE, t.getName())));
            }
            b.addTopics(tb);
          }
          return b.build();
        });
  }

  @Override
  public CompletableFuture<DeleteRecordsResponse> call(DeleteRecordsRequest req) {
    Map<TopicPartition, Integer> mentions = new HashMap<>();
    for (DeleteRecordsRequest.Topic t : req.getTopicsList()) {
      for (DeleteRecordsRequest.Partition p : t.getPartitionsList()) {
        TopicPartition tp = BrokerContext.tpOrNull(t.getName(), p.getPartition());
        if (tp != null) {
          mentions.merge(tp, 1, Integer::sum);
        }
      }
    }
    List<CompletableFuture<DeleteRecordsResponse.Topic>> topics = new ArrayList<>();
    for (DeleteRecordsRequest.Topic t : req.getTopicsList()) {
      List<CompletableFuture<DeleteRecordsResponse.Partition>> parts = new ArrayList<>();
      for (DeleteRecordsRequest.Partition p : t.getPartitionsList()) {
        TopicPartition tp = BrokerContext.tpOrNull(t.getName(), p.getPartition());
        parts.add(one(t.getName(), p, tp, tp != null && mentions.get(tp) > 1));
      }
      topics.add(
          Futures.all(parts)
              .thenApply(
                  list ->
                      DeleteRecordsResponse.Topic.newBuilder()
                          .setName(t.getName())
                          .addAllPartitions(list)
                          .build()));
    }
    return Futures.all(topics)
        .thenApply(list -> DeleteRecordsResponse.newBuilder().addAllTopics(list).build());
  }

  private CompletableFuture<DeleteRecordsResponse.Partition> one(
      String topic, DeleteRecordsRequest.Partition p, TopicPartition tp, boolean duplicate) {
    DeleteRecordsResponse.Partition.Builder b =
        DeleteRecordsResponse.Partition.newBuilder()
            .setPartition(p.getPartition())
            .setLowWatermark(-1);
    if (tp == null || ctx.image().partition(tp) == null) {
      return CompletableFuture.completedFuture(
          b.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
              .setErrorMessage("partition " + topic + "-" + p.getPartition() + " does not exist")
              .build());
    }
    if (duplicate) {
      return CompletableFuture.completedFuture(
          b.setErrorCode(ErrorCode.INVALID_REQUEST)
              .setErrorMessage("partition " + tp + " is named more than once in the request")
              .build());
    }
    return ctx.replicas()
        .onPartition(
            tp,
            part -> RecordDeletion.onLeader(part, p.getOffset()),
            () ->
                new RecordDeletion.Result(
                    ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    "broker " + ctx.brokerId() + " has no replica of " + tp,
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
                  .setLowWatermark(r.lowWatermark());
              if (r.error() == ErrorCode.NOT_LEADER_OR_FOLLOWER) {
                b.setCurrentLeader(ctx.hint(tp, r.hint()));
              }
              return b.build();
            });
  }
}
