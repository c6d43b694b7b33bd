package dev.spool.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.Broker;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.network.ClientResponse;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.InitProducerIdResponse;
import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.OffsetForLeaderEpochRequest;
import dev.spool.protocol.message.OffsetForLeaderEpochResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.inprocess.InProcessCluster;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One combined node (1-voter quorum + broker) through real sockets. */
@Tag("integration")
@Timeout(120)
@SpoolClusterTest(nodes = 1)
class SingleBrokerIntegrationTest {
  static TestClient client;
  static Broker broker;

  @BeforeAll
  static void start(InProcessCluster cluster) {
    client = new TestClient();
    broker = cluster.broker(1);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  private static ByteBuffer batch(String... values) {
    RecordBatchBuilder b = new RecordBatchBuilder(256);
    for (String v : values) {
      b.append(System.currentTimeMillis(), null, v.getBytes());
    }
    return b.build();
  }

  @Test
  void shouldAdvertiseEveryApiButSaslOnAListenerWithoutSasl() {
    ApiVersionsResponse r =
        client.call(
            broker,
            ApiKey.API_VERSIONS,
            ApiVersionsRequest.getDefaultInstance(),
            ApiVersionsResponse.class);
    // all but UNSPECIFIED, UNRECOGNIZED and the two SASL APIs, which only SASL listeners offer
    assertEquals(ApiKey.values().length - 4, r.getApiVersionsCount());
    assertTrue(
        r.getApiVersionsList().stream()
            .noneMatch(
                v ->
                    v.getApiKey() == ApiKey.SASL_HANDSHAKE
                        || v.getApiKey() == ApiKey.SASL_AUTHENTICATE));
  }

  @Test
  void shouldRoundTripAProducedBatchThroughFetch() {
    assertEquals(
        ErrorCode.NONE, client.createTopic(broker, "round-trip", 1, 1).getTopics(0).getErrorCode());
    PartitionMetadata pm = client.partition(broker, "round-trip", 0);
    assertEquals(1, pm.getLeaderId());
    ByteBuffer sent = batch("a", "b", "c");
    long crc = RecordBatch.at(sent, 0).checksum();
    ProduceResponse.PartitionResponse pr = client.produce(broker, "round-trip", 0, -1, sent);
    assertEquals(ErrorCode.NONE, pr.getErrorCode(), pr.getErrorMessage());
    assertEquals(0, pr.getBaseOffset());
    assertEquals(3, client.produce(broker, "round-trip", 0, 1, batch("d")).getBaseOffset());

    TestClient.Fetched f = client.fetch(broker, TestClient.consumerFetch("round-trip", 0, 0, 0));
    assertEquals(ErrorCode.NONE, f.partition().getErrorCode());
    assertEquals(4, f.partition().getHighWatermark());
    ByteBuffer got = ByteBuffer.wrap(f.records());
    RecordBatch first = RecordBatch.at(got, 0);
    assertEquals(0, first.baseOffset());
    assertEquals(crc, first.checksum(), "stored exactly as received");
    assertEquals(3, first.recordsCount());
    assertEquals(3, RecordBatch.at(got, first.sizeInBytes()).baseOffset());

    ListOffsetsResponse lo =
        client.call(
            broker,
            ApiKey.LIST_OFFSETS,
            ListOffsetsRequest.newBuilder()
                .setReplicaId(-1)
                .addTopics(
                    ListOffsetsRequest.Topic.newBuilder()
                        .setName("round-trip")
                        .addPartitions(
                            ListOffsetsRequest.Partition.newBuilder()
                                .setPartition(0)
                                .setTimestamp(-1)
                                .setCurrentLeaderEpoch(-1))
                        .addPartitions(
                            ListOffsetsRequest.Partition.newBuilder()
                                .setPartition(0)
                                .setTimestamp(-2)
                                .setCurrentLeaderEpoch(-1)))
                .build(),
            ListOffsetsResponse.class);
    assertEquals(4, lo.getTopics(0).getPartitions(0).getOffset());
    assertEquals(0, lo.getTopics(0).getPartitions(1).getOffset());

    OffsetForLeaderEpochResponse ofle =
        client.call(
            broker,
            ApiKey.OFFSET_FOR_LEADER_EPOCH,
            OffsetForLeaderEpochRequest.newBuilder()
                .addTopics(
                    OffsetForLeaderEpochRequest.Topic.newBuilder()
                        .setName("round-trip")
                        .addPartitions(
                            OffsetForLeaderEpochRequest.Partition.newBuilder()
                                .setPartition(0)
                                .setCurrentLeaderEpoch(-1)
                                .setLeaderEpoch(pm.getLeaderEpoch())))
                .build(),
            OffsetForLeaderEpochResponse.class);
    assertEquals(4, ofle.getTopics(0).getPartitions(0).getEndOffset());
  }

  @Test
  void shouldAnswerALongPollAsSoonAsDataArrives() throws Exception {
    client.createTopic(broker, "long-poll", 1, 1);
    long start = System.nanoTime();
    CompletableFuture<TestClient.Fetched> waiting =
        client.fetchAsync(broker, TestClient.consumerFetch("long-poll", 0, 0, 15_000));
    // Nothing to read yet: the fetch waits (checked over 300 ms, not once).
    org.awaitility.Awaitility.await()
        .during(300, TimeUnit.MILLISECONDS)
        .atMost(2, TimeUnit.SECONDS)
        .until(() -> !waiting.isDone());
    // From another connection: a newer request on the fetch's own connection would end the wait.
    try (TestClient producer = new TestClient()) {
      producer.produce(broker, "long-poll", 0, -1, batch("x"));
    }
    TestClient.Fetched f = waiting.get(10, TimeUnit.SECONDS);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(f.records().length > 0);
    assertTrue(elapsedMs < 10_000, "answered on the append, not at max_wait_ms: " + elapsedMs);
  }

  @Test
  void shouldEndALongPollWhenANewerRequestArrivesOnItsConnection() throws Exception {
    client.createTopic(broker, "long-poll-newer", 1, 1);
    long start = System.nanoTime();
    CompletableFuture<TestClient.Fetched> waiting =
        client.fetchAsync(broker, TestClient.consumerFetch("long-poll-newer", 0, 0, 15_000));
    org.awaitility.Awaitility.await()
        .during(300, TimeUnit.MILLISECONDS)
        .atMost(2, TimeUnit.SECONDS)
        .until(() -> !waiting.isDone());
    // Answers come in request order: this one would wait for the fetch's max_wait_ms, so the
    // fetch answers (empty) as soon as it arrives, and this one right after.
    MetadataResponse m =
        client.call(
            broker,
            ApiKey.METADATA,
            MetadataRequest.newBuilder().addTopics("long-poll-newer").build(),
            MetadataResponse.class);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(ErrorCode.NONE, m.getTopics(0).getErrorCode());
    TestClient.Fetched f = waiting.get(1, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NONE, f.partition().getErrorCode());
    assertEquals(0, f.records().length);
    assertTrue(elapsedMs < 10_000, "the metadata answer did not wait out the fetch: " + elapsedMs);
  }

  @Test
  void shouldNotHoldALaggingPartitionBehindTheLongPollOfACaughtUpOne() throws Exception {
    client.createTopic(broker, "lagging", 2, 1);
    int batches = 100;
    int perBatch = 100;
    byte[] value = new byte[100];
    for (int i = 0; i < batches; i++) {
      RecordBatchBuilder b = new RecordBatchBuilder(16 * 1024);
      for (int j = 0; j < perBatch; j++) {
        b.append(System.currentTimeMillis(), null, value);
      }
      assertEquals(
          ErrorCode.NONE, client.produce(broker, "lagging", 0, -1, b.build()).getErrorCode());
    }
    // Partition 0 needs ~40 fetches of 32 KiB; partition 1 is empty, so a fetch of it alone
    // long-polls for 10 s. Small polls keep two answers of partition 0 buffered, so fetches of
    // partition 1 alone go out; the consumer fetches partition 0 beside such a wait (the broker
    // ends it) instead of leaving its records behind it.
    java.util.Map<String, String> props =
        java.util.Map.of(
            "bootstrap.servers",
            "127.0.0.1:" + broker.boundPort(),
            "fetch.max.wait.ms",
            "10000",
            "request.timeout.ms",
            "30000",
            "max.partition.fetch.bytes",
            "32768",
            "max.poll.records",
            "10",
            "auto.offset.reset",
            "earliest");
    long start = System.nanoTime();
    int got = 0;
    try (dev.spool.client.Consumer c = new dev.spool.client.Consumer(props)) {
      c.assign(
          java.util.List.of(
              new dev.spool.common.TopicPartition("lagging", 0),
              new dev.spool.common.TopicPartition("lagging", 1)));
      while (got < batches * perBatch && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60)) {
        got += c.poll(java.time.Duration.ofMillis(200)).count();
      }
    }
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(batches * perBatch, got);
    assertTrue(elapsedMs < 15_000, "read in " + elapsedMs + " ms; long polls held it back");
  }

