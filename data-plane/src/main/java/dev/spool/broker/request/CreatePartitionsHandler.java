package dev.spool.broker.request;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import java.util.concurrent.CompletableFuture;

/**
 * CreatePartitions, forwarded to the quorum as it is. The answer waits (bounded by the request's
 * timeout) until this broker's image holds every grown topic at its new count with a leader per
 * partition, so a Metadata call right after lists the new partitions. Netty thread.
 */
public final class CreatePartitionsHandler
    extends MessageHandler<CreatePartitionsRequest, CreatePartitionsResponse> {
  private final BrokerContext ctx;

  public CreatePartitionsHandler(BrokerContext ctx) {
    super(CreatePartitionsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<CreatePartitionsResponse> call(CreatePartitionsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().createPartitions(req),
        f -> {
          CreatePartitionsResponse.Builder b = CreatePartitionsResponse.newBuilder();
          req.getTopicsList()
              .forEach(
                  t ->
                      b.addTopics(
                          CreatePartitionsResponse.Result.newBuilder()
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
                          // Deleted meanwhile: nothing left to wait for.
                          return t == null
                              || (t.partitionCount() >= r.getCount()
                                  && t.partitions().stream().allMatch(PartitionState::hasLeader));
                        }),
        ctx.adminTimeout(req.getTimeoutMs()));
  }
}
