package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Metadata: live brokers with their advertised endpoints and, per requested topic, each partition's
 * leader, leader epoch, replicas, ISR and offline replicas, from this broker's image. An unknown
 * topic is UNKNOWN_TOPIC_OR_PARTITION, unless {@code auto.create.topics.enable}: then it is created
 * through the quorum (default partitions and replication) and described once this broker sees it.
 * Netty thread; reads only the immutable image.
 */
public final class MetadataHandler extends MessageHandler<MetadataRequest, MetadataResponse> {
  private final BrokerContext ctx;

  public MetadataHandler(BrokerContext ctx) {
    super(MetadataRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<MetadataResponse> call(MetadataRequest req) {
    return call(req, true);
  }

  /**
   * Metadata where the client may forbid creating unknown topics ({@code allowAutoCreate} false:
   * Kafka's {@code allow_auto_topic_creation}); creation also needs {@code
   * auto.create.topics.enable}.
   */
  public CompletableFuture<MetadataResponse> call(MetadataRequest req, boolean allowAutoCreate) {
    return serve(req, allowAutoCreate, t -> true);
  }

  @Override
  public CompletableFuture<MetadataResponse> call(MetadataRequest req, Caller caller) {
    return call(req, true, caller);
  }

  /**
   * Metadata for {@code caller} (docs/security.md#acls): a topic it may not DESCRIBE is left out of
   * an every-topic answer and answered TOPIC_AUTHORIZATION_FAILED, without its id or partitions,
   * when named; an unknown topic is auto-created only with CREATE on the cluster or the topic.
   */
  public CompletableFuture<MetadataResponse> call(
      MetadataRequest req, boolean allowAutoCreate, Caller caller) {
    if (!ctx.authorizer().enabled()) {
      return call(req, allowAutoCreate);
    }
    return serve(req, allowAutoCreate, t -> Authz.create(ctx, caller, t))
        .thenApply(
            resp -> {
              MetadataResponse.Builder b = resp.toBuilder().clearTopics();
              for (TopicMetadata t : resp.getTopicsList()) {
                if (Authz.topic(ctx, caller, AclOperation.DESCRIBE, t.getName())) {
                  b.addTopics(t);
                } else if (!req.getAllTopics()) {
                  b.addTopics(
                      TopicMetadata.newBuilder()
                          .setName(t.getName())
                          .setErrorCode(Authz.TOPIC)
                          .setErrorMessage(
                              Authz.topicRefusal(caller, AclOperation.DESCRIBE, t.getName())));
                }
              }
              return b.build();
            });
  }

  private CompletableFuture<MetadataResponse> serve(
      MetadataRequest req, boolean allowAutoCreate, Predicate<String> mayCreate) {
    MetadataImage image = ctx.image();
    Set<String> missing = new LinkedHashSet<>();
    if (!req.getAllTopics()) {
      for (String t : req.getTopicsList()) {
        if (image.topic(t) == null && mayCreate.test(t)) {
          missing.add(t);
        }
      }
    }
    if (missing.isEmpty() || !ctx.autoCreateTopics() || !allowAutoCreate) {
      return CompletableFuture.completedFuture(describe(req, image));
    }
    CreateTopicsRequest.Builder create =
        CreateTopicsRequest.newBuilder().setTimeoutMs((int) ctx.adminTimeoutMs());
    for (String t : missing) {
      create.addTopics(
          CreateTopicsRequest.Topic.newBuilder()
              .setName(t)
              .setNumPartitions(-1)
              .setReplicationFactor(-1));
    }
    return ctx.quorum()
        .createTopics(create.build())
        .handle((resp, err) -> null)
        .thenCompose(
            x ->
                ctx.metadataWaiters()
                    .await(
                        img ->
                            missing.stream()
                                .allMatch(
                                    t ->
                                        img.topic(t) != null
                                            && img.partitions(t).stream()
                                                .allMatch(PartitionState::hasLeader)),
                        ctx.adminTimeoutMs()))
        .thenApply(img -> describe(req, img));
  }

  private MetadataResponse describe(MetadataRequest req, MetadataImage image) {
    MetadataResponse.Builder b =
        MetadataResponse.newBuilder()
            .setClusterId(ctx.clusterId())
            .setControllerId(ctx.activeControllerId().getAsInt())
            .setMetadataOffset(image.offset());
    for (BrokerRegistration r : image.liveBrokers()) {
      b.addBrokers(brokerInfo(r));
    }
    List<String> names = new ArrayList<>();
    if (req.getAllTopics()) {
      names.addAll(image.topicIdsByName().keySet());
      names.sort(null);
    } else {
      // Each named topic is answered once however often it is named: a small request must not
      // build an answer of every partition many times over.
      names.addAll(new LinkedHashSet<>(req.getTopicsList()));
    }
    for (String name : names) {
      b.addTopics(topic(image, name, req.getIncludeConfigs()));
    }
    return b.build();
  }

  static BrokerInfo brokerInfo(BrokerRegistration r) {
    return BrokerInfo.newBuilder()
        .setNodeId(r.id())
        .setHost(r.host())
        .setPort(r.port())
        .setRack(r.rack())
        .setBrokerEpoch(r.epoch())
        .setFenced(r.fenced())
        .setInControlledShutdown(r.inControlledShutdown())
        .addAllOfflineDirs(r.offlineDirs())
        .build();
  }

  private static TopicMetadata topic(MetadataImage image, String name, boolean configs) {
    TopicImage t = image.topic(name);
    if (t == null) {
      return TopicMetadata.newBuilder()
          .setName(name)
          .setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
          .setErrorMessage("topic '" + name + "' does not exist")
          .build();
    }
    TopicMetadata.Builder tb = TopicMetadata.newBuilder().setName(name).setTopicId(t.id());
    for (PartitionState p : t.partitions()) {
      PartitionMetadata.Builder pb =
          PartitionMetadata.newBuilder()
              .setPartition(p.partition())
              .setLeaderId(p.leader())
              .setLeaderEpoch(p.leaderEpoch())
              .addAllReplicas(p.replicas())
              .addAllIsr(p.isr())
              .setPartitionEpoch(p.partitionEpoch());
      for (int r : p.replicas()) {
        BrokerRegistration reg = image.broker(r);
        if (reg == null || reg.fenced() || reg.hasOfflineDirs()) { // as Kafka: a failed log dir
          pb.addOfflineReplicas(r);
        }
      }
      if (!p.hasLeader()) {
        pb.setErrorCode(ErrorCode.LEADER_NOT_AVAILABLE);
      }
      tb.addPartitions(pb);
    }
    if (configs) {
      tb.putAllConfigs(t.configs());
    }
    return tb.build();
  }
}
