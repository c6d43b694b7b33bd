package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.ElectionType;
import dev.spool.protocol.message.InitProducerIdResponse;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId, CreateTopics, CreatePartitions, DeleteTopics, ElectLeaders and DescribeCluster
 * between Kafka and Spool. The requests become Spool's (the broker forwards the admin ones to the
 * metadata quorum); the differences to Kafka's answers are written where they are made.
 *
 * <p>Threads: stateless; any thread.
 */
public final class TopicAdminCodec {
  private TopicAdminCodec() {}

  // ---------------------------------------------------------------- InitProducerId

  /**
   * The answer when the request cannot go to Spool: a transactional id (Spool has no transactions;
   * see {@link KafkaRequestDecoder}), else null.
   */
  public static KafkaResponse initProducerIdRefusal(KafkaRequest r) {
    InitProducerIdRequestData req = r.body();
    if (req.transactionalId() == null) {
      return null;
    }
    return r.respond(
        new InitProducerIdResponseData()
            .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
            .setProducerId(-1)
            .setProducerEpoch((short) -1));
  }

  /**
   * Kafka's answer. Spool answers a failed allocation with a code its own clients retry; Kafka's
   * producer treats most InitProducerId errors as fatal, so every failure is answered
   * COORDINATOR_LOAD_IN_PROGRESS, which is what Kafka's broker answers while it waits for a new
   * block of producer ids from its controller, and which the producer retries.
   */
  public static KafkaResponse initProducerIdToKafka(KafkaRequest r, InitProducerIdResponse resp) {
    InitProducerIdResponseData d =
        new InitProducerIdResponseData()
            .setThrottleTimeMs(0)
            .setProducerId(resp.getProducerId())
            .setProducerEpoch((short) resp.getProducerEpoch());
    if (resp.getErrorCode() == ErrorCode.CLUSTER_AUTHORIZATION_FAILED) {
      d.setErrorCode(KafkaErrors.code(resp.getErrorCode()))
          .setProducerId(-1)
          .setProducerEpoch((short) -1);
    } else if (resp.getErrorCode() != ErrorCode.NONE) {
      d.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code())
          .setProducerId(-1)
          .setProducerEpoch((short) -1);
    }
    return r.respond(d);
  }

  // ---------------------------------------------------------------- CreateTopics

  public static CreateTopicsRequest createTopicsToSpool(KafkaRequest r) {
    CreateTopicsRequestData req = r.body();
    CreateTopicsRequest.Builder b =
        CreateTopicsRequest.newBuilder()
            .setTimeoutMs(req.timeoutMs())
            .setValidateOnly(req.validateOnly());
    for (CreateTopicsRequestData.CreatableTopic t : req.topics()) {
      CreateTopicsRequest.Topic.Builder tb =
          CreateTopicsRequest.Topic.newBuilder()
              .setName(t.name())
              .setNumPartitions(t.numPartitions())
              .setReplicationFactor(t.replicationFactor());
      for (CreateTopicsRequestData.CreatableTopicConfig c : t.configs()) {
        if (c.value() != null) {
          tb.putConfigs(c.name(), c.value());
        }
      }
      for (CreateTopicsRequestData.CreatableReplicaAssignment a : t.assignments()) {
        tb.addAssignments(
            CreateTopicsRequest.Assignment.newBuilder()
                .setPartition(a.partitionIndex())
                .addAllReplicas(a.brokerIds()));
      }
      b.addTopics(tb);
    }
    return b.build();
  }

  /**
   * Kafka's answer; {@code configs} (may be null) holds the created topics' configurations, which
   * Kafka's answer carries from version 5.
   */
  public static KafkaResponse createTopicsToKafka(
      KafkaRequest r, CreateTopicsResponse resp, DescribeConfigsResponse configs) {
    Map<String, DescribeConfigsResponse.Result> byName = new LinkedHashMap<>();
    if (configs != null) {
      configs.getTopicsList().forEach(c -> byName.put(c.getName(), c));
    }
    CreateTopicsResponseData.CreatableTopicResultCollection topics =
        new CreateTopicsResponseData.CreatableTopicResultCollection();
    for (CreateTopicsResponse.Result t : resp.getTopicsList()) {
      CreateTopicsResponseData.CreatableTopicResult kt =
          new CreateTopicsResponseData.CreatableTopicResult()
              .setName(t.getName())
              .setTopicId(TopicIds.toKafka(t.getTopicId()))
              .setErrorCode(KafkaErrors.code(t.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(t.getErrorMessage()));
      if (t.getErrorCode() == ErrorCode.NONE) {
        kt.setNumPartitions(t.getNumPartitions())
            .setReplicationFactor((short) t.getReplicationFactor());
        DescribeConfigsResponse.Result c = byName.get(t.getName());
        if (c != null && c.getErrorCode() == ErrorCode.NONE) {
          List<CreateTopicsResponseData.CreatableTopicConfigs> entries = new ArrayList<>();
          for (DescribeConfigsResponse.ConfigEntry e : c.getEntriesList()) {
            entries.add(
                new CreateTopicsResponseData.CreatableTopicConfigs()
                    .setName(e.getKey())
                    .setValue(e.getValue())
                    .setReadOnly(false)
                    .setConfigSource(ConfigCodec.source(e))
                    .setIsSensitive(false));
          }
          kt.setConfigs(entries);
        } else {
          kt.setConfigs(null);
        }
      } else {
        kt.setConfigs(null);
      }
      topics.add(kt);
    }
    return r.respond(new CreateTopicsResponseData().setThrottleTimeMs(0).setTopics(topics));
  }

  // ---------------------------------------------------------------- CreatePartitions

  /**
   * Kafka's request as Spool's: the same fields. Kafka's null assignments (place them for me) and
   * an empty list both become no assignments; each Kafka assignment is one new partition's
   * replicas, in partition order, as in Spool's request.
   */
  public static CreatePartitionsRequest createPartitionsToSpool(KafkaRequest r) {
    CreatePartitionsRequestData req = r.body();
    CreatePartitionsRequest.Builder b =
        CreatePartitionsRequest.newBuilder()
            .setTimeoutMs(req.timeoutMs())
            .setValidateOnly(req.validateOnly());
    for (CreatePartitionsRequestData.CreatePartitionsTopic t : req.topics()) {
      CreatePartitionsRequest.Topic.Builder tb =
          CreatePartitionsRequest.Topic.newBuilder().setName(t.name()).setCount(t.count());
      if (t.assignments() != null) {
        for (CreatePartitionsRequestData.CreatePartitionsAssignment a : t.assignments()) {
          tb.addAssignments(
              CreatePartitionsRequest.Assignment.newBuilder().addAllReplicas(a.brokerIds()));
        }
      }
      b.addTopics(tb);
    }
    return b.build();
  }

  public static KafkaResponse createPartitionsToKafka(
      KafkaRequest r, CreatePartitionsResponse resp) {
    List<CreatePartitionsResponseData.CreatePartitionsTopicResult> out = new ArrayList<>();
    for (CreatePartitionsResponse.Result t : resp.getTopicsList()) {
      out.add(
          new CreatePartitionsResponseData.CreatePartitionsTopicResult()
              .setName(t.getName())
              .setErrorCode(KafkaErrors.code(t.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(t.getErrorMessage())));
    }
    return r.respond(new CreatePartitionsResponseData().setThrottleTimeMs(0).setResults(out));
  }

  // ---------------------------------------------------------------- DeleteTopics

  /** A translated DeleteTopics: the names to delete and the ids the image does not know. */
  public static final class DeleteCall {
    private final DeleteTopicsRequest request;
    private final Map<String, Uuid> idsByName;
    private final List<Uuid> unknownIds;

    private DeleteCall(DeleteTopicsRequest request, Map<String, Uuid> ids, List<Uuid> unknown) {
      this.request = request;
      this.idsByName = ids;
      this.unknownIds = unknown;
    }

    public DeleteTopicsRequest request() {
      return request;
    }
  }

  public static DeleteCall deleteTopicsToSpool(KafkaRequest r, MetadataImage image) {
    DeleteTopicsRequestData req = r.body();
    DeleteTopicsRequest.Builder b = DeleteTopicsRequest.newBuilder().setTimeoutMs(req.timeoutMs());
    Map<String, Uuid> ids = new LinkedHashMap<>();
    List<Uuid> unknown = new ArrayList<>();
    if (r.version() >= 6) {
      for (DeleteTopicsRequestData.DeleteTopicState t : req.topics()) {
        if (t.name() != null) {
          b.addNames(t.name());
          ids.put(t.name(), TopicIds.idOf(image, t.name()));
        } else {
          TopicImage ti = TopicIds.topic(image, t.topicId());
          if (ti == null) {
            unknown.add(t.topicId());
          } else {
            b.addNames(ti.name());
            ids.put(ti.name(), t.topicId());
          }
        }
      }
    } else {
      b.addAllNames(req.topicNames());
    }
    return new DeleteCall(b.build(), ids, unknown);
  }

  public static KafkaResponse deleteTopicsToKafka(
      KafkaRequest r, DeleteCall call, DeleteTopicsResponse resp) {
    DeleteTopicsResponseData.DeletableTopicResultCollection out =
        new DeleteTopicsResponseData.DeletableTopicResultCollection();
    for (DeleteTopicsResponse.Result t : resp.getTopicsList()) {
      out.add(
          new DeleteTopicsResponseData.DeletableTopicResult()
              .setName(t.getName())
              .setTopicId(call.idsByName.getOrDefault(t.getName(), Uuid.ZERO_UUID))
              .setErrorCode(KafkaErrors.code(t.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(t.getErrorMessage())));
    }
    for (Uuid id : call.unknownIds) {
      out.add(
          new DeleteTopicsResponseData.DeletableTopicResult()
              .setName(null)
              .setTopicId(id)
              .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
              .setErrorMessage("topic id " + id + " does not exist"));
    }
    return r.respond(new DeleteTopicsResponseData().setThrottleTimeMs(0).setResponses(out));
  }

  // ---------------------------------------------------------------- ElectLeaders

  public static ElectLeadersRequest electLeadersToSpool(KafkaRequest r) {
    ElectLeadersRequestData req = r.body();
    ElectLeadersRequest.Builder b =
        ElectLeadersRequest.newBuilder()
            .setElectionType(
                req.electionType() == 1 ? ElectionType.UNCLEAN : ElectionType.PREFERRED)
            .setTimeoutMs(req.timeoutMs());
    if (req.topicPartitions() != null) {
      for (ElectLeadersRequestData.TopicPartitions t : req.topicPartitions()) {
        b.addPartitions(
            TopicPartitions.newBuilder().setTopic(t.topic()).addAllPartitions(t.partitions()));
      }
    }
    return b.build();
  }

  public static KafkaResponse electLeadersToKafka(KafkaRequest r, ElectLeadersResponse resp) {
    Map<String, ElectLeadersResponseData.ReplicaElectionResult> byTopic = new LinkedHashMap<>();
    for (ElectLeadersResponse.Result p : resp.getResultsList()) {
      byTopic
          .computeIfAbsent(
              p.getTopic(), t -> new ElectLeadersResponseData.ReplicaElectionResult().setTopic(t))
          .partitionResult()
          .add(
              new ElectLeadersResponseData.PartitionResult()
                  .setPartitionId(p.getPartition())
                  .setErrorCode(KafkaErrors.code(p.getErrorCode()))
                  .setErrorMessage(KafkaErrors.message(p.getErrorMessage())));
    }
    return r.respond(
        new ElectLeadersResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
            .setReplicaElectionResults(new ArrayList<>(byTopic.values())));
  }

  // ---------------------------------------------------------------- DescribeCluster

  /** Kafka's endpoint types (KIP-919): brokers answer for brokers only. */
  private static final byte BROKERS = 1;

  /**
   * The answer when the request cannot go to Spool (a client asking a broker for the controllers'
   * endpoints, KIP-919: MISMATCHED_ENDPOINT_TYPE, as Kafka's brokers answer), else null.
   */
  public static KafkaResponse describeClusterRefusal(KafkaRequest r) {
    DescribeClusterRequestData req = r.body();
    if (r.version() < 1 || req.endpointType() == BROKERS) {
      return null;
    }
    return r.respond(
        new DescribeClusterResponseData()
            .setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
            .setErrorMessage("brokers only describe brokers")
            .setEndpointType(req.endpointType())
            .setClusterId(""));
  }

  /**
   * Kafka's answer: brokers at their Kafka endpoints (fenced ones only when asked, v2), this broker
   * as the controller (see {@link MetadataCodec}). Spool's answer also describes the metadata
   * quorum, which Kafka's has no place for; a quorum that did not answer is therefore no error
   * here.
   */
  public static KafkaResponse describeClusterToKafka(
      KafkaRequest r, DescribeClusterResponse resp, MetadataImage image, int thisBroker) {
    DescribeClusterRequestData req = r.body();
    boolean includeFenced = r.version() >= 2 && req.includeFencedBrokers();
    // Only a refusal is Kafka's error here: a quorum that did not answer leaves the brokers list,
    // which Kafka's clients use, as good as it is.
    boolean refused = resp.getErrorCode() == ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
    DescribeClusterResponseData.DescribeClusterBrokerCollection brokers =
        new DescribeClusterResponseData.DescribeClusterBrokerCollection();
    for (BrokerInfo b : resp.getBrokersList()) {
      var reg = image.broker(b.getNodeId());
      HostPort kafka = reg == null ? null : reg.kafkaEndpoint();
      if (kafka == null || (b.getFenced() && !includeFenced)) {
        continue;
      }
      brokers.add(
          new DescribeClusterResponseData.DescribeClusterBroker()
              .setBrokerId(b.getNodeId())
              .setHost(kafka.host())
              .setPort(kafka.port())
              .setRack(b.getRack().isEmpty() ? null : b.getRack())
              .setIsFenced(b.getFenced()));
    }
    return r.respond(
        new DescribeClusterResponseData()
            .setThrottleTimeMs(0)
            .setEndpointType(BROKERS)
            .setClusterId(resp.getClusterId())
            .setControllerId(thisBroker)
            .setErrorCode(refused ? KafkaErrors.code(resp.getErrorCode()) : Errors.NONE.code())
            .setErrorMessage(refused ? resp.getErrorMessage() : null)
            .setBrokers(brokers));
  }
}
