package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.coordinator.group.api.CoordinatorLocation;
import dev.spool.protocol.message.FindCoordinatorRequest;
import dev.spool.protocol.message.FindCoordinatorResponse;
import java.util.concurrent.CompletableFuture;

/**
 * FindCoordinator: the leader of each group's {@code __consumer_offsets} partition, from this
 * broker's metadata image; creates the topic on first use (COORDINATOR_NOT_AVAILABLE meanwhile).
 * Netty thread; reads only the image.
 */
public final class FindCoordinatorHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public FindCoordinatorHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    FindCoordinatorRequest req = request.frame().parseBody(FindCoordinatorRequest.parser());
    FindCoordinatorResponse.Builder b = FindCoordinatorResponse.newBuilder();
    for (CoordinatorLocation l :
        coordinator.findCoordinators(req.getKeysList(), request.caller())) {
      b.addCoordinators(
          FindCoordinatorResponse.Coordinator.newBuilder()
              .setKey(l.key())
              .setErrorCode(l.error())
              .setErrorMessage(l.message())
              .setNodeId(l.nodeId())
              .setHost(l.host())
              .setPort(l.port()));
    }
    return CompletableFuture.completedFuture(BrokerResponse.of(b.build()));
  }
}
