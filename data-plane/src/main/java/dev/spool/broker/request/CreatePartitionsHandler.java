package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
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
  public CompletableFuture<CreatePartitionsResponse> call(
      CreatePartitionsRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            CreatePartitionsRequest.Topic::getName,
            t -> Authz.topic(ctx, caller, AclOperation.ALTER, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<CreatePartitionsResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(CreatePartitionsResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          CreatePartitionsResponse.Builder b = r.toBuilder();
          for (CreatePartitionsRequest.Topic t : split.refused()) {
            b.addTopics(
                CreatePartitionsResponse.Result.newBuilder()
                    .setName(t.getName())
                    .setErrorCode(Authz.TOPIC)
                    .setErrorMessage(Authz.topicRefusal(caller, AclOperation.ALTER, t.getName())));
          }
          return b.build();
        });
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
