package dev.spool.broker.kafka;

import dev.spool.broker.kafka.codec.AclCodec;
import dev.spool.broker.kafka.codec.ApiVersionsCodec;
import dev.spool.broker.kafka.codec.ClientQuotaCodec;
import dev.spool.broker.kafka.codec.ConfigCodec;
import dev.spool.broker.kafka.codec.FetchCodec;
import dev.spool.broker.kafka.codec.KafkaApi;
import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.kafka.codec.MetadataCodec;
import dev.spool.broker.kafka.codec.OffsetsCodec;
import dev.spool.broker.kafka.codec.ProduceCodec;
import dev.spool.broker.kafka.codec.ReassignmentCodec;
import dev.spool.broker.kafka.codec.RecordsCodec;
import dev.spool.broker.kafka.codec.ScramCodec;
import dev.spool.broker.kafka.codec.TopicAdminCodec;
import dev.spool.broker.kafka.codec.UnregisterBrokerCodec;
import dev.spool.broker.network.WireProtocol.Connection;
import dev.spool.broker.quota.ClientQuotaManager;
import dev.spool.broker.request.AuthorizedGroups;
import dev.spool.broker.request.BrokerContext;
import dev.spool.broker.request.Handlers;
import dev.spool.broker.security.Caller;
import dev.spool.common.ErrorCode;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Serves each Kafka API through the broker's own handlers ({@link Handlers}, the instances Spool's
 * listener uses; the group APIs through its group coordinator, {@link KafkaGroupApis}): the codec
 * translates the request into Spool's message, the handler runs it, the codec translates the answer
 * back. Nothing here reads or changes broker state by itself; what differs from Spool's protocol is
 * in the codec's translators, which say why.
 *
 * <p>Threads: stateless; called on event loops, answers complete on whichever thread the handler's
 * future completes (the connection hops back to its loop before writing).
 */
final class KafkaApis {
  /** The APIs {@link #serve} answers; the others are answered UNSUPPORTED_VERSION. */
  private static final Set<KafkaApi> SERVED =
      Collections.unmodifiableSet(
          EnumSet.of(
              KafkaApi.API_VERSIONS,
              KafkaApi.METADATA,
              KafkaApi.PRODUCE,
              KafkaApi.FETCH,
              KafkaApi.LIST_OFFSETS,
              KafkaApi.OFFSET_FOR_LEADER_EPOCH,
              KafkaApi.INIT_PRODUCER_ID,
              KafkaApi.CREATE_TOPICS,
              KafkaApi.CREATE_PARTITIONS,
              KafkaApi.DELETE_TOPICS,
              KafkaApi.ELECT_LEADERS,
              KafkaApi.DESCRIBE_CLUSTER,
              KafkaApi.DESCRIBE_CONFIGS,
              KafkaApi.ALTER_CONFIGS,
              KafkaApi.INCREMENTAL_ALTER_CONFIGS,
              KafkaApi.FIND_COORDINATOR,
              KafkaApi.JOIN_GROUP,
              KafkaApi.SYNC_GROUP,
              KafkaApi.HEARTBEAT,
              KafkaApi.LEAVE_GROUP,
              KafkaApi.OFFSET_COMMIT,
              KafkaApi.OFFSET_FETCH,
              KafkaApi.OFFSET_DELETE,
              KafkaApi.CONSUMER_GROUP_HEARTBEAT,
              KafkaApi.CONSUMER_GROUP_DESCRIBE,
              KafkaApi.LIST_GROUPS,
              KafkaApi.DESCRIBE_GROUPS,
              KafkaApi.DELETE_GROUPS,
              KafkaApi.DELETE_RECORDS,
              KafkaApi.DESCRIBE_LOG_DIRS,
              KafkaApi.DESCRIBE_PRODUCERS,
              KafkaApi.DESCRIBE_USER_SCRAM_CREDENTIALS,
              KafkaApi.ALTER_USER_SCRAM_CREDENTIALS,
              KafkaApi.UNREGISTER_BROKER,
              KafkaApi.ALTER_PARTITION_REASSIGNMENTS,
              KafkaApi.LIST_PARTITION_REASSIGNMENTS,
              KafkaApi.CREATE_ACLS,
              KafkaApi.DESCRIBE_ACLS,
              KafkaApi.DELETE_ACLS,
              KafkaApi.DESCRIBE_CLIENT_QUOTAS,
              KafkaApi.ALTER_CLIENT_QUOTAS));

