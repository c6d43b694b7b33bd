package dev.spool.broker.request;

import dev.spool.broker.log.ProducerStateEntry;
import dev.spool.broker.replication.ExceptionCodes;
import dev.spool.broker.replication.Partition;
import dev.spool.broker.replication.ReplicaRole;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.DescribeProducersRequest;
import dev.spool.protocol.message.DescribeProducersResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeProducers: the idempotent producers each partition's replica on this broker keeps state
 * for (Kafka's semantics: any hosting replica answers, the leader or a follower; Kafka's admin
 * client asks the leader). The state is read on the partition's owner worker, the only thread that
 * may touch it. A partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION, one not hosted here
 * NOT_LEADER_OR_FOLLOWER with the leader's address, an offline replica STORAGE_ERROR. Producers are
 * sorted by id. Netty thread; the reads run on the owner workers.
 */
public final class DescribeProducersHandler
    extends MessageHandler<DescribeProducersRequest, DescribeProducersResponse> {
  private final BrokerContext ctx;

  public DescribeProducersHandler(BrokerContext ctx) {
    super(DescribeProducersRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DescribeProducersResponse> call(
      DescribeProducersRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            DescribeProducersRequest.Topic::getName,
            t -> Authz.topic(ctx, caller, AclOperation.READ, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<DescribeProducersResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(DescribeProducersResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          DescribeProducersResponse.Builder b = r.toBuilder();
          for (DescribeProducersRequest.Topic t : split.refused()) {
            DescribeProducersResponse.Topic.Builder tb =
                DescribeProducersResponse.Topic.newBuilder().setName(t.getName());
            for (var p : t.getPartitionsList()) {
              tb.addPartitions(
                  DescribeProducersResponse.Partition.newBuilder()
                      .setPartition(p)
                      .setErrorCode(Authz.TOPIC)
                      .setErrorMessage(Authz.topicRefusal(caller, AclOperation.READ, t.getName())));
            }
            b.addTopics(tb);
          }
          return b.build();
        });
  }

  @Override
  public CompletableFuture<DescribeProducersResponse> call(DescribeProducersRequest req) {
    List<CompletableFuture<DescribeProducersResponse.Topic>> topics = new ArrayList<>();
    for (DescribeProducersRequest.Topic t : req.getTopicsList()) {
      List<CompletableFuture<DescribeProducersResponse.Partition>> parts = new ArrayList<>();
      for (int p : t.getPartitionsList()) {
        parts.add(one(t.getName(), p));
      }
      topics.add(
          Futures.all(parts)
              .thenApply(
                  list ->
                      DescribeProducersResponse.Topic.newBuilder()
                          .setName(t.getName())
                          .addAllPartitions(list)
                          .build()));
    }
    return Futures.all(topics)
        .thenApply(list -> DescribeProducersResponse.newBuilder().addAllTopics(list).build());
  }

  private CompletableFuture<DescribeProducersResponse.Partition> one(String topic, int partition) {
    TopicPartition tp = BrokerContext.tpOrNull(topic, partition);
    DescribeProducersResponse.Partition.Builder b =
        DescribeProducersResponse.Partition.newBuilder().setPartition(partition);
    if (tp == null || ctx.image().partition(tp) == null) {
      return CompletableFuture.completedFuture(
          b.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
              .setErrorMessage("partition " + topic + "-" + partition + " does not exist")
              .build());
    }
    return ctx.replicas()
        .onPartition(tp, part -> describe(part, b), () -> notHosted(tp, b))
        .exceptionally(
            err ->
                b.setErrorCode(ExceptionCodes.of(err))
                    .setErrorMessage(String.valueOf(err))
                    .build());
  }

  /** Owner worker of {@code part}. */
  private static DescribeProducersResponse.Partition describe(
      Partition part, DescribeProducersResponse.Partition.Builder b) {
    if (part.role() == ReplicaRole.OFFLINE) {
      return b.setErrorCode(ErrorCode.STORAGE_ERROR)
          .setErrorMessage(part.topicPartition() + " is offline here: " + part.offlineReason())
          .build();
    }
    List<ProducerStateEntry> producers =
        new ArrayList<>(part.log().producerState().activeProducers().values());
    producers.sort(Comparator.comparingLong(ProducerStateEntry::producerId));
    for (ProducerStateEntry e : producers) {
      b.addProducers(
          DescribeProducersResponse.Producer.newBuilder()
              .setProducerId(e.producerId())
              .setProducerEpoch(e.producerEpoch())
              .setLastSequence(e.lastSeq())
              .setLastTimestampMs(e.lastTimestampMs()));
    }
    return b.setErrorCode(ErrorCode.NONE).build();
  }

  private DescribeProducersResponse.Partition notHosted(
      TopicPartition tp, DescribeProducersResponse.Partition.Builder b) {
    return b.setErrorCode(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        .setErrorMessage("broker " + ctx.brokerId() + " has no replica of " + tp)
        .setCurrentLeader(ctx.hint(tp, null))
        .build();
  }
}
