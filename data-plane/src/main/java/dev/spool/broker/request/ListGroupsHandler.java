package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.protocol.message.ListGroupsRequest;
import dev.spool.protocol.message.ListGroupsResponse;
import java.util.concurrent.CompletableFuture;

/**
 * ListGroups: the groups this broker coordinates (an admin asks every broker and merges, as
 * Kafka's). Netty thread; each offsets partition is listed on its owner worker.
 */
public final class ListGroupsHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public ListGroupsHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    ListGroupsRequest req = request.frame().parseBody(ListGroupsRequest.parser());
    return coordinator
        .listGroups(req.getStatesFilterList(), request.caller())
        .thenApply(
            l -> {
              ListGroupsResponse.Builder b =
                  ListGroupsResponse.newBuilder()
                      .setErrorCode(l.error())
                      .setErrorMessage(l.message());
              l.groups()
                  .forEach(
                      g ->
                          b.addGroups(
                              ListGroupsResponse.Group.newBuilder()
                                  .setGroupId(g.groupId())
                                  .setState(g.state())
                                  .setGroupType(g.type())));
              return BrokerResponse.of(b.build());
            });
  }
}