  private final Handlers h;
  private final BrokerContext ctx;
  private final KafkaGroupApis groups;
  private final Set<KafkaApi> served;

  /**
   * @param sasl whether the listener authenticates with SASL: SaslHandshake and SaslAuthenticate
   *     are then advertised too (answered by {@link SaslAuthenticator}, never by {@link #serve})
   */
  KafkaApis(Handlers handlers, GroupCoordinator coordinator, boolean sasl) {
    this.h = handlers;
    this.ctx = handlers.context();
    this.groups =
        new KafkaGroupApis(new AuthorizedGroups(coordinator, ctx.authorizer()), ctx::image);
    EnumSet<KafkaApi> s = EnumSet.copyOf(SERVED);
    if (sasl) {
      s.add(KafkaApi.SASL_HANDSHAKE);
      s.add(KafkaApi.SASL_AUTHENTICATE);
    }
    this.served = Collections.unmodifiableSet(s);
  }

  /** The APIs the listener answers; the others are answered UNSUPPORTED_VERSION. */
  Set<KafkaApi> served() {
    return served;
  }

  /**
   * Who sent a request, for the authorizer and audit lines (docs/security.md#acls): the SASL
   * principal once authenticated, else the client certificate's subject, else anonymous.
   */
  static Caller caller(Connection connection) {
    String principal =
        connection.session() instanceof SaslAuthenticator.Session s ? s.principal() : null;
    return Caller.of(
        principal != null ? principal : connection.tlsPrincipal(), connection.remoteAddress());
  }

