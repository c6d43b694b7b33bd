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
    long timeoutMs = ctx.adminTimeout(req.getTimeoutMs());
    return ctx.quorum()
        .deleteTopics(req)
        .handle(
            (resp, err) -> {
              if (err == null) {
                return resp;
              }
              AdminForwarding.Failure f = AdminForwarding.failure(err);
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
            })
        .thenCompose(
            resp ->
                ctx.metadataWaiters()
                    .await(
                        img ->
                            resp.getTopicsList().stream()
                                .filter(r -> r.getErrorCode() == ErrorCode.NONE)
                                .allMatch(r -> img.topic(r.getName()) == null),
                        timeoutMs)
                    .thenApply(img -> resp));
  }
}
