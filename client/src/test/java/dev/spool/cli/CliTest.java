package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.testing.FakeCluster;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DeleteRecordsResponse;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import dev.spool.protocol.message.QuorumInfo;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;

@Tag("integration")
@Timeout(60)
class CliTest {
  @TempDir Path dir;
  private FakeCluster cluster;
  private CliRunner cli;

  @BeforeEach
  void setUp() {
    cluster = FakeCluster.start(2);
    cli = new CliRunner(Map.of("SPOOL_BOOTSTRAP", cluster.bootstrap()), dir);
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  @SuppressWarnings("unchecked")
  private static <T> T path(Map<String, Object> json, String... keys) {
    Object v = json;
    for (String k : keys) {
      v = ((Map<String, Object>) v).get(k);
    }
    return (T) v;
  }

  // ------------------------------------------------------------------ parsing and help

  @Test
  void shouldShowHelpWithExitCodesEverywhere() {
    CliRunner.Result top = cli.run("", "--help");
    assertEquals(0, top.exitCode());
    for (String cmd : List.of("produce", "consume", "topic", "cluster", "perf")) {
      assertTrue(top.out().contains(cmd), cmd);
    }
    for (String[] args :
        List.of(
            new String[] {"produce", "--help"},
            new String[] {"topic", "describe", "--help"},
            new String[] {"cluster", "status", "--help"},
            new String[] {"perf", "e2e", "--help"})) {
      CliRunner.Result r = cli.run("", args);
      assertEquals(0, r.exitCode(), r.toString());
      assertTrue(
          r.out().contains("Exit codes:") && r.out().contains("cannot reach the cluster"),
          r.toString());
      assertTrue(r.out().contains("--bootstrap"), r.toString());
    }
  }

  @Test
  void shouldPrintTheVersionTheBuildStamped() {
    CliRunner.Result r = cli.run("", "--version");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals("spool " + System.getProperty("spool.project.version"), r.out().trim());
  }

  @Test
  void shouldExitTwoOnUsageErrors() {
    assertEquals(2, cli.run("", "produce").exitCode(), "missing TOPIC");
    assertEquals(2, cli.run("", "consume", "t", "--bogus").exitCode());
    CliRunner.Result r = cli.run("", "consume", "t", "--offset", "5");
    assertEquals(2, r.exitCode());
    assertTrue(r.err().contains("--offset needs --partition"), r.toString());
    CliRunner.Result badProp = cli.run("x\n", "produce", "t", "--producer-prop", "linger.mss=1");
    assertEquals(2, badProp.exitCode(), badProp.toString());
    assertTrue(
        badProp
            .err()
            .startsWith("error: config 'linger.mss': unknown key, did you mean 'linger.ms'?"),
        badProp.toString());
    assertEquals(2, cli.run("", "produce", "t", "--acks", "2").exitCode());
  }

  @Test
  void shouldResolveBootstrapFromFlagThenEnvThenFileThenDefault() throws Exception {
    CliContext noEnv = new CliContext(System.out, System.err, System.in, Map.of(), dir);
    ClusterOptions o = new ClusterOptions();
    assertEquals(ClusterOptions.DEFAULT, o.resolve(noEnv));
    Files.createDirectories(dir.resolve(".spool-cluster"));
    Files.writeString(dir.resolve(".spool-cluster/bootstrap"), "10.0.0.1:9092\n10.0.0.2:9092\n");
    assertEquals("10.0.0.1:9092,10.0.0.2:9092", o.resolve(noEnv));
    CliContext withEnv =
        new CliContext(System.out, System.err, System.in, Map.of("SPOOL_BOOTSTRAP", "e:1"), dir);
    assertEquals("e:1", o.resolve(withEnv));
    o.bootstrap = "flag:2";
    assertEquals("flag:2", o.resolve(withEnv));
  }

  // ------------------------------------------------------------------ produce and consume

  @Test
  void shouldProduceLinesAndReportEachInInputOrderAsJson() {
    cluster.createTopic("t", 3);
    CliRunner.Result r =
        cli.run(
            "k1:v1\nk2:v2\nno-separator\nk1:v3\n",
            "produce",
            "t",
            "--key-separator",
            ":",
            "--header",
            "src=cli",
            "--output",
            "json");
    assertEquals(1, r.exitCode(), r.toString());
    List<String> lines = r.outLines();
    assertEquals(4, lines.size(), r.toString());
    Map<String, Object> first = Json.object(lines.get(0));
    assertEquals("k1", first.get("key"));
    assertEquals("v1", first.get("value"));
    assertTrue(first.containsKey("partition") && first.containsKey("offset"), first.toString());
    Map<String, Object> bad = Json.object(lines.get(2));
    assertEquals("no-separator", bad.get("value"));
    assertTrue(((String) bad.get("error")).contains("no key separator"), bad.toString());
    Map<String, Object> last = Json.object(lines.get(3));
    assertEquals(first.get("partition"), last.get("partition"), "same key, same partition");
    assertEquals((long) first.get("offset") + 1, last.get("offset"));
    assertTrue(r.err().contains("1 of 4 records failed"), r.toString());
  }

  @Test
  void shouldProducePlainlyToOnePartitionWithAcksOne() {
    cluster.createTopic("t", 2);
    CliRunner.Result r = cli.run("a\nb\n", "produce", "t", "--partition", "1", "--acks", "1");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals("", r.out());
    assertEquals(List.of("a", "b"), cluster.log(new TopicPartition("t", 1)).values());
  }

  @Test
  void shouldFailLinesForAMissingTopicWithTheErrorCode() {
    CliRunner.Result r = cli.run("x\n", "produce", "missing", "--output", "json");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(
        ((String) Json.object(r.outLines().get(0)).get("error"))
            .startsWith("UNKNOWN_TOPIC_OR_PARTITION"),
        r.toString());
  }

  @Test
  void shouldConsumeFromTheBeginningAsJson() {
    cluster.createTopic("t", 1);
    assertEquals(
        0,
        cli.run("k:v1\nk:v2\n:v3\n", "produce", "t", "--key-separator", ":", "--header", "h=x")
            .exitCode());
    CliRunner.Result r =
        cli.run("", "consume", "t", "--from-beginning", "--max-messages", "3", "--output", "json");
    assertEquals(0, r.exitCode(), r.toString());
    List<String> lines = r.outLines();
    assertEquals(3, lines.size(), r.toString());
    Map<String, Object> rec = Json.object(lines.get(1));
    assertEquals(0L, rec.get("partition"));
    assertEquals(1L, rec.get("offset"));
    assertEquals("k", rec.get("key"));
    assertEquals("v2", rec.get("value"));
    assertTrue((long) rec.get("timestamp") > 0);
    assertEquals(List.of(List.of("h", "x")), rec.get("headers"));
    assertEquals("", Json.object(lines.get(2)).get("key"));
  }

  @Test
  void shouldConsumeFromAnOffsetPlainlyAndStopWhenIdle() {
    cluster.createTopic("t", 2);
    cli.run("a\nb\nc\n", "produce", "t", "--partition", "1");
    CliRunner.Result r =
        cli.run("", "consume", "t", "--partition", "1", "--offset", "1", "--timeout-ms", "500");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(List.of("b", "c"), r.outLines());
    CliRunner.Result keyed =
        cli.run(
            "",
            "consume",
            "t",
            "--partition",
            "1",
            "--offset",
            "2",
            "--timeout-ms",
            "300",
            "--print-key");
    assertEquals(List.of("null\tc"), keyed.outLines());
  }

  // ------------------------------------------------------------------ admin

  @Test
  void shouldManageTopics() {
    assertEquals(
        0,
        cli.run(
                "",
                "topic",
                "create",
                "orders",
                "--partitions",
                "3",
                "--replication-factor",
                "2",
                "--config",
                "retention.ms=1000")
            .exitCode());
    CliRunner.Result exists = cli.run("", "topic", "create", "orders");
    assertEquals(1, exists.exitCode());
    assertTrue(exists.err().startsWith("error: TOPIC_ALREADY_EXISTS"), exists.toString());
    assertEquals(List.of("orders"), cli.run("", "topic", "list").outLines());
    Map<String, Object> d = Json.object(cli.run("", "topic", "describe", "orders", "--json").out());
    assertEquals("orders", d.get("topic"));
    List<Map<String, Object>> parts = path(d, "partitions");
    assertEquals(3, parts.size());
    for (String f : List.of("partition", "leader", "leaderEpoch", "replicas", "isr")) {
      assertTrue(parts.get(0).containsKey(f), f);
    }
    assertTrue(cli.run("", "topic", "describe", "orders").out().contains("Partition: 2"));
    assertEquals(0, cli.run("", "topic", "delete", "orders").exitCode());
    assertEquals(1, cli.run("", "topic", "delete", "orders").exitCode());
  }

  /** DescribeCluster as the fake cluster's brokers would answer it: each at its own port. */
  private DescribeClusterResponse fakeBrokers() {
    DescribeClusterResponse.Builder brokers =
        DescribeClusterResponse.newBuilder().setClusterId("c");
    cluster
        .brokers()
        .forEach(
            b ->
                brokers.addBrokers(
                    BrokerInfo.newBuilder()
                        .setNodeId(b.nodeId())
                        .setHost("127.0.0.1")
                        .setPort(b.port())));
    return brokers.build();
  }

  @Test
  void shouldDescribeEveryBrokersReplicasWithTheirCleanerState() {
    cluster.createTopic("orders", 1);
    DescribeClusterResponse brokers = fakeBrokers();
    cluster
        .brokers()
        .forEach(
            b ->
                b.handle(ApiKey.DESCRIBE_CLUSTER, (req, out) -> out.reply(brokers))
                    .handle(
                        ApiKey.DESCRIBE_LOGS,
                        (req, out) -> {
                          // Each broker answers about its own replica; broker 1 cleaned once.
                          boolean cleaned = b.nodeId() == 1;
                          out.reply(
                              DescribeLogsResponse.newBuilder()
                                  .setBrokerId(b.nodeId())
                                  .addPartitions(
                                      DescribeLogsResponse.ReplicaLog.newBuilder()
                                          .setTopic(
                                              req.body(DescribeLogsRequest.class).getTopics(0))
                                          .setPartition(0)
                                          .setSizeBytes(1000)
                                          .setSegments(3)
                                          .setLogEndOffset(50)
                                          .setHighWatermark(50)
                                          .setCompacted(true)
                                          .setFirstDirtyOffset(cleaned ? 40 : -1)
                                          .setDirtyRatio(cleaned ? 0.25 : 1.0)
                                          .setLastCleanTimeMs(cleaned ? 1_700_000_000_000L : -1)
                                          .setBytesCleaned(cleaned ? 4096 : 0))
                                  .build());
                        }));

    CliRunner.Result r = cli.run("", "topic", "describe", "orders", "--logs", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    List<Map<String, Object>> logs = path(Json.object(r.out()), "logs");
    assertEquals(List.of(1L, 2L), logs.stream().map(l -> l.get("broker")).toList());
    assertEquals((Object) 0.25, path(logs.get(0), "cleaner", "dirtyRatio"));
    assertEquals((Object) 4096L, path(logs.get(0), "cleaner", "bytesCleaned"));
    assertEquals((Object) Long.valueOf(-1), path(logs.get(1), "cleaner", "lastCleanTimeMs"));
    String text = cli.run("", "topic", "describe", "orders", "--logs").out();
    assertTrue(text.contains("Broker: 1") && text.contains("DirtyRatio: 0.250"), text);
    assertTrue(text.contains("LastClean: never"), text);
  }

  /**
   * topic alter --partitions sends CreatePartitions with the parsed assignment and prints the new
   * count; the controller's refusal comes out as its error code with exit 1, and malformed options
   * never reach the cluster (exit 2). The controller's own checks run against a real cluster in
   * PartitionGrowthE2ETest.
   */
  @Test
  void shouldGrowPartitionsThroughTopicAlter() {
    List<CreatePartitionsRequest> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
    cluster
        .brokers()
        .forEach(
            b ->
                b.handle(
                    ApiKey.CREATE_PARTITIONS,
                    (req, out) -> {
                      CreatePartitionsRequest r = req.body(CreatePartitionsRequest.class);
                      sent.add(r);
                      CreatePartitionsRequest.Topic t = r.getTopics(0);
                      CreatePartitionsResponse.Result.Builder res =
                          CreatePartitionsResponse.Result.newBuilder()
                              .setName(t.getName())
                              .setCount(Math.max(2, t.getCount()));
                      if (t.getCount() <= 2) {
                        res.setErrorCode(ErrorCode.INVALID_PARTITIONS)
                            .setErrorMessage("topic 'orders' already has 2 partitions");
                      }
                      out.reply(CreatePartitionsResponse.newBuilder().addTopics(res).build());
                    }));

    CliRunner.Result grown =
        cli.run(
            "",
            "topic",
            "alter",
            "orders",
            "--partitions",
            "4",
            "--replica-assignment",
            "1:2,2:1",
            "--json");
    assertEquals(0, grown.exitCode(), grown.toString());
    Map<String, Object> json = Json.object(grown.out());
    assertEquals("orders", json.get("topic"));
    assertEquals(4, ((Number) json.get("partitions")).intValue());
    assertEquals(false, json.get("validateOnly"));
    CreatePartitionsRequest first = sent.get(0);
    assertEquals(4, first.getTopics(0).getCount());
    assertEquals(
        List.of(List.of(1, 2), List.of(2, 1)),
        first.getTopics(0).getAssignmentsList().stream()
            .map(CreatePartitionsRequest.Assignment::getReplicasList)
            .toList());
    assertTrue(!first.getValidateOnly());

    CliRunner.Result checked =
        cli.run("", "topic", "alter", "orders", "--partitions", "5", "--validate-only");
    assertEquals(0, checked.exitCode(), checked.toString());
    assertEquals(
        List.of("Topic orders can grow to 5 partitions (validated only)."), checked.outLines());
    assertTrue(sent.get(1).getValidateOnly());

    CliRunner.Result same = cli.run("", "topic", "alter", "orders", "--partitions", "2");
    assertEquals(1, same.exitCode(), same.toString());
    assertTrue(same.err().startsWith("error: INVALID_PARTITIONS"), same.toString());
    assertTrue(same.err().contains("already has 2 partitions"), same.toString());

    int before = sent.size();
    for (String[] bad :
        List.of(
            new String[] {"topic", "alter", "orders"},
            new String[] {
              "topic", "alter", "orders", "--partitions", "3", "--replica-assignment", "1:x"
            },
            new String[] {
              "topic", "alter", "orders", "--partitions", "3", "--replica-assignment", "1:1"
            },
            new String[] {
              "topic", "alter", "orders", "--validate-only", "--set", "retention.ms=1"
            })) {
      CliRunner.Result r = cli.run("", bad);
      assertEquals(2, r.exitCode(), r.toString());
    }
    assertEquals(before, sent.size(), "a usage error sends nothing");
  }

  /**
   * delete-records goes to each partition's leader; a leader that moved away answers
   * NOT_LEADER_OR_FOLLOWER and the partition is sent again to the new one.
   */
  @Test
  void shouldDeleteRecordsAtEachPartitionsLeaderFollowingAMove() {
    cluster.createTopic("orders", 2);
    TopicPartition moving = new TopicPartition("orders", 1);
    List<String> served = new java.util.concurrent.CopyOnWriteArrayList<>();
    cluster
        .brokers()
        .forEach(
            b ->
                b.handle(
                    ApiKey.DELETE_RECORDS,
                    (req, out) -> {
                      DeleteRecordsResponse.Builder resp = DeleteRecordsResponse.newBuilder();
                      for (DeleteRecordsRequest.Topic t :
                          req.body(DeleteRecordsRequest.class).getTopicsList()) {
                        DeleteRecordsResponse.Topic.Builder rt =
                            DeleteRecordsResponse.Topic.newBuilder().setName(t.getName());
                        for (DeleteRecordsRequest.Partition p : t.getPartitionsList()) {
                          TopicPartition tp = new TopicPartition(t.getName(), p.getPartition());
                          boolean leads = cluster.leader(tp) == b.nodeId();
                          if (leads && tp.equals(moving) && b.nodeId() == 2) {
                            cluster.moveLeader(tp, 1); // it moves just as the request came
                            leads = false;
                          }
                          served.add(tp + "@" + b.nodeId() + (leads ? "" : " refused"));
                          rt.addPartitions(
                              DeleteRecordsResponse.Partition.newBuilder()
                                  .setPartition(p.getPartition())
                                  .setErrorCode(
                                      leads ? ErrorCode.NONE : ErrorCode.NOT_LEADER_OR_FOLLOWER)
                                  .setLowWatermark(leads ? p.getOffset() : -1));
                        }
                        resp.addTopics(rt);
                      }
                      out.reply(resp.build());
                    }));

    CliRunner.Result r = cli.run("", "topic", "delete-records", "orders", "--before", "7");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(
        List.of("Partition: orders-0\tLogStartOffset: 7", "Partition: orders-1\tLogStartOffset: 7"),
        r.outLines());
    assertEquals(
        List.of("orders-0@1", "orders-1@1", "orders-1@2 refused"),
        served.stream().sorted().toList());
  }

  @Test
  void shouldPrintClusterStatusAsJson() {
    cluster
        .brokers()
        .forEach(
            b ->
                b.handle(
                    ApiKey.DESCRIBE_CLUSTER,
                    (req, out) ->
                        out.reply(
                            DescribeClusterResponse.newBuilder()
                                .setClusterId("c")
                                .addBrokers(
                                    BrokerInfo.newBuilder()
                                        .setNodeId(1)
                                        .setHost("h")
                                        .setPort(1)
                                        .setBrokerEpoch(7))
                                .addBrokers(
                                    BrokerInfo.newBuilder()
                                        .setNodeId(2)
                                        .setHost("h")
                                        .setPort(2)
                                        .setBrokerEpoch(8)
                                        .setFenced(true))
                                .setQuorum(
                                    QuorumInfo.newBuilder()
                                        .setLeaderId(2)
                                        .addVoters(QuorumInfo.Voter.newBuilder().setNodeId(2)))
                                .setUnderReplicatedPartitions(4)
                                .build())));
    CliRunner.Result r = cli.run("", "cluster", "status", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    Map<String, Object> s = Json.object(r.out());
    assertEquals((Object) 2L, path(s, "controller", "leader"));
    List<Map<String, Object>> brokers = path(s, "brokers");
    assertEquals(
        Map.of("id", 2L, "epoch", 8L, "fenced", true),
        Map.of(
            "id",
            brokers.get(1).get("id"),
            "epoch",
            brokers.get(1).get("epoch"),
            "fenced",
            brokers.get(1).get("fenced")));
    assertEquals(4L, s.get("underReplicatedPartitions"));
    // Readiness: broker 1 is registered and unfenced, broker 2 is fenced.
    assertEquals(true, brokers.get(0).get("ready"));
    assertEquals("", brokers.get(0).get("notReadyReason"));
    assertEquals(false, brokers.get(1).get("ready"));
    assertEquals("fenced", brokers.get(1).get("notReadyReason"));
    CliRunner.Result plain = cli.run("", "cluster", "status");
    assertTrue(
        plain.out().contains("FENCED") && plain.out().contains("leader 2"), plain.toString());
    List<String> lines = plain.out().lines().filter(l -> l.contains("  broker ")).toList();
    assertTrue(lines.get(0).endsWith(" active        ready"), lines.toString());
    assertTrue(lines.get(1).endsWith(" FENCED        NOT READY (fenced)"), lines.toString());
  }

  @Test
  void shouldExitThreeWhenTheClusterCannotBeReached() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    CliRunner.Result r =
        cli.run("", "topic", "list", "--bootstrap", "127.0.0.1:" + port, "--timeout-ms", "500");
    assertEquals(3, r.exitCode(), r.toString());
    // Which of the two "cannot reach" codes wins depends on whether a connection attempt failed
    // before the 500 ms deadline (it is refused at once on an idle machine, not on a loaded one).
    assertTrue(
        r.err().startsWith("error: BROKER_NOT_AVAILABLE")
            || r.err().startsWith("error: REQUEST_TIMED_OUT"),
        r.toString());
    assertEquals(1, r.err().strip().lines().count(), "one line");
  }

  // ------------------------------------------------------------------ perf

  @Test
  void shouldRunPerfToolsAndSummarizeAsJson() {
    cluster.createTopic("bench", 2);
    CliRunner.Result p =
        cli.run(
            "",
            "perf",
            "produce",
            "--topic",
            "bench",
            "--num-records",
            "2000",
            "--record-size",
            "100",
            "--throughput",
            "-1",
            "--json");
    assertEquals(0, p.exitCode(), p.toString());
    Map<String, Object> ps = Json.object(p.out());
    assertEquals(2000L, ps.get("records"));
    for (String f : List.of("avg", "p50", "p95", "p99", "p999", "max")) {
      assertTrue(((Map<?, ?>) ps.get("latencyMs")).containsKey(f), f);
    }
    CliRunner.Result c =
        cli.run("", "perf", "consume", "--topic", "bench", "--messages", "2000", "--json");
    assertEquals(0, c.exitCode(), c.toString());
    assertEquals(2000L, Json.object(c.out()).get("records"));
    assertEquals(200_000L, Json.object(c.out()).get("bytes"));
    CliRunner.Result e =
        cli.run(
            "",
            "perf",
            "e2e",
            "--topic",
            "bench",
            "--rate",
            "200",
            "--duration-s",
            "1",
            "--warmup-s",
            "0",
            "--record-size",
            "64",
            "--json");
    assertEquals(0, e.exitCode(), e.toString());
    Map<String, Object> es = Json.object(e.out());
    assertEquals(200L, es.get("measured"));
    assertTrue(((Map<?, ?>) es.get("latencyMs")).containsKey("p999"));
  }

  @Test
  void shouldPrintProgressAndAFinalLineInPlainMode() {
    cluster.createTopic("bench", 1);
    CliRunner.Result p =
        cli.run(
            "",
            "perf",
            "produce",
            "--topic",
            "bench",
            "--num-records",
            "500",
            "--record-size",
            "10",
            "--throughput",
            "1000",
            "--reporting-interval-ms",
            "100");
    assertEquals(0, p.exitCode(), p.toString());
    List<String> lines = p.outLines();
    assertTrue(lines.size() >= 2, "progress lines then the final line: " + p);
    assertTrue(
        lines.get(lines.size() - 1).matches("500 records sent, .* ms 99\\.9th\\."), p.toString());
  }

  // ------------------------------------------------------------------ the node module's hook

  @Command(name = "node", mixinStandardHelpOptions = true, description = "Run a node.")
  static final class FakeNodeCommand implements Callable<Integer> {
    @Override
    public Integer call() {
      return 0;
    }
  }

  @Test
  void shouldAcceptExtraSubcommandsWithTheSameHelpAndExitCodes() {
    CliRunner withNode =
        new CliRunner(
            ctx -> SpoolCommand.commandLine(ctx, Map.of("node", new FakeNodeCommand())),
            Map.of("SPOOL_BOOTSTRAP", cluster.bootstrap()),
            dir);
    CliRunner.Result help = withNode.run("", "node", "--help");
    assertEquals(0, help.exitCode());
    assertTrue(help.out().contains("Exit codes:"), help.toString());
    assertEquals(0, withNode.run("", "node").exitCode());
    assertTrue(withNode.run("", "--help").out().contains("node"));
  }
}