  CompletableFuture<KafkaResponse> serve(KafkaRequest r, Connection connection) {
    KafkaApi api = r.api().orElseThrow();
    Caller c = caller(connection);
    return switch (api) {
      case API_VERSIONS ->
          done(ApiVersionsCodec.answer(r, served, ctx.clusterId(), ctx.brokerId()));
      case METADATA -> metadata(r, c);
      case PRODUCE -> produce(r, c);
      case FETCH -> fetch(r, connection, c);
      case LIST_OFFSETS ->
          h.listOffsets()
              .call(OffsetsCodec.listOffsetsToSpool(r), c)
              .thenApply(resp -> OffsetsCodec.listOffsetsToKafka(r, resp));
      case OFFSET_FOR_LEADER_EPOCH ->
          h.offsetForLeaderEpoch()
              .call(OffsetsCodec.offsetForLeaderEpochToSpool(r), c)
              .thenApply(resp -> OffsetsCodec.offsetForLeaderEpochToKafka(r, resp));
      case INIT_PRODUCER_ID -> initProducerId(r, c);
      case CREATE_TOPICS -> createTopics(r, c);
      case CREATE_PARTITIONS ->
          h.createPartitions()
              .call(TopicAdminCodec.createPartitionsToSpool(r), c)
              .thenApply(resp -> TopicAdminCodec.createPartitionsToKafka(r, resp));
      case DELETE_TOPICS -> {
        var call = TopicAdminCodec.deleteTopicsToSpool(r, ctx.image());
        yield h.deleteTopics()
            .call(call.request(), c)
            .thenApply(resp -> TopicAdminCodec.deleteTopicsToKafka(r, call, resp));
      }
      case ELECT_LEADERS ->
          h.electLeaders()
              .call(TopicAdminCodec.electLeadersToSpool(r), c)
              .thenApply(resp -> TopicAdminCodec.electLeadersToKafka(r, resp));
      case DESCRIBE_CLUSTER -> describeCluster(r, c);
      case DESCRIBE_CONFIGS ->
          h.describeConfigs()
              .call(ConfigCodec.describeToSpool(r), c)
              .thenApply(resp -> ConfigCodec.describeToKafka(r, resp));
      case ALTER_CONFIGS -> {
        var call = ConfigCodec.alterToSpool(r, ctx.image());
        yield alterConfigs(call, c).thenApply(resp -> ConfigCodec.alterToKafka(r, call, resp));
      }
      case INCREMENTAL_ALTER_CONFIGS -> {
        var call = ConfigCodec.incrementalAlterToSpool(r, ctx.image());
        CompletableFuture<AlterPartitionReassignmentsResponse> throttled =
            call.throttle().isEmpty()
                ? CompletableFuture.completedFuture(null)
                : h.alterPartitionReassignments()
                    .call(
                        AlterPartitionReassignmentsRequest.newBuilder()
                            .setThrottleBytesPerSec(call.throttle().getAsLong())
                            .build(),
                        c);
        yield throttled.thenCompose(
            t ->
                alterConfigs(call, c)
                    .thenApply(resp -> ConfigCodec.incrementalAlterToKafka(r, call, resp, t)));
      }
      case FIND_COORDINATOR -> groups.findCoordinator(r, c);
      case JOIN_GROUP -> groups.joinGroup(r, connection, c);
      case SYNC_GROUP -> groups.syncGroup(r, c);
      case HEARTBEAT -> groups.classicHeartbeat(r, c);
      case LEAVE_GROUP -> groups.leaveGroup(r, c);
      case OFFSET_COMMIT -> groups.offsetCommit(r, c);
      case OFFSET_FETCH -> groups.offsetFetch(r, c);
      case OFFSET_DELETE -> groups.offsetDelete(r, c);
      case CONSUMER_GROUP_HEARTBEAT -> groups.heartbeat(r, connection, c);
      case CONSUMER_GROUP_DESCRIBE -> groups.consumerGroupDescribe(r, c);
      case LIST_GROUPS -> groups.listGroups(r, c);
      case DESCRIBE_GROUPS -> groups.describeGroups(r, c);
      case DELETE_GROUPS -> groups.deleteGroups(r, c);
      case DELETE_RECORDS ->
          h.deleteRecords()
              .call(RecordsCodec.deleteRecordsToSpool(r), c)
              .thenApply(resp -> RecordsCodec.deleteRecordsToKafka(r, resp));
      case DESCRIBE_LOG_DIRS ->
          h.describeLogs()
              .call(RecordsCodec.describeLogDirsToSpool(r), c)
              .thenApply(resp -> RecordsCodec.describeLogDirsToKafka(r, resp));
      case DESCRIBE_PRODUCERS ->
          h.describeProducers()
              .call(RecordsCodec.describeProducersToSpool(r), c)
              .thenApply(resp -> RecordsCodec.describeProducersToKafka(r, resp));
      case ALTER_USER_SCRAM_CREDENTIALS ->
          h.alterUserScramCredentials()
              .call(ScramCodec.alterToSpool(r, (int) ctx.adminTimeout(0)), c)
              .thenApply(resp -> ScramCodec.alterToKafka(r, resp));
      case DESCRIBE_USER_SCRAM_CREDENTIALS ->
          h.describeUserScramCredentials()
              .call(ScramCodec.describeToSpool(r), c)
              .thenApply(resp -> ScramCodec.describeToKafka(r, resp));
      case UNREGISTER_BROKER ->
          h.unregisterBroker()
              .call(UnregisterBrokerCodec.toSpool(r, (int) ctx.adminTimeout(0)), c)
              .thenApply(resp -> UnregisterBrokerCodec.toKafka(r, resp));
      case ALTER_PARTITION_REASSIGNMENTS -> alterPartitionReassignments(r, c);
      case LIST_PARTITION_REASSIGNMENTS -> listPartitionReassignments(r, c);
      case CREATE_ACLS ->
          h.createAcls()
              .call(AclCodec.createToSpool(r, (int) ctx.adminTimeout(0)), c)
              .thenApply(resp -> AclCodec.createToKafka(r, resp));
      case DESCRIBE_ACLS ->
          h.describeAcls()
              .call(AclCodec.describeToSpool(r), c)
              .thenApply(resp -> AclCodec.describeToKafka(r, resp));
      case DELETE_ACLS ->
          h.deleteAcls()
              .call(AclCodec.deleteToSpool(r, (int) ctx.adminTimeout(0)), c)
              .thenApply(resp -> AclCodec.deleteToKafka(r, resp));
      case DESCRIBE_CLIENT_QUOTAS, ALTER_CLIENT_QUOTAS -> clientQuotas(r, c);
      default -> throw new IllegalStateException(api + " is not served"); // decoder answered it
    };
  }

