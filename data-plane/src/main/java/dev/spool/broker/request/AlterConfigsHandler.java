package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.quorum.image.TopicImage;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * AlterConfigs (topic overrides), forwarded to the quorum; answers once this broker's image carries
 * the new overrides, bounded by the admin timeout. Netty thread.
 */
public final class AlterConfigsHandler
    extends MessageHandler<AlterConfigsRequest, AlterConfigsResponse> {
  private final BrokerContext ctx;

  public AlterConfigsHandler(BrokerContext ctx) {
    super(AlterConfigsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<AlterConfigsResponse> call(AlterConfigsRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            AlterConfigsRequest.Topic::getName,
            t -> Authz.topic(ctx, caller, AclOperation.ALTER_CONFIGS, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<AlterConfigsResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(AlterConfigsResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          AlterConfigsResponse.Builder b = r.toBuilder();
          for (AlterConfigsRequest.Topic t : split.refused()) {
            b.addTopics(
                AlterConfigsResponse.Result.newBuilder()
                    .setName(t.getName())
                    .setErrorCode(Authz.TOPIC)
                    .setErrorMessage(
                        Authz.topicRefusal(caller, AclOperation.ALTER_CONFIGS, t.getName())));
          }
          return b.build();
        });
  }

  @Override
  public CompletableFuture<AlterConfigsResponse> call(AlterConfigsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().alterConfigs(req),
        f -> {
          AlterConfigsResponse.Builder b = AlterConfigsResponse.newBuilder();
          req.getTopicsList()
              .forEach(
                  t ->
                      b.addTopics(
                          AlterConfigsResponse.Result.newBuilder()
                              .setName(t.getName())
                              .setErrorCode(f.code())
                              .setErrorMessage(f.message())));
          return b.build();
        },
        req.getValidateOnly(),
        resp ->
            img ->
                req.getTopicsList().stream()
                    .filter(
                        t ->
                            resp.getTopicsList().stream()
                                .anyMatch(
                                    r ->
                                        r.getName().equals(t.getName())
                                            && r.getErrorCode() == ErrorCode.NONE))
                    .allMatch(
                        t -> {
                          TopicImage ti = img.topic(t.getName());
                          if (ti == null) {
                            return true;
                          }
                          Map<String, String> now = ti.configs();
                          return t.getSetMap().entrySet().stream()
                                  .allMatch(e -> e.getValue().equals(now.get(e.getKey())))
                              && t.getDeleteList().stream().noneMatch(now::containsKey);
                        }),
        ctx.adminTimeoutMs());
  }
}
