package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.config.Config;
import dev.spool.config.ConfigKey;
import dev.spool.config.TopicConfig;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeConfigs: every topic key with its effective value, whether it is the default, and its
 * documentation, from this broker's image and {@link TopicConfig}. Netty thread.
 */
public final class DescribeConfigsHandler
    extends MessageHandler<DescribeConfigsRequest, DescribeConfigsResponse> {
  private final BrokerContext ctx;

  public DescribeConfigsHandler(BrokerContext ctx) {
    super(DescribeConfigsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DescribeConfigsResponse> call(
      DescribeConfigsRequest req, Caller caller) {
    var split =
        Authz.split(
            req.getTopicsList(),
            n -> n,
            t -> Authz.topic(ctx, caller, AclOperation.DESCRIBE_CONFIGS, t));
    if (split.refused().isEmpty()) {
      return call(req);
    }
    CompletableFuture<DescribeConfigsResponse> allowed =
        split.allowed().isEmpty()
            ? CompletableFuture.completedFuture(DescribeConfigsResponse.getDefaultInstance())
            : call(req.toBuilder().clearTopics().addAllTopics(split.allowed()).build());
    return allowed.thenApply(
        r -> {
          DescribeConfigsResponse.Builder b = r.toBuilder();
          for (String t : split.refused()) {
            b.addTopics(
                DescribeConfigsResponse.Result.newBuilder()
                    .setName(t)
                    .setErrorCode(Authz.TOPIC)
                    .setErrorMessage(Authz.topicRefusal(caller, AclOperation.DESCRIBE_CONFIGS, t)));
          }
          return b.build();
        });
  }

  @Override
  public CompletableFuture<DescribeConfigsResponse> call(DescribeConfigsRequest req) {
    MetadataImage image = ctx.image();
    DescribeConfigsResponse.Builder b = DescribeConfigsResponse.newBuilder();
    // Each topic once however often it is named (a small request must not build a huge answer).
    for (String name : new LinkedHashSet<>(req.getTopicsList())) {
      TopicImage t = image.topic(name);
      DescribeConfigsResponse.Result.Builder r =
          DescribeConfigsResponse.Result.newBuilder().setName(name);
      if (t == null) {
        b.addTopics(
            r.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                .setErrorMessage("topic '" + name + "' does not exist"));
        continue;
      }
      Config effective = t.config();
      Map<String, String> overrides = t.configs();
      for (ConfigKey<?> k : TopicConfig.DEF.keys()) {
        String value =
            overrides.containsKey(k.name()) ? overrides.get(k.name()) : k.render(effective.get(k));
        r.addEntries(
            DescribeConfigsResponse.ConfigEntry.newBuilder()
                .setKey(k.name())
                .setValue(value)
                .setIsDefault(!overrides.containsKey(k.name()))
                .setDoc(k.doc()));
      }
      b.addTopics(r);
    }
    return CompletableFuture.completedFuture(b.build());
  }
}