  private static CompletableFuture<KafkaResponse> done(KafkaResponse r) {
    return CompletableFuture.completedFuture(r);
  }

  private CompletableFuture<KafkaResponse> metadata(KafkaRequest r, Caller c) {
    MetadataCodec.Call call = MetadataCodec.toSpool(r, ctx.image());
    return h.metadata()
        .call(call.request(), call.allowAutoCreate(), c)
        .thenApply(resp -> MetadataCodec.toKafka(r, call, resp, ctx.image(), ctx.brokerId()));
  }

  private CompletableFuture<KafkaResponse> produce(KafkaRequest r, Caller c) {
    ProduceCodec.Call call = ProduceCodec.toSpool(r, ctx.image());
    // Kafka counts the request's size; its record batches are nearly all of it.
    long bytes = call.append().stream().mapToLong(p -> p.records().remaining()).sum();
    return h.produce()
        .produce(call.acks(), call.timeoutMs(), call.append(), c)
        .thenApply(
            resp -> {
              long throttleMs =
                  ctx.quotaThrottleMs(ClientQuotaManager.Kind.PRODUCE, c, r.clientId(), bytes);
              if (call.acks() != 0) {
                return ProduceCodec.toKafka(r, call, resp, ctx.image()).throttled(throttleMs);
              }
              return ProduceCodec.anyError(call, resp)
                  ? KafkaResponse.closeWithoutAnswer()
                  : KafkaResponse.none().throttled(throttleMs);
            });
  }

  private CompletableFuture<KafkaResponse> fetch(KafkaRequest r, Connection connection, Caller c) {
    FetchCodec.Call call = FetchCodec.toSpool(r, ctx.image());
    if (call.immediate() != null) {
      return done(call.immediate());
    }
    return h.fetch()
        .fetch(call.request(), connection.newerRequest(), c)
        .thenApply(
            resp ->
                FetchCodec.toKafka(r, call, resp, ctx.image())
                    .throttled(
                        ctx.fetchThrottleMs(call.request().getReplicaId(), c, r.clientId(), resp)));
  }

  /** DescribeClientQuotas and AlterClientQuotas (docs/security.md#quotas). */
  private CompletableFuture<KafkaResponse> clientQuotas(KafkaRequest r, Caller c) {
    if (r.api().orElseThrow() == KafkaApi.DESCRIBE_CLIENT_QUOTAS) {
      var call = ClientQuotaCodec.describeToSpool(r);
      return call.refusal() != null
          ? done(call.refusal())
          : h.describeClientQuotas()
              .call(call.request(), c)
              .thenApply(resp -> ClientQuotaCodec.describeToKafka(r, resp));
    }
    var call = ClientQuotaCodec.alterToSpool(r, (int) ctx.adminTimeout(0));
    return h.alterClientQuotas()
        .call(call.request(), c)
        .thenApply(resp -> ClientQuotaCodec.alterToKafka(r, call, resp));
  }

