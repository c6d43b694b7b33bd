package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import java.util.concurrent.CompletableFuture;

/**
 * DeleteTopics, forwarded to the quorum; answers once the topics are gone from this broker's image
 * (bounded by the timeout). Netty thread.
 */
public final class DeleteTopicsHandler
    extends MessageHandler<DeleteTopicsRequest, DeleteTopicsResponse> {
  private final BrokerContext ctx;

  public DeleteTopicsHandler(BrokerContext ctx) {
    super(DeleteTopicsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DeleteTopicsResponse> call(DeleteTopicsRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getNamesList(), n -> n, t -> Authz.topic(ctx, caller, AclOperation.DELETE, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<DeleteTopicsResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(DeleteTopicsResponse.getDefaultInstance())
            : call(req.toBuilder().clearNames().addAllNames(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          DeleteTopicsResponse.Builder b = r.toBuilder();
          for (String t : split.refused()) {
            b.addTopics(
                DeleteTopicsResponse.Result.newBuilder()
                    .setName(t)
                    .setErrorCode(Authz.TOPIC)
                    .setErrorMessage(Authz.topicRefusal(caller, AclOperation.DELETE, t)));
          }
          return b.build();
        });
  }

  @Override
  public CompletableFuture<DeleteTopicsResponse> call(DeleteTopicsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().deleteTopics(req),
        f -> {
          DeleteTopicsResponse.Builder b = DeleteTopicsResponse.newBuilder();
          req.getNamesList()
              .forEach(
                  n ->
                      b.addTopics(
                          DeleteTopicsResponse.Result.newBuilder()
                              .setName(n)
                              .setErrorCode(f.code())
                              .setErrorMessage(f.message())));
          return b.build();
        },
        false,
        resp ->
            img ->
                resp.getTopicsList().stream()
                    .filter(r -> r.getErrorCode() == ErrorCode.NONE)
                    .allMatch(r -> img.topic(r.getName()) == null),
        ctx.adminTimeout(req.getTimeoutMs()));
  }
}