  @Test
  void shouldAnswerUnknownTopicForMetadataProduceAndFetch() {
    MetadataResponse m =
        client.call(
            broker,
            ApiKey.METADATA,
            MetadataRequest.newBuilder().addTopics("nope").build(),
            MetadataResponse.class);
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, m.getTopics(0).getErrorCode());
    assertEquals(1, m.getBrokersCount());
    assertEquals(broker.boundPort(), m.getBrokers(0).getPort());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        client.produce(broker, "nope", 0, 1, batch("x")).getErrorCode());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        client.fetch(broker, TestClient.consumerFetch("nope", 0, 0, 0)).partition().getErrorCode());
  }

  @Test
  void shouldCloseTheConnectionWhenTheBodyMisstatesTheRecordData() throws Exception {
    client.createTopic(broker, "mismatch", 1, 1);
    ByteBuffer b = batch("x");
    CompletableFuture<ClientResponse> f =
        client.send(
            broker,
            ApiKey.PRODUCE,
            TestClient.produceRequest("mismatch", 0, 1, b.remaining() + 10),
            Unpooled.wrappedBuffer(b));
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS).close());
    assertTrue(e.getCause() instanceof SpoolException, String.valueOf(e.getCause()));
    // The next request may still meet the closing connection; a new one answers.
    org.awaitility.Awaitility.await()
        .atMost(10, TimeUnit.SECONDS)
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertEquals(
                    0,
                    client
                        .fetch(broker, TestClient.consumerFetch("mismatch", 0, 0, 0))
                        .partition()
                        .getLogStartOffset()));
    assertEquals(
        0,
        broker
            .replicaManager()
            .partition(new dev.spool.common.TopicPartition("mismatch", 0))
            .orElseThrow()
            .log()
            .logEndOffset(),
        "the log is untouched");
  }

  @Test
  void shouldRefuseKeylessRecordsOnACompactedTopicAndDescribeItsLog() {
    CreateTopicsResponse created =
        client.call(
            broker,
            ApiKey.CREATE_TOPICS,
            CreateTopicsRequest.newBuilder()
                .setTimeoutMs(15_000)
                .addTopics(
                    CreateTopicsRequest.Topic.newBuilder()
                        .setName("table")
                        .setNumPartitions(1)
                        .setReplicationFactor(1)
                        .putConfigs("cleanup.policy", "compact"))
                .build(),
            CreateTopicsResponse.class);
    assertEquals(ErrorCode.NONE, created.getTopics(0).getErrorCode());
    ProduceResponse.PartitionResponse keyless = client.produce(broker, "table", 0, -1, batch("x"));
    assertEquals(ErrorCode.INVALID_RECORD, keyless.getErrorCode());
    assertTrue(keyless.getErrorMessage().contains("no key"), keyless.getErrorMessage());
    RecordBatchBuilder keyed = new RecordBatchBuilder(256);
    keyed.append(System.currentTimeMillis(), "k".getBytes(), "v".getBytes());
    assertEquals(
        ErrorCode.NONE, client.produce(broker, "table", 0, -1, keyed.build()).getErrorCode());

    DescribeLogsResponse logs =
        client.call(
            broker,
            ApiKey.DESCRIBE_LOGS,
            DescribeLogsRequest.newBuilder().addTopics("table").build(),
            DescribeLogsResponse.class);
    assertEquals(1, logs.getBrokerId());
    assertEquals(1, logs.getPartitionsCount(), logs.toString());
    DescribeLogsResponse.ReplicaLog log = logs.getPartitions(0);
    assertEquals("table", log.getTopic());
    assertTrue(log.getCompacted());
    assertEquals(1, log.getLogEndOffset(), "only the keyed record was appended");
    assertEquals(-1, log.getLastCleanTimeMs(), "not cleaned yet: its only segment is active");
  }

  @Test
  void shouldRefuseAFollowerFetchWithAStaleBrokerEpoch() {
    client.createTopic(broker, "stale", 1, 1);
    FetchRequest req =
        TestClient.consumerFetch("stale", 0, 0, 0).toBuilder()
            .setReplicaId(1)
            .setBrokerEpoch(broker.brokerEpoch() - 1)
            .build();
    assertEquals(ErrorCode.STALE_BROKER_EPOCH, client.fetch(broker, req).body().getErrorCode());
  }

  @Test
  void shouldServeAdminRequestsVisibleInItsOwnMetadataAtOnce() {
    client.createTopic(broker, "admin", 2, 1);
    assertEquals(
        2,
        client
            .call(
                broker,
                ApiKey.METADATA,
                MetadataRequest.newBuilder().addTopics("admin").build(),
                MetadataResponse.class)
            .getTopics(0)
            .getPartitionsCount());
    AlterConfigsResponse ac =
        client.call(
            broker,
            ApiKey.ALTER_CONFIGS,
            AlterConfigsRequest.newBuilder()
                .addTopics(
                    AlterConfigsRequest.Topic.newBuilder()
                        .setName("admin")
                        .putSet("retention.ms", "12345"))
                .build(),
            AlterConfigsResponse.class);
    assertEquals(ErrorCode.NONE, ac.getTopics(0).getErrorCode(), ac.getTopics(0).getErrorMessage());
    DescribeConfigsResponse dc =
        client.call(
            broker,
            ApiKey.DESCRIBE_CONFIGS,
            DescribeConfigsRequest.newBuilder().addTopics("admin").build(),
            DescribeConfigsResponse.class);
    var retention =
        dc.getTopics(0).getEntriesList().stream()
            .filter(e -> e.getKey().equals("retention.ms"))
            .findFirst()
            .orElseThrow();
    assertEquals("12345", retention.getValue());
    assertFalse(retention.getIsDefault());
    DescribeClusterResponse cl =
        client.call(
            broker,
            ApiKey.DESCRIBE_CLUSTER,
            DescribeClusterRequest.getDefaultInstance(),
            DescribeClusterResponse.class);
    assertEquals(ErrorCode.NONE, cl.getErrorCode(), cl.getErrorMessage());
    assertEquals(1, cl.getBrokersCount());
    assertEquals(1, cl.getQuorum().getLeaderId());
    DeleteTopicsResponse dt =
        client.call(
            broker,
            ApiKey.DELETE_TOPICS,
            DeleteTopicsRequest.newBuilder().addNames("admin").build(),
            DeleteTopicsResponse.class);
    assertEquals(ErrorCode.NONE, dt.getTopics(0).getErrorCode());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        client
            .call(
                broker,
                ApiKey.METADATA,
                MetadataRequest.newBuilder().addTopics("admin").build(),
                MetadataResponse.class)
            .getTopics(0)
            .getErrorCode());
  }

  @Test
  void shouldHandOutDistinctProducerIds() {
    InitProducerIdResponse a =
        client.call(
            broker,
            ApiKey.INIT_PRODUCER_ID,
            InitProducerIdRequest.getDefaultInstance(),
            InitProducerIdResponse.class);
    InitProducerIdResponse b =
        client.call(
            broker,
            ApiKey.INIT_PRODUCER_ID,
            InitProducerIdRequest.getDefaultInstance(),
            InitProducerIdResponse.class);
    assertEquals(ErrorCode.NONE, a.getErrorCode(), a.getErrorMessage());
    assertTrue(a.getProducerId() >= 0);
    assertTrue(a.getProducerId() != b.getProducerId());
  }
}