  private CompletableFuture<KafkaResponse> initProducerId(KafkaRequest r, Caller c) {
    KafkaResponse refused = TopicAdminCodec.initProducerIdRefusal(r);
    if (refused != null) {
      return done(refused);
    }
    return h.initProducerId()
        .call(InitProducerIdRequest.getDefaultInstance(), c)
        .thenApply(resp -> TopicAdminCodec.initProducerIdToKafka(r, resp));
  }

  /**
   * CreateTopics; from version 5 Kafka's answer carries each created topic's configuration, which
   * the DescribeConfigs handler supplies once the topics exist.
   */
  private CompletableFuture<KafkaResponse> createTopics(KafkaRequest r, Caller c) {
    CreateTopicsRequest spool = TopicAdminCodec.createTopicsToSpool(r);
    return h.createTopics()
        .call(spool, c)
        .thenCompose(
            resp -> {
              if (r.version() < 5) {
                return done(TopicAdminCodec.createTopicsToKafka(r, resp, null));
              }
              DescribeConfigsRequest.Builder names = DescribeConfigsRequest.newBuilder();
              for (CreateTopicsResponse.Result t : resp.getTopicsList()) {
                if (t.getErrorCode() == ErrorCode.NONE && !spool.getValidateOnly()) {
                  names.addTopics(t.getName());
                }
              }
              return h.describeConfigs()
                  .call(names.build(), c)
                  .thenApply(cfg -> TopicAdminCodec.createTopicsToKafka(r, resp, cfg));
            });
  }

  private CompletableFuture<KafkaResponse> describeCluster(KafkaRequest r, Caller c) {
    KafkaResponse refused = TopicAdminCodec.describeClusterRefusal(r);
    if (refused != null) {
      return done(refused);
    }
    return h.describeCluster()
        .call(DescribeClusterRequest.getDefaultInstance(), c)
        .thenApply(
            resp -> TopicAdminCodec.describeClusterToKafka(r, resp, ctx.image(), ctx.brokerId()));
  }

  /**
   * AlterPartitionReassignments; partitions refused here (a replication factor change the client
   * disallowed) do not reach the quorum, and a request left with none does not ask it at all.
   */
  private CompletableFuture<KafkaResponse> alterPartitionReassignments(KafkaRequest r, Caller c) {
    ReassignmentCodec.AlterCall call = ReassignmentCodec.alterToSpool(r, ctx.image());
    if (call.immediate() != null) {
      return done(call.immediate());
    }
    CompletableFuture<AlterPartitionReassignmentsResponse> answer =
        call.forwards()
            ? h.alterPartitionReassignments().call(call.request(), c)
            : CompletableFuture.completedFuture(
                AlterPartitionReassignmentsResponse.getDefaultInstance());
    return answer.thenApply(resp -> ReassignmentCodec.alterToKafka(r, call, resp));
  }

  /** ListPartitionReassignments; a request naming no partition is answered empty here. */
  private CompletableFuture<KafkaResponse> listPartitionReassignments(KafkaRequest r, Caller c) {
    ListPartitionReassignmentsRequest spool = ReassignmentCodec.listToSpool(r);
    if (spool == null) {
      return done(
          ReassignmentCodec.listToKafka(
              r, ListPartitionReassignmentsResponse.getDefaultInstance()));
    }
    return h.listPartitionReassignments()
        .call(spool, c)
        .thenApply(resp -> ReassignmentCodec.listToKafka(r, resp));
  }

  /** An alter with no topic for Spool (every resource refused) does not reach the quorum. */
  private CompletableFuture<AlterConfigsResponse> alterConfigs(
      ConfigCodec.AlterCall call, Caller c) {
    if (call.request().getTopicsCount() == 0) {
      return CompletableFuture.completedFuture(AlterConfigsResponse.getDefaultInstance());
    }
    return h.alterConfigs().call(call.request(), c);
  }
}
