package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.protocol.message.OffsetDeleteRequest;
import dev.spool.protocol.message.OffsetDeleteResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetDelete: removes committed offsets of topics no member of the group subscribes to
 * (GROUP_SUBSCRIBED_TO_TOPIC for the others). Netty thread.
 */
public final class OffsetDeleteHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public OffsetDeleteHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    OffsetDeleteRequest req = request.frame().parseBody(OffsetDeleteRequest.parser());
    return coordinator
        .deleteOffsets(req.getGroupId(), GroupProtos.toList(req.getTopicsList()), request.caller())
        .thenApply(
            r -> {
              OffsetDeleteResponse.Builder b =
                  OffsetDeleteResponse.newBuilder()
                      .setErrorCode(r.error())
                      .setErrorMessage(r.message());
              Map<String, OffsetDeleteResponse.Topic.Builder> topics = new LinkedHashMap<>();
              r.partitions()
                  .forEach(
                      (tp, pr) ->
                          topics
                              .computeIfAbsent(
                                  tp.topic(),
                                  n -> OffsetDeleteResponse.Topic.newBuilder().setName(n))
                              .addPartitions(
                                  OffsetDeleteResponse.Partition.newBuilder()
                                      .setPartition(tp.partition())
                                      .setErrorCode(pr.error())
                                      .setErrorMessage(pr.message())));
              topics.values().forEach(b::addTopics);
              return BrokerResponse.of(b.build());
            });
  }
}
