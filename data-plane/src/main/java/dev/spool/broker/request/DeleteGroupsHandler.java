package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.coordinator.group.api.GroupResult;
import dev.spool.protocol.message.DeleteGroupsRequest;
import dev.spool.protocol.message.DeleteGroupsResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteGroups: empty groups only (NON_EMPTY_GROUP otherwise), with their offsets. Netty thread.
 */
public final class DeleteGroupsHandler implements RequestHandler {
  private final AuthorizedGroups coordinator;

  public DeleteGroupsHandler(AuthorizedGroups coordinator) {
    this.coordinator = coordinator;
  }

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    DeleteGroupsRequest req = request.frame().parseBody(DeleteGroupsRequest.parser());
    List<CompletableFuture<GroupResult>> all = new ArrayList<>();
    req.getGroupIdsList().forEach(id -> all.add(coordinator.deleteGroup(id, request.caller())));
    return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]))
        .thenApply(
            v -> {
              DeleteGroupsResponse.Builder b = DeleteGroupsResponse.newBuilder();
              all.forEach(
                  f -> {
                    GroupResult r = f.join();
                    b.addResults(
                        DeleteGroupsResponse.Result.newBuilder()
                            .setGroupId(r.groupId())
                            .setErrorCode(r.error())
                            .setErrorMessage(r.message()));
                  });
              return BrokerResponse.of(b.build());
            });
  }
}
