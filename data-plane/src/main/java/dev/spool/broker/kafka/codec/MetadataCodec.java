package dev.spool.broker.kafka.codec;

import dev.spool.common.HostPort;
import dev.spool.coordinator.group.runtime.OffsetsTopic;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata between Kafka and Spool. Kafka's request names topics (or, from version 10, topic ids,
 * resolved here against the broker's image; an unknown id is answered UNKNOWN_TOPIC_ID) or asks for
 * all of them (a null list; an empty list in version 0). Spool's answer is rewritten for Kafka's
 * clients:
 *
 * <ul>
 *   <li>brokers are listed at their Kafka listeners (from their registrations); a live broker
 *       without one is left out, and a partition it leads is LISTENER_NOT_FOUND (version 6+; before
 *       that LEADER_NOT_AVAILABLE), with no leader, as on Kafka;
 *   <li>the controller id is this broker: Kafka's clients send admin requests to the "controller"
 *       of a Metadata answer, and any Spool broker forwards them to the metadata quorum (Kafka's
 *       brokers in KRaft mode answer with a broker id too);
 *   <li>{@code __consumer_offsets} is flagged internal, as on Kafka.
 * </ul>
 *
 * <p>Threads: stateless; any thread.
 */
public final class MetadataCodec {
  private MetadataCodec() {}

  /** Kafka's internal topics among Spool's: the consumer offsets of the group coordinator. */

  /** A translated request; the ids the image does not know are answered by {@link #toKafka}. */
  public static final class Call {
    private final MetadataRequest request;
    private final boolean allowAutoCreate;
    private final List<Uuid> unknownIds;

    private Call(MetadataRequest request, boolean allowAutoCreate, List<Uuid> unknownIds) {
      this.request = request;
      this.allowAutoCreate = allowAutoCreate;
      this.unknownIds = unknownIds;
    }

    public MetadataRequest request() {
      return request;
    }

    /** Kafka's {@code allow_auto_topic_creation} (true before version 4). */
    public boolean allowAutoCreate() {
      return allowAutoCreate;
    }
  }

  public static Call toSpool(KafkaRequest r, MetadataImage image) {
    org.apache.kafka.common.requests.MetadataRequest req =
        (org.apache.kafka.common.requests.MetadataRequest) r.request();
    MetadataRequest.Builder b = MetadataRequest.newBuilder();
    List<Uuid> unknown = new ArrayList<>();
    if (req.isAllTopics()) {
      b.setAllTopics(true);
    } else {
      for (var t : req.data().topics()) {
        if (t.name() != null) {
          b.addTopics(t.name());
        } else {
          TopicImage ti = TopicIds.topic(image, t.topicId());
          if (ti == null) {
            unknown.add(t.topicId());
          } else {
            b.addTopics(ti.name());
          }
        }
      }
    }
    return new Call(b.build(), req.allowAutoTopicCreation(), unknown);
  }

  /**
   * Kafka's answer from Spool's; {@code image} supplies the brokers' Kafka endpoints and {@code
   * thisBroker} is named as the controller.
   */
  public static KafkaResponse toKafka(
      KafkaRequest r, Call call, MetadataResponse resp, MetadataImage image, int thisBroker) {
    short version = r.version();
    MetadataResponseData.MetadataResponseBrokerCollection brokers =
        new MetadataResponseData.MetadataResponseBrokerCollection();
    for (BrokerInfo bi : resp.getBrokersList()) {
      HostPort kafka = kafkaEndpoint(image, bi.getNodeId());
      if (kafka != null) {
        brokers.add(
            new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(bi.getNodeId())
                .setHost(kafka.host())
                .setPort(kafka.port())
                .setRack(bi.getRack().isEmpty() ? null : bi.getRack()));
      }
    }
    MetadataResponseData.MetadataResponseTopicCollection topics =
        new MetadataResponseData.MetadataResponseTopicCollection();
    for (TopicMetadata t : resp.getTopicsList()) {
      topics.add(topic(t, image, version));
    }
    for (Uuid id : call.unknownIds) {
      topics.add(
          new MetadataResponseData.MetadataResponseTopic()
              .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
              .setName(version >= 12 ? null : "")
              .setTopicId(id));
    }
    return r.respond(
        new MetadataResponseData()
            .setThrottleTimeMs(0)
            .setBrokers(brokers)
            .setClusterId(resp.getClusterId())
            .setControllerId(thisBroker)
            .setTopics(topics));
  }

  private static MetadataResponseData.MetadataResponseTopic topic(
      TopicMetadata t, MetadataImage image, short version) {
    MetadataResponseData.MetadataResponseTopic kt =
        new MetadataResponseData.MetadataResponseTopic()
            .setErrorCode(KafkaErrors.code(t.getErrorCode()))
            .setName(t.getName())
            .setTopicId(TopicIds.toKafka(t.getTopicId()))
            .setIsInternal(OffsetsTopic.isInternal(t.getName()));
    List<MetadataResponseData.MetadataResponsePartition> parts = new ArrayList<>();
    for (PartitionMetadata p : t.getPartitionsList()) {
      int leader = p.getLeaderId();
      short error = KafkaErrors.code(p.getErrorCode());
      if (leader >= 0 && kafkaEndpoint(image, leader) == null) {
        // The leader is unknown here or has no Kafka listener: Kafka's clients could not reach it.
        error =
            version >= 6 ? Errors.LISTENER_NOT_FOUND.code() : Errors.LEADER_NOT_AVAILABLE.code();
        leader = -1;
      }
      parts.add(
          new MetadataResponseData.MetadataResponsePartition()
              .setErrorCode(error)
              .setPartitionIndex(p.getPartition())
              .setLeaderId(leader)
              .setLeaderEpoch(p.getLeaderEpoch())
              .setReplicaNodes(new ArrayList<>(p.getReplicasList()))
              .setIsrNodes(new ArrayList<>(p.getIsrList()))
              .setOfflineReplicas(new ArrayList<>(p.getOfflineReplicasList())));
    }
    return kt.setPartitions(parts);
  }

  /** Where Kafka's clients reach broker {@code id}, or null (not registered, or no listener). */
  static HostPort kafkaEndpoint(MetadataImage image, int id) {
    BrokerRegistration b = image.broker(id);
    return b == null || b.fenced() ? null : b.kafkaEndpoint();
  }
}
