package dev.spool.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.codec.KafkaRequestDecoder;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.UnregisterBrokerRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.UnregisterBrokerResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka listener's APIs against a real broker core (no sockets, no quorum: every quorum call
 * fails), with Kafka's own classes encoding the requests and parsing the answers. Broker 1 leads
 * orders-0 and follows orders-1 (leader 2); broker 3 is fenced (see {@link HandlerTestBroker}).
 */
@Tag("unit")
@Timeout(30)
class KafkaApisTest {
  private static final Uuid ORDERS_ID =
      new Uuid(
          UUID.fromString("a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a").getMostSignificantBits(),
          UUID.fromString("a3c5e3f0-6f2e-4b7a-9d51-0c7f1d2e3b4a").getLeastSignificantBits());

  @TempDir Path dir;
  private final List<String> offsetsTopicCreations = new CopyOnWriteArrayList<>();
  private KafkaApisFixture fx;
  private HandlerTestBroker broker;
  private KafkaApis apis;
  private GroupCoordinator coordinator;
  private KafkaRequestDecoder decoder;

  @BeforeEach
  void setUp() {
    fx =
        new KafkaApisFixture(
            dir,
            (name, partitions, rf, configs) -> {
              offsetsTopicCreations.add(name + "/" + partitions);
              return new CompletableFuture<>();
            });
    broker = fx.broker;
    apis = fx.apis;
    coordinator = fx.coordinator;
    decoder = fx.decoder;
  }

  @AfterEach
  void tearDown() {
    fx.close();
  }

  private KafkaResponse serve(ApiMessage body, short version) throws Exception {
    return fx.serve(body, version);
  }

  private <T extends AbstractResponse> T call(ApiMessage body, short version) throws Exception {
    return fx.call(body, version);
  }

  private void leaderAloneInIsr() {
    fx.leaderAloneInIsr(new TopicPartition("orders", 0));
  }

