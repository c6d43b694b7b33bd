package dev.spool.e2e;

import static java.util.stream.Collectors.toSet;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.common.HostPort;
import dev.spool.node.SpoolMain;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.ratis.RatisQuorumAdmin;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.Ports;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dynamic controller quorum against real node processes
 * (docs/operations.md#dynamic-controller-quorum): a 3-voter quorum of combined nodes grows to 5
 * with two controller-only nodes started as new members, and shrinks back to 3 by removing the
 * active controller and another original voter in one change, while a producer sends with acks=all;
 * no send fails. Every refusal (a voter id added again, an address nobody answers at, a controller
 * of another cluster, too many voters removed at once, every voter removed, a removal whose staying
 * voters the leader cannot reach) is an error and leaves the quorum as it was.
 */
@Tag("integration")
@SpoolClusterTest(nodes = 3, mode = ClusterMode.PROCESS)
class QuorumMembershipE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CHANGE = Duration.ofSeconds(90);

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldGrowToFiveAndShrinkToThreeUnderLoadAndRefuseBadChanges(ProcessCluster c)
      throws Exception {
    E2e.createTopic(c, "quorum-load", 3, Map.of());
    List<Joiner> joiners = new ArrayList<>();
    try (AckedLoad load =
        new AckedLoad(c.bootstrapServers(), "quorum-load", 3, 16, 200, Map.of("acks", "all"))) {
      assertTrue(load.awaitMoreAcks(200, E2e.READY), "the load runs before any change");
      JsonNode start = describe(c);
      assertEquals(Set.of(1, 2, 3), ids(start.get("voters")));
      assertEquals(Set.of(), ids(start.get("listeners")));
      assertTrue(
          start.get("term").asLong() > 0 && start.get("commitIndex").asLong() > 0,
          start.toString());

      // Refused, nothing changes: a voter again, an address nobody answers at, another cluster.
      assertRefused(
          c, "is already a voter", "add-voter", "--node-id", "2", "--address", freeAddress());
      assertRefused(
          c, "no controller answers at", "add-voter", "--node-id", "6", "--address", freeAddress());
      Joiner foreign = Joiner.start(c, 9, "another-cluster");
      joiners.add(foreign);
      foreign.awaitListening();
      assertRefused(
          c,
          "does not belong to this cluster",
          "add-voter",
          "--node-id",
          "9",
          "--address",
          foreign.address);
      foreign.stop();
      assertRefused(c, "not a majority of the current voters", "remove-voter", "--node-id", "1,2");

      // Grow 3 -> 5: two controller-only nodes started as new members.
      Joiner four = Joiner.start(c, 4, null);
      Joiner five = Joiner.start(c, 5, null);
      joiners.add(four);
      joiners.add(five);
      four.awaitListening();
      five.awaitListening();
      // Node 4 through the admin API, to look at the quorum between its two changes: a listener
      // first, not yet a voter.
      List<JsonNode> between = new ArrayList<>();
      try (RatisQuorumAdmin admin = new RatisQuorumAdmin(voters(c), CHANGE.toMillis())) {
        admin.afterListenerAdded(
            () -> {
              try {
                between.add(describe(c));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
        QuorumAdmin.Description added4 = admin.addVoter(4, HostPort.parse(four.address));
        assertEquals(
            Set.of(1, 2, 3, 4),
            added4.voters().stream().map(QuorumAdmin.Member::nodeId).collect(toSet()));
        assertEquals(List.of(), added4.listeners());
      }
      assertEquals(1, between.size(), "looked once, between the two changes");
      assertEquals(Set.of(4), ids(between.get(0).get("listeners")), between.get(0).toString());
      assertEquals(Set.of(1, 2, 3), ids(between.get(0).get("voters")), between.get(0).toString());
      CliRunner.Result added =
          cli(c, "add-voter", "--node-id", "5", "--address", five.address, "--json");
      assertEquals(0, added.exitCode(), added.toString());
      JsonNode grown = JSON.readTree(added.out());
      assertEquals(Set.of(1, 2, 3, 4, 5), ids(grown.get("voters")));
      assertEquals(Set.of(), ids(grown.get("listeners")));
      assertTrue(load.awaitMoreAcks(200, E2e.READY), "the load goes on with five voters");

      // Shrink 5 -> 3, the active controller among the two removed.
      int leader = describe(c).get("leaderId").asInt();
      int other = leader == 1 ? 2 : 1;
      CliRunner.Result removed =
          cli(c, "remove-voter", "--node-id", leader + "," + other, "--json");
      assertEquals(0, removed.exitCode(), removed.toString());
      JsonNode shrunk = JSON.readTree(removed.out());
      Set<Integer> staying = new TreeSet<>(Set.of(1, 2, 3, 4, 5));
      staying.removeAll(Set.of(leader, other));
      assertEquals(staying, ids(shrunk.get("voters")));
      int newLeader = shrunk.get("leaderId").asInt();
      assertTrue(staying.contains(newLeader), "a staying voter leads: " + shrunk);
      assertTrue(load.awaitMoreAcks(200, E2e.READY), "the load goes on after the shrink");

      // Removing every voter is refused.
      String all =
          staying.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElseThrow();
      assertRefused(c, "would leave no voter", "remove-voter", "--node-id", all);

      // A staying voter goes away: removing another voter would leave one of two reachable.
      Joiner down = newLeader == 4 ? five : four;
      int downId = newLeader == 4 ? 5 : 4;
      down.stop();
      await()
          .atMost(E2e.READY)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> lastContact(describe(c), downId) > 2_000);
      int victim =
          staying.stream().filter(id -> id != newLeader && id != downId).findFirst().orElseThrow();
      assertRefused(c, "not a majority", "remove-voter", "--node-id", Integer.toString(victim));
      assertEquals(staying, ids(describe(c).get("voters")));

      assertTrue(load.awaitMoreAcks(200, E2e.READY), "the load goes on to the end");
      load.close();
      assertEquals(List.of(), load.failures(), "no acks=all send failed");

      // The voter set lives in the Raft log: a restarted joiner (not in controller.quorum.voters)
      // comes back as a voter, a restarted removed controller does not, and its node is ready.
      down.restart();
      await()
          .atMost(E2e.READY)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                long ms = lastContact(describe(c), downId); // one snapshot per poll
                return ms >= 0 && ms < 2_000;
              });
      c.stop(leader);
      c.start(leader);
      c.awaitReady(E2e.READY);
      JsonNode end = describe(c);
      assertEquals(staying, ids(end.get("voters")), end.toString());
      assertEquals(Set.of(), ids(end.get("listeners")), end.toString());
    } finally {
      for (Joiner j : joiners) {
        j.stop();
      }
    }
  }

  private static void assertRefused(ProcessCluster c, String problem, String... args)
      throws IOException {
    JsonNode before = describe(c);
    CliRunner.Result r = cli(c, args);
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(r.err().contains(problem), r.toString());
    assertTrue(r.err().startsWith("error: "), r.toString());
    JsonNode after = describe(c);
    assertEquals(ids(before.get("voters")), ids(after.get("voters")), "voters unchanged: " + r);
    assertEquals(ids(before.get("listeners")), ids(after.get("listeners")), "listeners unchanged");
    assertFalse(after.get("changing").asBoolean(), after.toString());
  }

  /** The voters of node 1's {@code controller.quorum.voters}: where the admin finds the quorum. */
  private static Map<Integer, HostPort> voters(ProcessCluster c) throws IOException {
    Properties p = new Properties();
    try (var in = Files.newBufferedReader(c.configFile(1), StandardCharsets.UTF_8)) {
      p.load(in);
    }
    return QuorumConfig.parseVoters(p.getProperty("controller.quorum.voters"));
  }

  private static JsonNode describe(ProcessCluster c) throws IOException {
    CliRunner.Result r = cli(c, "describe", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    return JSON.readTree(r.out());
  }

  private static long lastContact(JsonNode d, int nodeId) {
    for (JsonNode v : d.get("voters")) {
      if (v.get("nodeId").asInt() == nodeId) {
        return v.get("lastContactMsAgo").asLong();
      }
    }
    return -1;
  }

  private static Set<Integer> ids(JsonNode members) {
    Set<Integer> out = new TreeSet<>();
    members.forEach(m -> out.add(m.get("nodeId").asInt()));
    return out;
  }

  /** {@code spool quorum ARGS --config <node 1's config>} in this JVM. */
  private static CliRunner.Result cli(ProcessCluster c, String... args) {
    List<String> all = new ArrayList<>(List.of("quorum"));
    all.addAll(List.of(args));
    all.add("--config");
    all.add(c.configFile(1).toString());
    all.add("--timeout-ms");
    all.add("60000");
    return new CliRunner(SpoolMain::commandLine, Map.of(), c.dir())
        .run("", all.toArray(new String[0]));
  }

  private static String freeAddress() {
    return "127.0.0.1:" + new Ports().next("127.0.0.1");
  }

  /**
   * A controller-only node this test starts beside the cluster: not in {@code
   * controller.quorum.voters}, its Raft address in {@code controller.quorum.listener}, formatted
   * for {@code clusterId} (null: the cluster's own) before it starts.
   */
  private static final class Joiner {
    final int id;
    final String address;
    final Path log;
    private final Path config;
    private Process process;

    private Joiner(int id, String address, Path log, Path config, Process process) {
      this.id = id;
      this.address = address;
      this.log = log;
      this.config = config;
      this.process = process;
    }

    /** Starts it again, on its directories as they are. */
    void restart() throws IOException {
      process = java(List.of("node", "start", "--config", config.toString()), log);
    }

    static Joiner start(ProcessCluster c, int id, String clusterId) throws Exception {
      Properties base = new Properties();
      try (var in = Files.newBufferedReader(c.configFile(1), StandardCharsets.UTF_8)) {
        base.load(in);
      }
      Map<String, String> props = new TreeMap<>();
      base.stringPropertyNames().forEach(k -> props.put(k, base.getProperty(k)));
      for (String k :
          List.of(
              "listener",
              "advertised.listener",
              "kafka.listener",
              "metrics.listener",
              "metadata.log.dir")) {
        props.remove(k);
      }
      Path dir = c.dir().resolve("joiner-" + id);
      Files.createDirectories(dir);
      String address = "127.0.0.1:" + new Ports().next("127.0.0.1");
      props.put("node.id", Integer.toString(id));
      props.put("process.roles", "controller");
      props.put("data.dir", dir.resolve("data").toString());
      props.put("controller.quorum.listener", address);
      if (clusterId != null) {
        props.put("cluster.id", clusterId);
      }
      Path config = dir.resolve("node.properties");
      StringBuilder sb = new StringBuilder();
      props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
      Files.writeString(config, sb.toString(), StandardCharsets.UTF_8);
      Path log = dir.resolve("node-" + id + ".log");
      int formatted =
          java(
                  List.of(
                      "storage",
                      "format",
                      "--config",
                      config.toString(),
                      "--cluster-id",
                      props.get("cluster.id")),
                  log)
              .waitFor();
      assertEquals(0, formatted, "format of node " + id + " (see " + log + ")");
      Process p = java(List.of("node", "start", "--config", config.toString()), log);
      return new Joiner(id, address, log, config, p);
    }

    private static Process java(List<String> args, Path log) throws IOException {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(ProcessCluster.DEFAULT_JVM_OPTIONS);
      cmd.add("-cp");
      cmd.add(
          Optional.ofNullable(System.getProperty("surefire.test.class.path"))
              .filter(s -> !s.isBlank())
              .orElse(System.getProperty("java.class.path")));
      cmd.add("dev.spool.node.SpoolMain");
      cmd.addAll(args);
      return new ProcessBuilder(cmd)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .start();
    }

    /** Waits until its log says the controller started (its Raft port is open then). */
    void awaitListening() {
      await()
          .atMost(E2e.READY)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                assertTrue(process.isAlive(), "node " + id + " exited; see " + log);
                return Files.readString(log, StandardCharsets.UTF_8).contains("controller started");
              });
    }

    void stop() throws InterruptedException {
      if (process.isAlive()) {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      }
    }
  }
}
