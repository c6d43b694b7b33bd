package dev.spool.broker.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.Broker;
import dev.spool.broker.BrokerConfig;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import dev.spool.node.NodeConfig;
import dev.spool.node.NodeStorage;
import dev.spool.node.SpoolNode;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.FindCoordinatorRequest;
import dev.spool.protocol.message.FindCoordinatorResponse;
import dev.spool.protocol.message.OffsetCommitRequest;
import dev.spool.protocol.message.OffsetCommitResponse;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.testing.ExternalCommand;
import dev.spool.testing.MetricsText;
import dev.spool.testing.Ports;
import dev.spool.testing.Promtool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node (a combined controller and broker, started as {@code spool node start} starts it)
 * with {@code metrics.listener}: what it serves on /metrics parses with Prometheus' own parser and
 * counts what the test did; the health routes answer by the node's state; bad input gets 404, 405
 * and a start failure naming the key.
 */
@Tag("integration")
@Timeout(180)
class NodeOpsEndpointTest {
  private static final String TOPIC = "metered";
  private static final int BATCHES = 5;
  private static final int RECORDS_PER_BATCH = 3;

  @TempDir static Path dir;
  static final Ports PORTS = new Ports();
  static SpoolNode node;
  static TestClient client;
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws IOException {
    node = SpoolNode.start(formatted(combined(dir.resolve("node1"))), Clock.SYSTEM);
    client = new TestClient();
    await().atMost(Duration.ofSeconds(60)).until(() -> get("/health/ready").statusCode() == 200);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (node != null) {
      node.close();
    }
  }

