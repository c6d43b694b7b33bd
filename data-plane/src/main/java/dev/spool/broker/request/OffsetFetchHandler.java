package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetFetchRequest;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.protocol.message.OffsetFetchResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * OffsetFetch for one or more groups (each on its coordinator's shard; a group this broker does not
 * coordinate is answered NOT_COORDINATOR). A partition asked for without a committed offset is
 * answered with offset -1. Netty thread.
 */
public final class OffsetFetchHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public OffsetFetchHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    dev.spool.protocol.message.OffsetFetchRequest req =
        request.frame().parseBody(dev.spool.protocol.message.OffsetFetchRequest.parser());
    List<CompletableFuture<OffsetFetchResponse.Group>> groups = new ArrayList<>();
    for (var g : req.getGroupsList()) {
      List<TopicPartition> asked =
          g.getTopicsCount() == 0 ? null : GroupProtos.toList(g.getTopicsList());
      groups.add(
          coordinator
              .fetchOffsets(
                  new OffsetFetchRequest(
                      g.getGroupId(), g.getMemberId(), g.getMemberEpoch(), asked),
                  request.caller())
              .thenApply(r -> toGroup(g.getGroupId(), asked, r)));
    }
    return CompletableFuture.allOf(groups.toArray(new CompletableFuture[0]))
        .thenApply(
            v -> {
              OffsetFetchResponse.Builder b = OffsetFetchResponse.newBuilder();
              groups.forEach(f -> b.addGroups(f.join()));
              return BrokerResponse.of(b.build());
            });
  }

  private static OffsetFetchResponse.Group toGroup(
      String groupId, List<TopicPartition> asked, OffsetFetchResult r) {
    OffsetFetchResponse.Group.Builder g =
        OffsetFetchResponse.Group.newBuilder()
            .setGroupId(groupId)
            .setErrorCode(r.error())
            .setErrorMessage(r.message());
    Map<String, OffsetFetchResponse.Topic.Builder> topics = new LinkedHashMap<>();
    List<TopicPartition> order = asked != null ? asked : new ArrayList<>(r.offsets().keySet());
    for (TopicPartition tp : order) {
      OffsetAndMetadata o = r.offsets().get(tp);
      topics
          .computeIfAbsent(tp.topic(), n -> OffsetFetchResponse.Topic.newBuilder().setName(n))
          .addPartitions(
              OffsetFetchResponse.Partition.newBuilder()
                  .setPartition(tp.partition())
                  .setCommittedOffset(o == null ? -1 : o.offset())
                  .setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch())
                  .setMetadata(o == null ? "" : o.metadata())
                  .setCommitTimestampMs(o == null ? -1 : o.commitTimestampMs()));
    }
    topics.values().forEach(g::addTopics);
    return g.build();
  }
}