  private static ProduceRequestData produce(int acks, int partition, MemoryRecords records) {
    ProduceRequestData.TopicProduceDataCollection topics =
        new ProduceRequestData.TopicProduceDataCollection();
    ProduceRequestData.TopicProduceData t =
        new ProduceRequestData.TopicProduceData().setName("orders").setTopicId(ORDERS_ID);
    t.partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records));
    topics.add(t);
    return new ProduceRequestData().setAcks((short) acks).setTimeoutMs(1000).setTopicData(topics);
  }

  private static MemoryRecords records(String... values) {
    List<SimpleRecord> rs = new ArrayList<>();
    for (String v : values) {
      rs.add(new SimpleRecord(System.currentTimeMillis(), null, v.getBytes()));
    }
    return MemoryRecords.withRecords(Compression.NONE, rs.toArray(new SimpleRecord[0]));
  }

  private static FetchRequestData fetch(int partition, long offset, int sessionEpoch) {
    return new FetchRequestData()
        .setMaxWaitMs(0)
        .setMinBytes(1)
        .setMaxBytes(1 << 20)
        .setSessionId(0)
        .setSessionEpoch(sessionEpoch)
        .setTopics(
            List.of(
                new FetchRequestData.FetchTopic()
                    .setTopic("orders")
                    .setTopicId(ORDERS_ID)
                    .setPartitions(
                        List.of(
                            new FetchRequestData.FetchPartition()
                                .setPartition(partition)
                                .setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 20)))));
  }

  @Test
  void shouldAdvertiseExactlyTheApisAndVersionsItServes() throws Exception {
    ApiVersionsResponse r =
        call(
            new ApiVersionsRequestData()
                .setClientSoftwareName("apache-kafka-java")
                .setClientSoftwareVersion("4.4.0"),
            (short) 4);
    assertEquals(Errors.NONE.code(), r.data().errorCode());
    var produce = r.data().apiKeys().find(ApiKeys.PRODUCE.id);
    assertEquals(0, produce.minVersion());
    assertEquals(13, produce.maxVersion());
    assertEquals(18, r.data().apiKeys().find(ApiKeys.FETCH.id).maxVersion());
    assertEquals(5, r.data().apiKeys().find(ApiKeys.INIT_PRODUCER_ID.id).maxVersion());
    assertEquals(apis.served().size(), r.data().apiKeys().size());
    assertNull(r.data().apiKeys().find(ApiKeys.ADD_PARTITIONS_TO_TXN.id));

    ApiVersionsResponse bad =
        call(new ApiVersionsRequestData().setClientSoftwareName("-bad name"), (short) 3);
    assertEquals(Errors.INVALID_REQUEST.code(), bad.data().errorCode());
    ApiVersionsResponse other =
        call(
            new ApiVersionsRequestData()
                .setClientSoftwareName("x")
                .setClientSoftwareVersion("1")
                .setClusterId("another-cluster")
                .setNodeId(1),
            (short) 5);
    assertEquals(Errors.REBOOTSTRAP_REQUIRED.code(), other.data().errorCode());
  }

  /**
   * FindCoordinator before the offsets topic exists: the coordinator is asked to create it and
   * every key is answered COORDINATOR_NOT_AVAILABLE (clients retry), in the single-key layout
   * before version 4 and the batched one from 4; transactional keys are refused as the
   * transactional APIs are.
   */
  @Test
  void shouldAnswerFindCoordinatorPerVersionAndRefuseTransactionalKeys() throws Exception {
    FindCoordinatorResponse batched =
        call(
            new FindCoordinatorRequestData()
                .setKeyType((byte) 0)
                .setCoordinatorKeys(List.of("g1", "g2")),
            (short) 6);
    assertEquals(
        List.of("g1", "g2"), batched.data().coordinators().stream().map(c -> c.key()).toList());
    batched
        .data()
        .coordinators()
        .forEach(c -> assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), c.errorCode()));
    assertEquals(List.of("__consumer_offsets/50"), offsetsTopicCreations);

    FindCoordinatorResponse single =
        call(new FindCoordinatorRequestData().setKey("g1").setKeyType((byte) 0), (short) 3);
    assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), single.data().errorCode());
    assertEquals(-1, single.data().nodeId());

    FindCoordinatorResponse txn =
        call(
            new FindCoordinatorRequestData().setKeyType((byte) 1).setCoordinatorKeys(List.of("tx")),
            (short) 6);
    assertEquals(
        Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code(),
        txn.data().coordinators().get(0).errorCode());
  }

  /**
   * Group requests at a broker that leads no offsets partition: each group is answered
   * NOT_COORDINATOR in its own place (OffsetFetch v8+ per group, OffsetCommit per partition), so
   * Kafka's clients look the coordinator up again; an OffsetCommit v10 naming an unknown topic id
   * gets UNKNOWN_TOPIC_ID for it.
   */
  @Test
  void shouldAnswerEachGroupOfABatchWithItsCoordinatorError() throws Exception {
    OffsetFetchResponse fetch =
        call(
            new OffsetFetchRequestData()
                .setGroups(
                    List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("a"),
                        new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("b"))),
            (short) 9);
    assertEquals(List.of("a", "b"), fetch.data().groups().stream().map(g -> g.groupId()).toList());
    fetch
        .data()
        .groups()
        .forEach(g -> assertEquals(Errors.NOT_COORDINATOR.code(), g.errorCode(), g.groupId()));

    Uuid unknown = Uuid.randomUuid();
    OffsetCommitResponse commit =
        call(
            new OffsetCommitRequestData()
                .setGroupId("a")
                .setGenerationIdOrMemberEpoch(-1)
                .setMemberId("")
                .setTopics(List.of(commitTopic(ORDERS_ID, 0), commitTopic(unknown, 0))),
            (short) 10);
    assertEquals(2, commit.data().topics().size());
    assertEquals(ORDERS_ID, commit.data().topics().get(0).topicId());
    assertEquals(
        Errors.NOT_COORDINATOR.code(),
        commit.data().topics().get(0).partitions().get(0).errorCode());
    assertEquals(unknown, commit.data().topics().get(1).topicId());
    assertEquals(
        Errors.UNKNOWN_TOPIC_ID.code(),
        commit.data().topics().get(1).partitions().get(0).errorCode());

    DescribeGroupsResponse describe =
        call(new DescribeGroupsRequestData().setGroups(List.of("a")), (short) 5);
    assertEquals(Errors.NOT_COORDINATOR.code(), describe.data().groups().get(0).errorCode());
    ListGroupsResponse list = call(new ListGroupsRequestData(), (short) 5);
    assertEquals(Errors.NONE.code(), list.data().errorCode());
    assertEquals(List.of(), list.data().groups());
  }

  private static OffsetCommitRequestData.OffsetCommitRequestTopic commitTopic(Uuid id, int p) {
    return new OffsetCommitRequestData.OffsetCommitRequestTopic()
        .setTopicId(id)
        .setPartitions(
            List.of(
                new OffsetCommitRequestData.OffsetCommitRequestPartition()
                    .setPartitionIndex(p)
                    .setCommittedOffset(5)));
  }

  @Test
  void shouldDescribeBrokersAtTheirKafkaListenersAndTopicsWithIds() throws Exception {
    MetadataResponse m = call(new MetadataRequestData().setTopics(null), (short) 13);
    assertEquals(List.of(1, 2), m.data().brokers().stream().map(b -> b.nodeId()).toList());
    assertEquals("kafka-2", m.data().brokers().find(2).host());
    assertEquals(19002, m.data().brokers().find(2).port());
    assertEquals(1, m.data().controllerId(), "this broker takes the admin requests");
    var orders = m.data().topics().find("orders");
    assertEquals(ORDERS_ID, orders.topicId());
    assertFalse(orders.isInternal());
    assertEquals(1, orders.partitions().get(0).leaderId());
    assertEquals(2, orders.partitions().get(1).leaderId());
    assertEquals(List.of(3), orders.partitions().get(0).offlineReplicas());

    MetadataResponse unknown =
        call(
            new MetadataRequestData()
                .setTopics(
                    List.of(
                        new MetadataRequestData.MetadataRequestTopic().setName("nope"),
                        new MetadataRequestData.MetadataRequestTopic()
                            .setName(null)
                            .setTopicId(Uuid.randomUuid())))
                .setAllowAutoTopicCreation(false),
            (short) 12);
    var topics = new ArrayList<>(unknown.data().topics());
    assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), topics.get(0).errorCode());
    assertEquals("nope", topics.get(0).name());
    assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), topics.get(1).errorCode());
    assertNull(topics.get(1).name());
  }

  @Test
  void shouldNotOfferALeaderWithoutAKafkaListener() throws Exception {
    // Broker 2 restarts without a Kafka listener: it leads orders-1 but Kafka clients cannot reach
    // it.
    broker.apply(Records.registerBroker(2, "inc-2b", "host2", 9002, "", 0));
    broker.apply(Records.unfenceBroker(2, broker.image().broker(2).epoch()));
    broker.publish();
    MetadataResponse v13 = call(new MetadataRequestData().setTopics(null), (short) 13);
    assertEquals(List.of(1), v13.data().brokers().stream().map(b -> b.nodeId()).toList());
    var p1 = v13.data().topics().find("orders").partitions().get(1);
    assertEquals(Errors.LISTENER_NOT_FOUND.code(), p1.errorCode());
    assertEquals(-1, p1.leaderId());
    MetadataResponse v5 = call(new MetadataRequestData().setTopics(null), (short) 5);
    assertEquals(
        Errors.LEADER_NOT_AVAILABLE.code(),
        v5.data().topics().find("orders").partitions().get(1).errorCode());
  }

  @Test
  void shouldFetchWhatItProducedFromTheSegmentFile() throws Exception {
    leaderAloneInIsr();
    ProduceResponse p = call(produce(1, 0, records("a", "b", "c")), (short) 9);
    var pr = p.data().responses().iterator().next().partitionResponses().get(0);
    assertEquals(Errors.NONE.code(), pr.errorCode());
    assertEquals(0, pr.baseOffset());
    ProduceResponse p2 = call(produce(1, 0, records("d")), (short) 13);
    assertEquals(
        3, p2.data().responses().iterator().next().partitionResponses().get(0).baseOffset());

    for (short v : new short[] {4, 12, 18}) {
      FetchResponse f = call(fetch(0, 0, v >= 7 ? 0 : -1), v);
      var part = f.data().responses().get(0).partitions().get(0);
      assertEquals(Errors.NONE.code(), part.errorCode(), "v" + v);
      assertEquals(4, part.highWatermark(), "v" + v);
      List<String> values = new ArrayList<>();
      for (Record r : ((MemoryRecords) part.records()).records()) {
        values.add(new String(org.apache.kafka.common.utils.Utils.toArray(r.value())));
      }
      assertEquals(List.of("a", "b", "c", "d"), values, "v" + v);
      assertEquals(0, f.data().sessionId());
    }
  }

  @Test
  void shouldSendAProducerToTheLeaderWithItsKafkaEndpoint() throws Exception {
    ProduceResponse p = call(produce(1, 1, records("x")), (short) 12);
    var pr = p.data().responses().iterator().next().partitionResponses().get(0);
    assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), pr.errorCode());
    assertEquals(2, pr.currentLeader().leaderId());
    var endpoint = p.data().nodeEndpoints().find(2);
    assertEquals("kafka-2", endpoint.host());
    assertEquals(19002, endpoint.port());
  }

  /** Leader hints exist from Produce v10 and Fetch v12, their endpoints from Fetch v16. */
  @Test
  void shouldAnswerAFollowersNotLeaderInVersionsWithoutLeaderHints() throws Exception {
    for (short v : new short[] {3, 9}) {
      ProduceResponse p = call(produce(1, 1, records("x")), v);
      var pr = p.data().responses().iterator().next().partitionResponses().get(0);
      assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), pr.errorCode(), "v" + v);
      assertEquals(-1, pr.currentLeader().leaderId(), "v" + v);
    }
    for (short v : new short[] {4, 11, 12, 15, 16}) {
      FetchResponse f = call(fetch(1, 0, v >= 7 ? 0 : -1), v);
      var part = f.data().responses().get(0).partitions().get(0);
      assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), part.errorCode(), "v" + v);
      assertEquals(v >= 12 ? 2 : -1, part.currentLeader().leaderId(), "v" + v);
      assertEquals(v >= 16 ? 1 : 0, f.data().nodeEndpoints().size(), "v" + v);
    }
  }

  @Test
  void shouldAnswerNothingForAcksZeroAndCloseWhenItFailed() throws Exception {
    KafkaResponse ok = serve(produce(0, 0, records("x")), (short) 9);
    assertTrue(ok.isNone());
    assertFalse(ok.closeAfterSend());
    assertEquals(
        1,
        broker
            .replicas()
            .partition(new TopicPartition("orders", 0))
            .orElseThrow()
            .log()
            .logEndOffset());
    KafkaResponse failed = serve(produce(0, 1, records("x")), (short) 9);
    assertTrue(failed.isNone());
    assertTrue(failed.closeAfterSend(), "the only way to tell an acks=0 producer");
  }

  @Test
  void shouldRefuseIncrementalFetchSessionsAndUnknownTopicIds() throws Exception {
    FetchResponse session = call(fetch(0, 0, 3), (short) 12);
    assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, session.error());
    FetchRequestData unknownId = fetch(0, 0, 0);
    unknownId.topics().get(0).setTopicId(Uuid.randomUuid());
    FetchResponse f = call(unknownId, (short) 13);
    assertEquals(
        Errors.UNKNOWN_TOPIC_ID.code(),
        f.data().responses().get(0).partitions().get(0).errorCode());
  }

  @Test
  void shouldListOffsetsIncludingTheTimestampsOfTieredStorage() throws Exception {
    leaderAloneInIsr();
    call(produce(1, 0, records("a", "b")), (short) 9);
    List<Long> asked = List.of(-2L, -1L, -4L, -5L, -6L);
    List<ListOffsetsRequestData.ListOffsetsPartition> parts = new ArrayList<>();
    for (long ts : asked) {
      parts.add(
          new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(ts));
    }
    ListOffsetsResponse r =
        call(
            new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setTopics(
                    List.of(
                        new ListOffsetsRequestData.ListOffsetsTopic()
                            .setName("orders")
                            .setPartitions(parts))),
            (short) 11);
    List<Long> offsets =
        r.data().topics().get(0).partitions().stream().map(p -> p.offset()).toList();
    assertEquals(List.of(0L, 2L, 0L, -1L, -1L), offsets);
  }

  /** librdkafka 2.0 asks at v2; the leader epoch exists from v4 only. */
  @Test
  void shouldListOffsetsAtEveryVersionKafkasClientsUse() throws Exception {
    leaderAloneInIsr();
    call(produce(1, 0, records("a", "b")), (short) 9);
    for (short v = 1; v <= 11; v++) {
      ListOffsetsResponse r =
          call(
              new ListOffsetsRequestData()
                  .setReplicaId(-1)
                  .setTopics(
                      List.of(
                          new ListOffsetsRequestData.ListOffsetsTopic()
                              .setName("orders")
                              .setPartitions(
                                  List.of(
                                      new ListOffsetsRequestData.ListOffsetsPartition()
                                          .setPartitionIndex(0)
                                          .setTimestamp(-1L))))),
              v);
      var p = r.data().topics().get(0).partitions().get(0);
      assertEquals(Errors.NONE.code(), p.errorCode(), "v" + v);
      assertEquals(2L, p.offset(), "v" + v);
      assertEquals(v >= 4 ? 0 : -1, p.leaderEpoch(), "v" + v);
    }
  }

  @Test
  void shouldKeepAnIdempotentProducerRetryingWhenNoProducerIdCanBeHad() throws Exception {
    InitProducerIdResponse r =
        call(new InitProducerIdRequestData().setTransactionalId(null), (short) 5);
    assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, r.error());
    InitProducerIdResponse tx =
        call(new InitProducerIdRequestData().setTransactionalId("tx"), (short) 5);
    assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, tx.error());
  }

  @Test
  void shouldForwardAdminChangesAndTellWhenTheQuorumDoesNotAnswer() throws Exception {
    CreateTopicsRequestData.CreatableTopicCollection topics =
        new CreateTopicsRequestData.CreatableTopicCollection();
    topics.add(
        new CreateTopicsRequestData.CreatableTopic()
            .setName("new")
            .setNumPartitions(3)
            .setReplicationFactor((short) 1));
    CreateTopicsResponse c =
        call(new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(1000), (short) 7);
    assertEquals(Errors.REQUEST_TIMED_OUT.code(), c.data().topics().find("new").errorCode());

    IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection res =
        new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
    res.add(
        new IncrementalAlterConfigsRequestData.AlterConfigsResource()
            .setResourceType((byte) 4)
            .setResourceName("1"));
    IncrementalAlterConfigsResponse a =
        call(new IncrementalAlterConfigsRequestData().setResources(res), (short) 1);
    assertEquals(Errors.INVALID_REQUEST.code(), a.data().responses().get(0).errorCode());

    UnregisterBrokerResponse u = call(new UnregisterBrokerRequestData().setBrokerId(4), (short) 0);
    assertEquals(Errors.REQUEST_TIMED_OUT.code(), u.data().errorCode());
    assertTrue(u.data().errorMessage().contains("metadata quorum"), u.data().errorMessage());
  }

  @Test
  void shouldDescribeTopicConfigsAndNoDynamicBrokerConfigs() throws Exception {
    DescribeConfigsResponse r =
        call(
            new DescribeConfigsRequestData()
                .setResources(
                    List.of(
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                            .setResourceType((byte) 2)
                            .setResourceName("orders")
                            .setConfigurationKeys(List.of("retention.ms", "segment.bytes")),
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                            .setResourceType((byte) 4)
                            .setResourceName("1"),
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                            .setResourceType((byte) 99)
                            .setResourceName("x")))
                .setIncludeDocumentation(true),
            (short) 4);
    var topic = r.data().results().get(0);
    assertEquals(Errors.NONE.code(), topic.errorCode());
    assertEquals(
        List.of("retention.ms", "segment.bytes"),
        topic.configs().stream().map(c -> c.name()).sorted().toList());
    var retention =
        topic.configs().stream().filter(c -> c.name().equals("retention.ms")).findFirst().get();
    assertEquals(5, retention.configSource(), "DEFAULT_CONFIG");
    assertEquals(5, retention.configType(), "LONG");
    assertFalse(retention.documentation().isEmpty());
    assertEquals(Errors.NONE.code(), r.data().results().get(1).errorCode());
    assertTrue(r.data().results().get(1).configs().isEmpty());
    assertEquals(Errors.INVALID_REQUEST.code(), r.data().results().get(2).errorCode());
  }

  @Test
  void shouldDescribeTheClustersBrokersAtTheirKafkaListeners() throws Exception {
    DescribeClusterResponse r = call(new DescribeClusterRequestData(), (short) 2);
    assertEquals(Errors.NONE.code(), r.data().errorCode());
    assertEquals(2, r.data().brokers().size());
    assertEquals(1, r.data().controllerId());
    DescribeClusterResponse all =
        call(new DescribeClusterRequestData().setIncludeFencedBrokers(true), (short) 2);
    assertTrue(all.data().brokers().find(3).isFenced());
    DescribeClusterResponse controllers =
        call(new DescribeClusterRequestData().setEndpointType((byte) 2), (short) 1);
    assertEquals(Errors.MISMATCHED_ENDPOINT_TYPE.code(), controllers.data().errorCode());
  }

  private static AlterPartitionReassignmentsRequestData reassign(
      boolean allowRfChange, int partition, List<Integer> replicas) {
    return new AlterPartitionReassignmentsRequestData()
        .setTimeoutMs(1000)
        .setAllowReplicationFactorChange(allowRfChange)
        .setTopics(
            List.of(
                new AlterPartitionReassignmentsRequestData.ReassignableTopic()
                    .setName("orders")
                    .setPartitions(
                        List.of(
                            new AlterPartitionReassignmentsRequestData.ReassignablePartition()
                                .setPartitionIndex(partition)
                                .setReplicas(replicas)))));
  }

  @Test
  void shouldForwardReassignmentsAndRefuseADisallowedReplicationFactorChangeWithoutTheQuorum()
      throws Exception {
    ApiVersionsResponse versions =
        call(
            new ApiVersionsRequestData()
                .setClientSoftwareName("apache-kafka-java")
                .setClientSoftwareVersion("4.4.0"),
            (short) 3);
    assertEquals(
        1, versions.data().apiKeys().find(ApiKeys.ALTER_PARTITION_REASSIGNMENTS.id).maxVersion());
    assertEquals(
        0, versions.data().apiKeys().find(ApiKeys.LIST_PARTITION_REASSIGNMENTS.id).maxVersion());

    // Forwarded: the quorum does not answer here, so every partition carries the top-level error.
    AlterPartitionReassignmentsResponse forwarded =
        call(reassign(true, 0, List.of(2, 1)), (short) 1);
    assertEquals(Errors.REQUEST_TIMED_OUT.code(), forwarded.data().errorCode());
    var p0 = forwarded.data().responses().get(0).partitions().get(0);
    assertEquals(0, p0.partitionIndex());
    assertEquals(Errors.REQUEST_TIMED_OUT.code(), p0.errorCode());
    AlterPartitionReassignmentsResponse cancel = call(reassign(true, 1, null), (short) 0);
    assertEquals(Errors.REQUEST_TIMED_OUT.code(), cancel.data().errorCode());

    // Refused from the image (orders-0 has 3 replicas), so no quorum needed: a real answer.
    AlterPartitionReassignmentsResponse refused =
        call(reassign(false, 0, List.of(2, 1)), (short) 1);
    assertEquals(Errors.NONE.code(), refused.data().errorCode());
    var r0 = refused.data().responses().get(0).partitions().get(0);
    assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), r0.errorCode());
    assertEquals("The replication factor is changed from 3 to 2", r0.errorMessage());
  }

  @Test
  void shouldListTheReassignmentsInTheBrokersImage() throws Exception {
    ListPartitionReassignmentsResponse none =
        call(new ListPartitionReassignmentsRequestData().setTopics(null), (short) 0);
    assertEquals(Errors.NONE.code(), none.data().errorCode());
    assertTrue(none.data().topics().isEmpty());

    // orders-1 moves from [2, 1, 3] to [2, 1]: 3 is leaving.
    broker.apply(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.REASSIGNMENT));
    var p1 = broker.image().partition(new TopicPartition("orders", 1));
    broker.apply(Records.partitionChange(p1, 2, p1.isr(), List.of(2, 1, 3), List.of(), List.of(3)));
    broker.publish();

    ListPartitionReassignmentsResponse all =
        call(new ListPartitionReassignmentsRequestData().setTopics(null), (short) 0);
    assertEquals(1, all.data().topics().size());
    var orders = all.data().topics().get(0);
    assertEquals("orders", orders.name());
    var moving = orders.partitions().get(0);
    assertEquals(1, moving.partitionIndex());
    assertEquals(List.of(2, 1, 3), moving.replicas());
    assertEquals(List.of(), moving.addingReplicas());
    assertEquals(List.of(3), moving.removingReplicas());

    ListPartitionReassignmentsResponse onlyP0 =
        call(
            new ListPartitionReassignmentsRequestData()
                .setTopics(
                    List.of(
                        new ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics()
                            .setName("orders")
                            .setPartitionIndexes(List.of(0)))),
            (short) 0);
    assertTrue(onlyP0.data().topics().isEmpty(), "orders-0 is not moving");
    ListPartitionReassignmentsResponse nothing =
        call(new ListPartitionReassignmentsRequestData().setTopics(List.of()), (short) 0);
    assertTrue(nothing.data().topics().isEmpty(), "an empty topic list names nothing");
  }
}
