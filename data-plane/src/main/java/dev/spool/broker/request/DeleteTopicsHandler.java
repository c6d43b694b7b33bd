package dev.spool.broker.request;

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