  static Map<String, String> combined(Path dataDir) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("node.id", "1");
    p.put("process.roles", "broker,controller");
    p.put("cluster.id", "ops-test");
    p.put("listener", "127.0.0.1:0");
    p.put("data.dir", dataDir.toString());
    p.put("controller.quorum.voters", "1@127.0.0.1:" + PORTS.next("127.0.0.1"));
    p.put("controller.quorum.bind.host", "127.0.0.1");
    p.put("metrics.listener", "127.0.0.1:0");
    p.put("offsets.topic.num.partitions", "1");
    return p;
  }

  /** The parsed config, its directories formatted as spool storage format would. */
  static Config formatted(Map<String, String> p) {
    Config c = NodeConfig.parse(p);
    NodeStorage.format(c, c.get(BrokerConfig.CLUSTER_ID), true);
    return c;
  }

  static HttpResponse<String> get(SpoolNode n, String path) throws IOException {
    InetSocketAddress a = n.opsAddress();
    return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort() + path)).GET());
  }

  static HttpResponse<String> get(String path) throws IOException {
    return get(node, path);
  }

  private static HttpResponse<String> send(HttpRequest.Builder b) throws IOException {
    try {
      return HTTP.send(
          b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static ByteBuffer batch(int records) {
    RecordBatchBuilder b = new RecordBatchBuilder(256);
    for (int i = 0; i < records; i++) {
      b.append(System.currentTimeMillis(), null, ("value-" + i).getBytes());
    }
    return b.build();
  }

  @Test
  void shouldServeMetricsThatPrometheusParsesAndThatCountTheTraffic() throws IOException {
    Broker broker = node.broker();
    assertEquals(
        ErrorCode.NONE, client.createTopic(broker, TOPIC, 1, 1).getTopics(0).getErrorCode());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.partition(broker, TOPIC, 0).getLeaderId() == 1);
    long producedBytes = 0;
    for (int i = 0; i < BATCHES; i++) {
      ByteBuffer b = batch(RECORDS_PER_BATCH);
      producedBytes += b.remaining();
      ProduceResponse.PartitionResponse r = client.produce(broker, TOPIC, 0, -1, b);
      assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    }
    ProduceResponse.PartitionResponse refused =
        client.produce(broker, TOPIC, 7, -1, batch(1)); // no partition 7
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, refused.getErrorCode());
    TestClient.Fetched f = client.fetch(broker, TestClient.consumerFetch(TOPIC, 0, 0, 0));
    assertEquals(producedBytes, f.records().length);

    HttpResponse<String> r = get("/metrics");
    assertEquals(200, r.statusCode());
    assertTrue(
        r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
        r.headers().toString());
    String text = r.body();
    ExternalCommand.Result check = Promtool.checkMetrics(text);
    assertEquals(0, check.exitCode(), "promtool check metrics: " + check.output());

    MetricsText m = new MetricsText(text);
    assertTrue(m.value("spool_requests_total", "api", "Produce") >= BATCHES + 1);
    assertTrue(m.value("spool_requests_total", "api", "Fetch") >= 1);
    // The quota throttle counter, one series per quota type (nobody here has a quota).
    for (String type : java.util.List.of("produce", "fetch", "request")) {
      assertEquals(0.0, m.value("spool_client_quota_throttle_seconds_total", "quota_type", type));
    }
    assertEquals(0.0, m.value("spool_client_request_time_seconds_total"));
    assertTrue(m.value("spool_request_total_time_seconds_count", "api", "Produce") >= BATCHES);
    assertTrue(m.value("spool_request_remote_time_seconds_count", "api", "Produce") >= BATCHES);
    assertEquals(
        1,
        m.value(
            "spool_request_errors_total", "api", "Produce", "error", "UNKNOWN_TOPIC_OR_PARTITION"));
    assertEquals(producedBytes, m.value("spool_topic_bytes_in_total", "topic", TOPIC));
    assertEquals(
        BATCHES * RECORDS_PER_BATCH, m.value("spool_topic_records_in_total", "topic", TOPIC));
    double bytesOut = m.value("spool_topic_bytes_out_total", "topic", TOPIC);
    assertTrue(bytesOut >= producedBytes);
    assertEquals(
        bytesOut / producedBytes * BATCHES * RECORDS_PER_BATCH,
        m.value("spool_topic_records_out_total", "topic", TOPIC),
        "each read of the whole log counts all its records out");
    assertEquals(
        BATCHES * RECORDS_PER_BATCH,
        m.value("spool_log_end_offset", "topic", TOPIC, "partition", "0"));
    assertTrue(m.value("spool_log_size_bytes", "topic", TOPIC, "partition", "0") >= producedBytes);
    assertEquals(1, m.value("spool_log_segments", "topic", TOPIC, "partition", "0"));
    assertEquals(0, m.value("spool_under_replicated_partitions"));
    assertEquals(0, m.value("spool_under_min_isr_partitions"));
    assertEquals(0, m.value("spool_produce_purgatory_size"));
    assertTrue(m.value("spool_connections") >= 1);
    assertTrue(m.value("spool_request_memory_limit_bytes") > 0);
    assertTrue(m.value("spool_request_memory_used_bytes") >= 0);
    assertEquals(1, m.value("spool_broker_running"));
    assertEquals(1, m.value("spool_controller_active"));
    assertEquals(0, m.value("spool_controller_fenced_brokers"));
    assertEquals(1, m.value("spool_controller_registered_brokers"));
    assertTrue(m.value("spool_controller_metadata_commit_index") > 0);
    assertTrue(m.value("spool_controller_broker_heartbeat_age_seconds", "broker", "1") >= 0);
    assertTrue(m.value("spool_controller_leader_change_age_seconds") >= 0);
    assertTrue(m.value("spool_network_pool_direct_used_bytes") >= 0);
    assertTrue(m.value("spool_network_pool_heap_used_bytes") >= 0);
    // Registered with the broker's other metrics (the test's log has not rolled yet).
    assertTrue(m.value("spool_log_flush_seconds_count") >= 0);
    assertTrue(m.value("jvm_memory_used_bytes", "area", "heap") > 0);
  }

  @Test
  void shouldReportAGroupsCommittedOffsetAndLagAgainstTheHighWatermark() throws IOException {
    String topic = "lagged";
    String group = "lagging-readers";
    Broker broker = node.broker();
    assertEquals(
        ErrorCode.NONE, client.createTopic(broker, topic, 2, 1).getTopics(0).getErrorCode());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.partition(broker, topic, 1).getLeaderId() == 1);
    for (int i = 0; i < 4; i++) {
      ProduceResponse.PartitionResponse r = client.produce(broker, topic, 0, -1, batch(5));
      assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    }
    // FindCoordinator creates the offsets topic; the node coordinates once its shard has loaded.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              FindCoordinatorResponse.Coordinator c =
                  client
                      .call(
                          broker,
                          ApiKey.FIND_COORDINATOR,
                          FindCoordinatorRequest.newBuilder().addKeys(group).build(),
                          FindCoordinatorResponse.class)
                      .getCoordinators(0);
              return c.getErrorCode() == ErrorCode.NONE
                  && broker
                      .groupCoordinator()
                      .isLoaded(broker.groupCoordinator().partitionFor(group));
            });
    // A commit from outside the group (no member, as an admin tool commits): partition 0 at 7 of
    // 20, partition 1 (empty) at 0.
    OffsetCommitRequest commit =
        OffsetCommitRequest.newBuilder()
            .setGroupId(group)
            .setMemberEpoch(-1)
            .addTopics(
                OffsetCommitRequest.Topic.newBuilder()
                    .setName(topic)
                    .addPartitions(
                        OffsetCommitRequest.Partition.newBuilder()
                            .setPartition(0)
                            .setCommittedOffset(7))
                    .addPartitions(
                        OffsetCommitRequest.Partition.newBuilder()
                            .setPartition(1)
                            .setCommittedOffset(0)))
            .build();
    OffsetCommitResponse committed =
        client.call(broker, ApiKey.OFFSET_COMMIT, commit, OffsetCommitResponse.class);
    committed
        .getTopics(0)
        .getPartitionsList()
        .forEach(p -> assertEquals(ErrorCode.NONE, p.getErrorCode(), p.getErrorMessage()));
    assertEquals(
        20,
        node.broker()
            .replicaManager()
            .partition(new TopicPartition(topic, 0))
            .orElseThrow()
            .log()
            .highWatermark());

    String text = get("/metrics").body();
    ExternalCommand.Result check = Promtool.checkMetrics(text);
    assertEquals(0, check.exitCode(), "promtool check metrics: " + check.output());
    MetricsText m = new MetricsText(text);
    String[] p0 = {"group", group, "topic", topic, "partition", "0"};
    String[] p1 = {"group", group, "topic", topic, "partition", "1"};
    assertEquals(7, m.value("spool_group_committed_offset", p0));
    assertEquals(13, m.value("spool_group_lag_records", p0));
    assertEquals(0, m.value("spool_group_committed_offset", p1));
    assertEquals(0, m.value("spool_group_lag_records", p1));
  }

  @Test
  void shouldAnswerHealthAndRefuseUnknownPathsAndMethods() throws IOException {
    HttpResponse<String> live = get("/health/live");
    assertEquals(200, live.statusCode());
    HttpResponse<String> ready = get("/health/ready");
    assertEquals(200, ready.statusCode(), ready.body());
    assertEquals(404, get("/nope").statusCode());
    assertEquals(404, get("/metrics/extra").statusCode());
    InetSocketAddress a = node.opsAddress();
    HttpResponse<String> post =
        send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort() + "/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")));
    assertEquals(405, post.statusCode());
    // /metrics streams its answer; HEAD still answers the headers alone.
    HttpResponse<String> head =
        send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.getPort() + "/metrics"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
    assertEquals(200, head.statusCode());
    assertTrue(
        head.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
        head.headers().toString());
    assertEquals("", head.body());
  }

  @Test
  void shouldFailTheStartNamingTheKeyWhenTheMetricsPortIsTaken() throws IOException {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      Map<String, String> p = combined(dir.resolve("taken"));
      p.put("metrics.listener", "127.0.0.1:" + taken.getLocalPort());
      ConfigException e =
          assertThrows(ConfigException.class, () -> SpoolNode.start(formatted(p), Clock.SYSTEM));
      assertTrue(e.getMessage().contains("metrics.listener"), e.getMessage());
      assertTrue(e.getMessage().contains(Integer.toString(taken.getLocalPort())), e.getMessage());
      ConfigException env =
          assertThrows(
              ConfigException.class, () -> NodeConfig.checkEnvironment(NodeConfig.parse(p)));
      assertTrue(env.getMessage().contains("metrics.listener"), env.getMessage());
    }
  }

  @Test
  void shouldNotBeReadyWhenFencedBecauseHeartbeatsStopReachingTheController() throws IOException {
    // A controller-only node and a broker-only node; stopping the controller stops every
    // heartbeat answer, so the broker's session lapses: fenced, whatever the broker last heard.
    int quorumPort = PORTS.next("127.0.0.1");
    Map<String, String> c = new LinkedHashMap<>();
    c.put("node.id", "11");
    c.put("process.roles", "controller");
    c.put("cluster.id", "ops-fence");
    c.put("data.dir", dir.resolve("fence-controller").toString());
    c.put("controller.quorum.voters", "11@127.0.0.1:" + quorumPort);
    c.put("controller.quorum.bind.host", "127.0.0.1");
    Map<String, String> b = new LinkedHashMap<>();
    b.put("node.id", "12");
    b.put("process.roles", "broker");
    b.put("cluster.id", "ops-fence");
    b.put("listener", "127.0.0.1:0");
    b.put("data.dir", dir.resolve("fence-broker").toString());
    b.put("controller.quorum.voters", "11@127.0.0.1:" + quorumPort);
    b.put("metrics.listener", "127.0.0.1:0");
    b.put("controlled.shutdown.timeout.ms", "0");
    SpoolNode controller = SpoolNode.start(formatted(c), Clock.SYSTEM);
    try (SpoolNode broker = SpoolNode.start(formatted(b), Clock.SYSTEM)) {
      try {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> get(broker, "/health/ready").statusCode() == 200);
      } finally {
        controller.close();
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> get(broker, "/health/ready").statusCode() == 503);
      HttpResponse<String> ready = get(broker, "/health/ready");
      assertEquals(503, ready.statusCode(), ready.body());
      assertTrue(ready.body().contains("fenced"), ready.body());
      assertTrue(ready.body().contains("heartbeat"), ready.body());
      assertEquals(200, get(broker, "/health/live").statusCode());
    }
  }

  @Test
  void shouldNotBeReadyBeforeTheBrokerIsRegistered() throws IOException {
    // A broker-only node whose quorum is not there: it serves, but never registers.
    Map<String, String> p = new LinkedHashMap<>();
    p.put("node.id", "2");
    p.put("process.roles", "broker");
    p.put("cluster.id", "ops-test");
    p.put("listener", "127.0.0.1:0");
    p.put("data.dir", dir.resolve("lonely").toString());
    p.put("controller.quorum.voters", "1@127.0.0.1:" + PORTS.next("127.0.0.1"));
    p.put("metrics.listener", "127.0.0.1:0");
    p.put("controlled.shutdown.timeout.ms", "0");
    try (SpoolNode lonely = SpoolNode.start(formatted(p), Clock.SYSTEM)) {
      assertEquals(200, get(lonely, "/health/live").statusCode());
      HttpResponse<String> ready = get(lonely, "/health/ready");
      assertEquals(503, ready.statusCode());
      assertTrue(ready.body().contains("not registered"), ready.body());
      MetricsText m = new MetricsText(get(lonely, "/metrics").body());
      assertEquals(0, m.value("spool_broker_running"));
    }
  }
}
