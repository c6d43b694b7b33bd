package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
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
  public CompletableFuture<CreateTopicsResponse> call(CreateTopicsRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            CreateTopicsRequest.Topic::getName,
            t -> Authz.create(ctx, caller, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<CreateTopicsResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(CreateTopicsResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          CreateTopicsResponse.Builder b = r.toBuilder();
          for (CreateTopicsRequest.Topic t : split.refused()) {
            b.addTopics(
                CreateTopicsResponse.Result.newBuilder()
                    .setName(t.getName())
                    .setErrorCode(Authz.TOPIC)
                    .setErrorMessage(Authz.topicRefusal(caller, AclOperation.CREATE, t.getName())));
          }
          return b.build();
        });
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
