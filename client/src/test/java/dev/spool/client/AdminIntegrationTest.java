package dev.spool.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.testing.FakeBroker;
import dev.spool.client.testing.FakeCluster;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.ElectionType;
import dev.spool.protocol.message.QuorumInfo;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("integration")
@Timeout(60)
class AdminIntegrationTest {
  private FakeCluster cluster;
  private Admin admin;

  @AfterEach
  void tearDown() {
    if (admin != null) {
      admin.close();
    }
    cluster.close();
  }

  private Admin admin(String... extra) {
    Map<String, String> props =
        new java.util.HashMap<>(
            Map.of(
                "bootstrap.servers",
                cluster.bootstrap(),
                "retry.backoff.ms",
                "10",
                "default.api.timeout.ms",
                "5000"));
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    admin = new Admin(props);
    return admin;
  }

  private static SpoolException failure(CompletableFuture<?> f) {
    CompletionException e = assertThrows(CompletionException.class, f::join);
    return assertInstanceOf(SpoolException.class, e.getCause());
  }

  @Test
  void shouldCreateListDescribeAndDeleteTopics() {
    cluster = FakeCluster.start(3);
    Admin a = admin();
    a.createTopic(new NewTopic("orders", 3, 3, Map.of("retention.ms", "1000"))).join();
    a.createTopic(NewTopic.of("audit")).join();
    CreateTopicsRequest sent =
        cluster.brokers().stream()
            .flatMap(b -> b.received(ApiKey.CREATE_TOPICS).stream())
            .filter(r -> r.body(CreateTopicsRequest.class).getTopics(0).getName().equals("audit"))
            .findFirst()
            .orElseThrow()
            .body(CreateTopicsRequest.class);
    assertEquals(-1, sent.getTopics(0).getNumPartitions(), "server default");
    assertEquals(-1, sent.getTopics(0).getReplicationFactor(), "server default");
    assertEquals(List.of("audit", "orders"), a.listTopics().join());

    TopicDescription d = a.describeTopic("orders").join();
    assertEquals(3, d.partitions().size());
    TopicDescription.PartitionDescription p0 = d.partitions().get(0);
    assertEquals(1, p0.leader());
    assertEquals(0, p0.leaderEpoch());
    assertEquals(List.of(1, 2, 3), p0.replicas());
    assertEquals(List.of(1, 2, 3), p0.isr());

    assertEquals(
        ErrorCode.TOPIC_ALREADY_EXISTS, failure(a.createTopic(NewTopic.of("orders"))).errorCode());
    a.deleteTopics(List.of("orders")).join();
    assertEquals(List.of("audit"), a.listTopics().join());
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        failure(a.deleteTopics(List.of("orders"))).errorCode());
  }

  @Test
  void shouldFailDescribeOfAnUnknownTopicAfterAFewLookups() {
    cluster = FakeCluster.start(1);
    Admin a = admin();
    assertEquals(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, failure(a.describeTopic("nope")).errorCode());
    assertTrue(
        cluster.broker(1).received(ApiKey.METADATA).stream()
                .filter(
                    r ->
                        r.body(dev.spool.protocol.message.MetadataRequest.class)
                            .getIncludeConfigs())
                .count()
            >= 3);
  }

  @Test
  void shouldRetryRetriableErrorsUntilTheyClear() {
    cluster = FakeCluster.start(1);
    AtomicInteger calls = new AtomicInteger();
    cluster
        .broker(1)
        .handle(
            ApiKey.CREATE_TOPICS,
            (r, out) -> {
              CreateTopicsResponse.Result.Builder res =
                  CreateTopicsResponse.Result.newBuilder().setName("t");
              if (calls.incrementAndGet() < 3) {
                res.setErrorCode(ErrorCode.QUORUM_UNAVAILABLE);
              }
              out.reply(CreateTopicsResponse.newBuilder().addTopics(res).build());
            });
    admin().createTopic(NewTopic.of("t")).join();
    assertEquals(3, calls.get());
  }

  @Test
  void shouldGiveUpWithTimeoutWhenErrorsPersist() {
    cluster = FakeCluster.start(1);
    cluster
        .broker(1)
        .handle(
            ApiKey.CREATE_TOPICS,
            (r, out) ->
                out.reply(
                    CreateTopicsResponse.newBuilder()
                        .addTopics(
                            CreateTopicsResponse.Result.newBuilder()
                                .setName("t")
                                .setErrorCode(ErrorCode.NOT_CONTROLLER))
                        .build()));
    SpoolException e =
        failure(admin("default.api.timeout.ms", "500").createTopic(NewTopic.of("t")));
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, e.errorCode());
    assertTrue(e.getMessage().contains("NOT_CONTROLLER"), e.getMessage());
  }

  @Test
  void shouldDescribeTheClusterAndQuorum() {
    cluster = FakeCluster.start(2);
    for (FakeBroker b : cluster.brokers()) {
      b.handle(
          ApiKey.DESCRIBE_CLUSTER,
          (r, out) ->
              out.reply(
                  DescribeClusterResponse.newBuilder()
                      .setClusterId("c1")
                      .addBrokers(
                          BrokerInfo.newBuilder()
                              .setNodeId(2)
                              .setHost("h2")
                              .setPort(2)
                              .setBrokerEpoch(22)
                              .setFenced(true))
                      .addBrokers(
                          BrokerInfo.newBuilder()
                              .setNodeId(1)
                              .setHost("h1")
                              .setPort(1)
                              .setBrokerEpoch(11))
                      .setQuorum(
                          QuorumInfo.newBuilder()
                              .setLeaderId(1)
                              .setTerm(4)
                              .setCommitIndex(99)
                              .addVoters(
                                  QuorumInfo.Voter.newBuilder()
                                      .setNodeId(1)
                                      .setLag(0)
                                      .setLastIndex(99))
                              .addVoters(
                                  QuorumInfo.Voter.newBuilder()
                                      .setNodeId(2)
                                      .setLag(5)
                                      .setLastIndex(94)))
                      .setOfflinePartitions(1)
                      .setUnderReplicatedPartitions(2)
                      .setMetadataOffset(99)
                      .build()));
    }
    ClusterDescription d = admin().describeCluster().join();
    assertEquals(1, d.controllerId());
    assertEquals(List.of(1, 2), d.brokers().stream().map(ClusterDescription.Broker::id).toList());
    assertTrue(d.brokers().get(1).fenced());
    assertEquals(22, d.brokers().get(1).epoch());
    assertEquals(5, d.quorum().voters().get(1).lag());
    assertEquals(1, d.offlinePartitions());
    assertEquals(2, d.underReplicatedPartitions());
  }

  @Test
  void shouldElectLeadersAndReportPerPartition() {
    cluster = FakeCluster.start(1);
    cluster
        .broker(1)
        .handle(
            ApiKey.ELECT_LEADERS,
            (r, out) -> {
              ElectLeadersRequest req = r.body(ElectLeadersRequest.class);
              assertEquals(ElectionType.UNCLEAN, req.getElectionType());
              out.reply(
                  ElectLeadersResponse.newBuilder()
                      .addResults(
                          ElectLeadersResponse.Result.newBuilder()
                              .setTopic("t")
                              .setPartition(1)
                              .setErrorCode(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE))
                      .addResults(
                          ElectLeadersResponse.Result.newBuilder().setTopic("t").setPartition(0))
                      .build());
            });
    List<ElectionResult> results =
        admin()
            .electLeaders(
                Admin.ElectionType.UNCLEAN,
                List.of(new TopicPartition("t", 0), new TopicPartition("t", 1)))
            .join();
    assertEquals(2, results.size());
    assertTrue(results.get(0).succeeded());
    assertEquals(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, results.get(1).error());
  }

  @Test
  void shouldDescribeAndAlterConfigs() {
    cluster = FakeCluster.start(1);
    cluster
        .broker(1)
        .handle(
            ApiKey.DESCRIBE_CONFIGS,
            (r, out) ->
                out.reply(
                    DescribeConfigsResponse.newBuilder()
                        .addTopics(
                            DescribeConfigsResponse.Result.newBuilder()
                                .setName("t")
                                .addEntries(
                                    DescribeConfigsResponse.ConfigEntry.newBuilder()
                                        .setKey("segment.ms")
                                        .setValue("5")
                                        .setIsDefault(false))
                                .addEntries(
                                    DescribeConfigsResponse.ConfigEntry.newBuilder()
                                        .setKey("retention.ms")
                                        .setValue("7")
                                        .setIsDefault(true)))
                        .build()));
    cluster
        .broker(1)
        .handle(
            ApiKey.ALTER_CONFIGS,
            (r, out) -> {
              AlterConfigsRequest.Topic t = r.body(AlterConfigsRequest.class).getTopics(0);
              AlterConfigsResponse.Result.Builder res =
                  AlterConfigsResponse.Result.newBuilder().setName(t.getName());
              if (t.getSetMap().containsKey("bogus")) {
                res.setErrorCode(ErrorCode.INVALID_CONFIG).setErrorMessage("unknown key bogus");
              }
              out.reply(AlterConfigsResponse.newBuilder().addTopics(res).build());
            });
    Admin a = admin();
    List<ConfigEntry> entries = a.describeConfigs(List.of("t")).join().get("t");
    assertEquals(
        List.of("retention.ms", "segment.ms"), entries.stream().map(ConfigEntry::key).toList());
    a.alterConfigs("t", Map.of("retention.ms", "1"), List.of("segment.ms")).join();
    SpoolException e = failure(a.alterConfigs("t", Map.of("bogus", "1"), List.of()));
    assertEquals(ErrorCode.INVALID_CONFIG, e.errorCode());
    assertTrue(e.getMessage().contains("bogus"));
  }

  @Test
  void shouldReportAnUnreachableClusterAsBrokerNotAvailable() throws Exception {
    cluster = FakeCluster.start(1);
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    admin =
        new Admin(
            Map.of("bootstrap.servers", "127.0.0.1:" + port, "default.api.timeout.ms", "500"));
    assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, failure(admin.listTopics()).errorCode());
  }
}
