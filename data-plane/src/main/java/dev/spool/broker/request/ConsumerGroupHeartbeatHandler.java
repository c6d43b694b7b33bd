package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import dev.spool.protocol.message.ConsumerGroupHeartbeatRequest;
import dev.spool.protocol.message.ConsumerGroupHeartbeatResponse;
import dev.spool.protocol.message.OwnedPartitions;
import java.util.concurrent.CompletableFuture;

/**
 * ConsumerGroupHeartbeat (KIP-848): translated for {@link GroupCoordinator#heartbeat}, which runs
 * on the owner worker of the group's offsets partition and answers once its writes are committed.
 * Unset optional fields stay null (unchanged). Netty thread.
 */
public final class ConsumerGroupHeartbeatHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public ConsumerGroupHeartbeatHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    ConsumerGroupHeartbeatRequest req =
        request.frame().parseBody(ConsumerGroupHeartbeatRequest.parser());
    HeartbeatRequest hr =
        new HeartbeatRequest(
            req.getGroupId(),
            req.getMemberId(),
            req.getMemberEpoch(),
            req.hasInstanceId() ? req.getInstanceId() : null,
            req.hasRackId() ? req.getRackId() : null,
            req.hasRebalanceTimeoutMs() ? req.getRebalanceTimeoutMs() : null,
            req.hasSubscription() ? req.getSubscription().getTopicNamesList() : null,
            req.hasSubscription() ? req.getSubscription().getTopicRegex() : null,
            req.hasServerAssignor() ? req.getServerAssignor() : null,
            req.hasOwned() ? GroupProtos.toSet(req.getOwned().getTopicsList()) : null,
            request.header().getClientId(),
            GroupProtos.clientHost(request));
    return coordinator
        .heartbeat(hr, request.caller())
        .thenApply(
            r -> {
              ConsumerGroupHeartbeatResponse.Builder b =
                  ConsumerGroupHeartbeatResponse.newBuilder()
                      .setErrorCode(r.error())
                      .setErrorMessage(r.message())
                      .setMemberId(r.memberId())
                      .setMemberEpoch(r.memberEpoch())
                      .setHeartbeatIntervalMs(r.heartbeatIntervalMs());
              if (r.assignment() != null) {
                b.setAssignment(
                    OwnedPartitions.newBuilder().addAllTopics(GroupProtos.toProto(r.assignment())));
              }
              return BrokerResponse.of(b.build());
            });
  }
}
