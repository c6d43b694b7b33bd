package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.PartitionResult;
import dev.spool.protocol.message.OffsetCommitResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetCommit: every partition of the request committed (or refused, each with its code) in one
 * coordinator write, answered once replicated. Netty thread.
 */
public final class OffsetCommitHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public OffsetCommitHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    dev.spool.protocol.message.OffsetCommitRequest req =
        request.frame().parseBody(dev.spool.protocol.message.OffsetCommitRequest.parser());
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    for (var t : req.getTopicsList()) {
      for (var p : t.getPartitionsList()) {
        offsets.put(
            GroupProtos.partition(t.getName(), p.getPartition()),
            new OffsetAndMetadata(
                p.getCommittedOffset(), p.getCommittedLeaderEpoch(), p.getCommittedMetadata(), -1));
      }
    }
    return coordinator
        .commitOffsets(
            new OffsetCommitRequest(
                req.getGroupId(), req.getMemberId(), req.getMemberEpoch(), offsets),
            request.caller())
        .thenApply(results -> BrokerResponse.of(toResponse(results)));
  }

  private static OffsetCommitResponse toResponse(Map<TopicPartition, PartitionResult> results) {
    Map<String, OffsetCommitResponse.Topic.Builder> topics = new LinkedHashMap<>();
    results.forEach(
        (tp, r) ->
            topics
                .computeIfAbsent(
                    tp.topic(), n -> OffsetCommitResponse.Topic.newBuilder().setName(n))
                .addPartitions(
                    OffsetCommitResponse.Partition.newBuilder()
                        .setPartition(tp.partition())
                        .setErrorCode(r.error())
                        .setErrorMessage(r.message())));
    OffsetCommitResponse.Builder b = OffsetCommitResponse.newBuilder();
    topics.values().forEach(b::addTopics);
    return b.build();
  }
}
