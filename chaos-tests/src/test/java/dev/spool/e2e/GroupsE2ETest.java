package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.runtime.OffsetsTopic;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Consumer groups against real node processes (one 3-node cluster for the class): the coordinator
 * SIGKILLed loses no acknowledged commit; a consumer JVM SIGKILLed has its partitions resumed by
 * the remaining member from its last commit, with no record skipped; {@code spool group} describes
 * (the JSON shape tools rely on), resets and deletes a group.
 */
@Tag("integration")
@SpoolClusterTest(
    nodes = 3,
    mode = ClusterMode.PROCESS,
    config = {
      "offsets.topic.num.partitions=6",
      "group.consumer.session.timeout.ms=6000",
      "group.consumer.heartbeat.interval.ms=200"
    })
class GroupsE2ETest {
  private static final int OFFSETS_PARTITIONS = 6;
  private static ProcessCluster cluster;
  private static Producer producer;

  @BeforeAll
  static void startCluster(ProcessCluster c) {
    cluster = c;
    producer =
        new Producer(Map.of("bootstrap.servers", cluster.bootstrapServers(), "linger.ms", "1"));
  }

  /** A failed test must not leave a node down for the next one. */
  @BeforeEach
  void everyNodeUp() {
    for (int n : cluster.nodes()) {
      if (!cluster.isRunning(n)) {
        cluster.start(n);
      }
    }
    cluster.awaitReady(E2e.READY);
  }

  @AfterAll
  static void stopCluster() {
    if (producer != null) {
      producer.close();
    }
  }

