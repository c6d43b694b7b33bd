package dev.spool.broker.request;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import java.util.concurrent.CompletableFuture;

/**
 * CreateTopics, forwarded to the quorum as it is. The answer waits (bounded by the request's
 * timeout) until this broker's image holds every created topic with a leader per partition, so a
 * Metadata call right after finds them. Netty thread.
 */
public final class CreateTopicsHandler
    extends MessageHandler<CreateTopicsRequest, CreateTopicsResponse> {
  private final BrokerContext ctx;

  public CreateTopicsHandler(BrokerContext ctx) {
    super(CreateTopicsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<CreateTopicsResponse> call(CreateTopicsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().createTopics(req),
        f -> {
          CreateTopicsResponse.Builder b = CreateTopicsResponse.newBuilder();
          req.getTopicsList()
              .forEach(
                  t ->
                      b.addTopics(
                          CreateTopicsResponse.Result.newBuilder()
                              .setName(t.getName())
                              .setErrorCode(f.code())
                              .setErrorMessage(f.message())));
          return b.build();
        },
        req.getValidateOnly(),
        resp ->
            img ->
                resp.getTopicsList().stream()
                    .filter(r -> r.getErrorCode() == ErrorCode.NONE)
                    .allMatch(
                        r -> {
                          TopicImage t = img.topic(r.getName());
                          return t != null
                              && (r.getTopicId().isEmpty() || t.id().equals(r.getTopicId()))
                              && t.partitions().stream().allMatch(PartitionState::hasLeader);
                        }),
        ctx.adminTimeout(req.getTimeoutMs()));
  }
}