  private static void produce(List<TopicPartition> tps, int from, int to) throws Exception {
    List<CompletableFuture<?>> acks = new ArrayList<>();
    for (TopicPartition tp : tps) {
      for (int i = from; i < to; i++) {
        byte[] v = (tp.partition() + "-" + i).getBytes(StandardCharsets.UTF_8);
        acks.add(
            producer.send(
                new ProducerRecord(tp.topic(), tp.partition(), null, v, List.of(), null)));
      }
    }
    CompletableFuture.allOf(acks.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
  }

  private static Consumer consumer(String group, String... extra) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.bootstrapServers());
    props.put("group.id", group);
    props.put("auto.offset.reset", "earliest");
    props.put("fetch.max.wait.ms", "100");
    props.put("default.api.timeout.ms", "30000");
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    return new Consumer(props);
  }

  private static TopicPartition offsetsPartition(String group) {
    return new TopicPartition(
        OffsetsTopic.NAME, OffsetsTopic.partitionFor(group, OFFSETS_PARTITIONS));
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldLoseNoAcknowledgedCommitWhenTheCoordinatorIsKilled() throws Exception {
    String group = "survivors";
    List<TopicPartition> tps = E2e.createTopic(cluster, "coordinated", 3, Map.of());
    produce(tps, 0, 200);
    Map<TopicPartition, Long> acked = new HashMap<>();
    Map<TopicPartition, Long> last = new HashMap<>();
    try (Consumer c = consumer(group, "enable.auto.commit", "false")) {
      c.subscribe(List.of("coordinated"));
      Runnable step =
          () -> {
            for (ConsumerRecord r : c.poll(Duration.ofMillis(100))) {
              Long prev = last.put(r.topicPartition(), r.offset());
              assertTrue(prev == null || r.offset() <= prev + 1, "skipped after " + prev);
            }
            Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
            last.forEach((tp, o) -> positions.put(tp, new OffsetAndMetadata(o + 1)));
            try {
              c.commitSync(positions);
              positions.forEach((tp, o) -> acked.put(tp, o.offset()));
            } catch (SpoolException e) {
              // Not acknowledged: it may or may not have been committed.
            }
          };
      pollUntil(
          step, 60, () -> acked.size() == 3 && acked.values().stream().allMatch(o -> o >= 50));
      cluster.awaitFullIsr(List.of(OffsetsTopic.NAME), E2e.READY);
      int coordinatorNode = cluster.partitionLeader(offsetsPartition(group)).orElseThrow();
      cluster.kill(coordinatorNode, Signal.KILL);
      produce(tps, 200, 300);
      pollUntil(
          step, 120, () -> acked.size() == 3 && acked.values().stream().allMatch(o -> o == 300));
      assertFalse(cluster.isRunning(coordinatorNode));
      Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.copyOf(tps));
      for (TopicPartition tp : tps) {
        assertEquals(acked.get(tp), committed.get(tp).offset(), tp.toString());
      }
    }
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldResumeAKilledConsumersPartitionsFromItsLastCommit() throws Exception {
    String group = "movers";
    List<TopicPartition> tps = E2e.createTopic(cluster, "handed", 4, Map.of());
    produce(tps, 0, 100);
    String classPath =
        java.util.Optional.ofNullable(System.getProperty("surefire.test.class.path"))
            .filter(s -> !s.isBlank())
            .orElse(System.getProperty("java.class.path"));
    Path out = cluster.dir().resolve("external-consumer.jsonl");
    Process external =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                "dev.spool.cli.SpoolCommand",
                "consume",
                "handed",
                "--group",
                group,
                "--from-beginning",
                "--output",
                "json",
                "--consumer-prop",
                "auto.commit.interval.ms=100",
                "--bootstrap",
                cluster.bootstrapServers())
            .redirectErrorStream(false)
            .redirectOutput(out.toFile())
            .redirectError(cluster.dir().resolve("external-consumer.log").toFile())
            .start();
    try (Consumer mine = consumer(group, "auto.commit.interval.ms", "100")) {
      // Records of this member, per partition; it never owned the external member's partitions
      // before the kill, so their lists start at the takeover.
      Map<TopicPartition, List<Long>> seen = new HashMap<>();
      Runnable step =
          () -> {
            for (ConsumerRecord r : mine.poll(Duration.ofMillis(100))) {
              List<Long> l = seen.computeIfAbsent(r.topicPartition(), k -> new ArrayList<>());
              assertTrue(l.isEmpty() || r.offset() <= l.get(l.size() - 1) + 1, "skipped in " + l);
              l.add(r.offset());
            }
          };
      // The external JVM joins alone, takes every partition and commits what it read.
      Awaitility.await()
          .atMost(90, TimeUnit.SECONDS)
          .until(
              () -> {
                Map<TopicPartition, OffsetAndMetadata> c = mine.committed(Set.copyOf(tps));
                return tps.stream().allMatch(tp -> c.get(tp) != null && c.get(tp).offset() == 100);
              });
      // This member joins: the external one revokes some partitions, which move here.
      mine.subscribe(List.of("handed"));
      Set<TopicPartition> theirs = new HashSet<>();
      pollUntil(
          step,
          90,
          () -> {
            Set<TopicPartition> mineNow = mine.assignment();
            return !mineNow.isEmpty() && mineNow.size() < tps.size();
          });
      tps.stream().filter(tp -> !mine.assignment().contains(tp)).forEach(theirs::add);
      // Only the external member owns these: a commit of 120 there is its own.
      produce(tps, 100, 120);
      pollUntil(
          step,
          90,
          () -> {
            Map<TopicPartition, OffsetAndMetadata> c = mine.committed(theirs);
            return theirs.stream().allMatch(tp -> c.get(tp) != null && c.get(tp).offset() == 120);
          });
      external.destroyForcibly();
      assertTrue(external.waitFor(30, TimeUnit.SECONDS));
      Map<TopicPartition, OffsetAndMetadata> lastCommit = mine.committed(theirs);
      produce(tps, 120, 150);
      pollUntil(
          step,
          90,
          () -> {
            return mine.assignment().size() == tps.size()
                && tps.stream().allMatch(tp -> seen.containsKey(tp) && seen.get(tp).contains(149L));
          });
      for (TopicPartition tp : theirs) {
        // Resumed exactly at the killed member's last commit, then every offset to the end.
        List<Long> l = seen.get(tp);
        assertEquals(lastCommit.get(tp).offset(), l.get(0), tp + " " + l);
        assertEquals(150 - lastCommit.get(tp).offset(), l.stream().distinct().count());
      }
    } finally {
      external.destroyForcibly();
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private static CliRunner.Result cli(String... args) {
    return E2e.cli(cluster, args);
  }

  private static JsonNode cliJson(String... args) throws Exception {
    CliRunner.Result r = cli(args);
    assertEquals(0, r.exitCode(), r.toString());
    return JSON.readTree(r.out());
  }

  private static Map<Integer, Long> committedOf(String group) throws Exception {
    Map<Integer, Long> out = new TreeMap<>();
    for (JsonNode o : cliJson("group", "describe", group, "--json").get("offsets")) {
      out.put(o.get("partition").asInt(), o.get("committed").asLong());
    }
    return out;
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldDescribeResetAndDeleteAGroupWithTheCli() throws Exception {
    String group = "cli-group";
    List<TopicPartition> tps = E2e.createTopic(cluster, "cli", 2, Map.of());
    produce(tps, 0, 20);
    try (Consumer c = consumer(group, "client.id", "cli-reader")) {
      c.subscribe(List.of("cli"));
      pollUntil(
          () -> c.poll(Duration.ofMillis(100)),
          60,
          () -> {
            return c.assignment().size() == 2
                && c.position(tps.get(0)) == 20
                && c.position(tps.get(1)) == 20;
          });
      c.commitSync();
      JsonNode d = cliJson("group", "describe", group, "--json");
      assertEquals(group, d.get("group").asText());
      assertEquals("Stable", d.get("state").asText());
      assertEquals(1, d.get("members").size());
      JsonNode m = d.get("members").get(0);
      assertEquals("cli-reader", m.get("client_id").asText());
      assertEquals("127.0.0.1", m.get("host").asText());
      assertFalse(m.get("member_id").asText().isEmpty());
      assertEquals(2, m.get("assignment").size());
      assertEquals("cli", m.get("assignment").get(0).get("topic").asText());
      assertEquals(2, d.get("offsets").size());
      for (JsonNode o : d.get("offsets")) {
        assertEquals(20, o.get("committed").asLong());
        assertEquals(20, o.get("end").asLong());
        assertEquals(0, o.get("lag").asLong());
      }
      // Reset and delete are refused while the group has a member; nothing moves.
      CliRunner.Result refused =
          cli("group", "reset-offsets", group, "--topic", "cli", "--to-earliest", "--execute");
      assertEquals(1, refused.exitCode(), refused.toString());
      assertTrue(refused.err().contains("NON_EMPTY_GROUP"), refused.err());
      CliRunner.Result notDeleted = cli("group", "delete", group);
      assertTrue(notDeleted.err().contains("NON_EMPTY_GROUP"), notDeleted.err());
      assertEquals(Map.of(0, 20L, 1, 20L), committedOf(group));
    }
    produce(tps, 20, 30);
    JsonNode empty = cliJson("group", "describe", group, "--json");
    assertEquals("Empty", empty.get("state").asText());
    assertEquals(0, empty.get("members").size());
    assertEquals(20, empty.get("total_lag").asLong());
    JsonNode listed = cliJson("group", "list", "--json");
    assertTrue(listed.toString().contains("\"" + group + "\""), listed.toString());

    // Dry run by default: the plan is printed, nothing moves.
    JsonNode plan =
        cliJson("group", "reset-offsets", group, "--topic", "cli", "--to-earliest", "--json");
    assertEquals(0, plan.get("offsets").get(0).get("to").asLong());
    assertEquals(Map.of(0, 20L, 1, 20L), committedOf(group));
    cliJson(
        "group", "reset-offsets", group, "--topic", "cli", "--to-earliest", "--execute", "--json");
    assertEquals(Map.of(0, 0L, 1, 0L), committedOf(group));
    cliJson(
        "group",
        "reset-offsets",
        group,
        "--topic",
        "cli",
        "--shift-by",
        "5",
        "--execute",
        "--json");
    assertEquals(Map.of(0, 5L, 1, 5L), committedOf(group));
    cliJson(
        "group",
        "reset-offsets",
        group,
        "--topic",
        "cli",
        "--to-offset",
        "100",
        "--execute",
        "--json");
    assertEquals(Map.of(0, 30L, 1, 30L), committedOf(group));
    CliRunner.Result twoTargets =
        cli("group", "reset-offsets", group, "--topic", "cli", "--to-latest", "--shift-by", "1");
    assertEquals(2, twoTargets.exitCode(), twoTargets.toString());
    // A restarted member resumes at the reset offsets.
    try (Consumer c = consumer(group)) {
      c.subscribe(List.of("cli"));
      pollUntil(() -> c.poll(Duration.ofMillis(100)), 60, () -> c.assignment().size() == 2);
      assertEquals(30, c.position(tps.get(0)));
    }
    cliJson("group", "delete", group, "--topic", "cli", "--json");
    assertEquals(Map.of(), committedOf(group));
    cliJson("group", "delete", group, "--json");
    assertFalse(cliJson("group", "list", "--json").toString().contains("\"" + group + "\""));
    CliRunner.Result unknown = cli("group", "delete", group);
    assertTrue(unknown.err().contains("GROUP_ID_NOT_FOUND"), unknown.err());
  }

  /**
   * Runs {@code step} (a poll, the consumer's heartbeats and commits happen inside it) until {@code
   * done} holds, failing after {@code seconds}.
   */
  private static void pollUntil(Runnable step, long seconds, Callable<Boolean> done) {
    Awaitility.await()
        .atMost(seconds, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              step.run();
              return done.call();
            });
  }
}
