package dev.spool.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.client.Admin;
import dev.spool.client.ClusterDescription;
import dev.spool.common.SpoolVersion;
import dev.spool.testing.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tarball ({@code spool-<version>.tar.gz}, built by data-plane's {@code package}) runs
 * a cluster on its own: unpacked into an empty directory, three nodes start from its {@code
 * bin/spool-node} with configs made from its own example {@code config/node.properties}, and its
 * {@code bin/spool} creates a topic, produces and consumes, with no Maven and nothing from the
 * source tree on any path (the environment holds only PATH and JAVA_HOME). The nodes stop
 * gracefully through {@code bin/spool-node stop} and leave their logs in rolling files.
 *
 * <p>Processes: the nodes' PIDs are read from their PID files as they start; any still alive at the
 * end is killed by that PID. Runs on the test thread.
 */
@Tag("integration")
class ReleaseTarballE2ETest {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(90);
  private static final int NODES = 3;
  private static final int RECORDS = 50;

  @TempDir Path dir;
  private final List<Long> nodePids = new ArrayList<>();
  private final Map<Process, Path> outputs = new HashMap<>();

  /** What a command printed and how it ended. */
  record Run(int exit, String out) {}

  @AfterEach
  void killLeftovers() {
    for (long pid : nodePids) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void shouldRunAThreeNodeClusterFromTheUnpackedTarball() throws Exception {
    Path home = unpack();
    Run version = run(home, List.of("bin/spool", "--version"));
    assertEquals(0, version.exit(), version.out());
    assertEquals("spool " + SpoolVersion.version(), version.out().strip());

    Ports ports = new Ports();
    int[] client = new int[NODES];
    int[] quorum = new int[NODES];
    int[] kafka = new int[NODES];
    int[] metrics = new int[NODES];
    StringBuilder voters = new StringBuilder();
    for (int i = 0; i < NODES; i++) {
      client[i] = ports.next("127.0.0.1");
      quorum[i] = ports.next("127.0.0.1");
      kafka[i] = ports.next("127.0.0.1");
      metrics[i] = ports.next("127.0.0.1");
      voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(quorum[i]);
    }
    String example = Files.readString(home.resolve("config/node.properties"));
    for (int i = 0; i < NODES; i++) {
      Path config = home.resolve("config/node-" + (i + 1) + ".properties");
      Files.writeString(
          config,
          fromExample(
              example,
              Map.ofEntries(
                  Map.entry("node.id", String.valueOf(i + 1)),
                  Map.entry("controller.quorum.voters", voters.toString()),
                  Map.entry("controller.quorum.bind.host", "127.0.0.1"),
                  Map.entry("listener", "127.0.0.1:" + client[i]),
                  Map.entry("advertised.listener", "127.0.0.1:" + client[i]),
                  Map.entry("kafka.listener", "127.0.0.1:" + kafka[i]),
                  Map.entry("kafka.advertised.listener", "127.0.0.1:" + kafka[i]),
                  Map.entry("metrics.listener", "127.0.0.1:" + metrics[i]),
                  Map.entry("data.dir", home.resolve("data-" + (i + 1)).toString()),
                  // The last node to stop has no quorum left to move leaderships through; it
                  // would wait out the default 30 s for nothing.
                  Map.entry("controlled.shutdown.timeout.ms", "3000"))));
    }
    formatEveryNode(home);
    List<Process> starts = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String config = home.resolve("config/node-" + (i + 1) + ".properties").toString();
      starts.add(start(home, List.of("bin/spool-node", "start", "--config", config), ""));
    }
    for (int i = 0; i < NODES; i++) {
      Run started = finish(starts.get(i));
      assertEquals(0, started.exit(), started.out());
      nodePids.add(Long.parseLong(Files.readString(pidFile(home, i + 1)).strip()));
    }
    String bootstrap =
        IntStream.of(client).mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    awaitThreeActiveBrokers(bootstrap);
    for (int port : metrics) {
      // The example config serves health and metrics; each node answers on its own port.
      awaitReady(port);
    }

    Run created =
        run(
            home,
            List.of(
                "bin/spool",
                "topic",
                "create",
                "orders",
                "--partitions",
                "3",
                "--replication-factor",
                "3",
                "--bootstrap",
                bootstrap));
    assertEquals(0, created.exit(), created.out());
    List<String> values = IntStream.range(0, RECORDS).mapToObj(i -> "order-" + i).toList();
    Run produced =
        run(
            home,
            List.of("bin/spool", "produce", "orders", "--output", "json", "--bootstrap", bootstrap),
            String.join("\n", values) + "\n");
    assertEquals(0, produced.exit(), produced.out());
    assertEquals(RECORDS, jsonLines(produced.out(), "offset").size(), produced.out());

    Run consumed =
        run(
            home,
            List.of(
                "bin/spool",
                "consume",
                "orders",
                "--from-beginning",
                "--output",
                "json",
                "--max-messages",
                String.valueOf(RECORDS),
                "--timeout-ms",
                "10000",
                "--bootstrap",
                bootstrap));
    assertEquals(0, consumed.exit(), consumed.out());
    List<JsonNode> read = jsonLines(consumed.out(), "value");
    assertEquals(RECORDS, read.size(), consumed.out());
    assertEquals(
        new HashSet<>(values),
        read.stream().map(n -> n.get("value").asText()).collect(Collectors.toSet()),
        consumed.out());

    // All at once, as an operator stops a whole cluster: each waits for its own graceful stop.
    List<Process> stops = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String config = home.resolve("config/node-" + (i + 1) + ".properties").toString();
      stops.add(start(home, List.of("bin/spool-node", "stop", "--config", config), ""));
    }
    for (int i = 0; i < NODES; i++) {
      String config = home.resolve("config/node-" + (i + 1) + ".properties").toString();
      Run stopped = finish(stops.get(i));
      assertEquals(0, stopped.exit(), stopped.out());
      assertTrue(ProcessHandle.of(nodePids.get(i)).isEmpty(), "node " + (i + 1) + " exited");
      Run status = run(home, List.of("bin/spool-node", "status", "--config", config));
      assertEquals(3, status.exit(), "status of a stopped node: " + status.out());
      String log = Files.readString(home.resolve("logs/spool-node-" + (i + 1) + ".log"));
      assertTrue(log.contains("stopped"), "node " + (i + 1) + "'s log file ends with its stop");
    }
  }

  /** As docs/deploying.md: one cluster id, every node formatted with it before its first start. */
  private void formatEveryNode(Path home) throws Exception {
    Run uuid = run(home, List.of("bin/spool", "storage", "random-uuid"));
    assertEquals(0, uuid.exit(), uuid.out());
    String clusterId = uuid.out().strip().lines().reduce((a, b) -> b).orElse("");
    for (int i = 0; i < NODES; i++) {
      String config = home.resolve("config/node-" + (i + 1) + ".properties").toString();
      Run format =
          run(
              home,
              List.of(
                  "bin/spool", "storage", "format", "--config", config, "--cluster-id", clusterId));
      assertEquals(0, format.exit(), format.out());
      assertTrue(format.out().contains("Formatted log directory"), format.out());
    }
  }

  @Test
  void shouldRefuseAConfigWithoutNodeIdWithAMessage() throws Exception {
    Path home = unpack();
    Path config = home.resolve("config/bad.properties");
    Files.writeString(config, "listener=127.0.0.1:1\n");
    Run r = run(home, List.of("bin/spool-node", "start", "--config", config.toString()));
    assertEquals(2, r.exit(), r.out());
    assertTrue(r.out().contains("node.id"), r.out());
    Run unknown = run(home, List.of("bin/spool-node", "restart"));
    assertEquals(2, unknown.exit(), unknown.out());
  }

  /**
   * The launchers read a runtime's version from its JDK {@code release} file (no JVM start), and
   * ask the runtime itself where there is none; anything below 17 is refused with exit code 2.
   */
  @Test
  void shouldRefuseAJavaOlderThan17FromItsReleaseFileOrItsOwnAnswer() throws Exception {
    Path home = unpack();
    Path withRelease = fakeJdk("jdk11", "JAVA_VERSION=\"11.0.2\"\n", "17");
    Run old = run(home, List.of("bin/spool", "--version"), "", withRelease);
    assertEquals(2, old.exit(), old.out());
    assertTrue(old.out().contains("is Java 11; Spool needs Java 17 or later"), old.out());
    Path asked = fakeJdk("jdk8", null, "1.8");
    Run older = run(home, List.of("bin/spool-node", "status", "--config", "x"), "", asked);
    assertEquals(2, older.exit(), older.out());
    assertTrue(older.out().contains("is Java 8; Spool needs Java 17 or later"), older.out());
  }

  /**
   * A JDK directory whose {@code bin/java} only answers {@code -XshowSettings} with {@code
   * specVersion}, with a {@code release} file holding {@code release} (none if null).
   */
  private Path fakeJdk(String name, String release, String specVersion) throws IOException {
    Path jdk = Files.createDirectories(dir.resolve(name).resolve("bin")).getParent();
    Path java = jdk.resolve("bin/java");
    Files.writeString(
        java, "#!/bin/sh\necho '    java.specification.version = " + specVersion + "' >&2\n");
    assertTrue(java.toFile().setExecutable(true), "chmod +x " + java);
    if (release != null) {
      Files.writeString(jdk.resolve("release"), release);
    }
    return jdk;
  }

  private Path unpack() throws Exception {
    String tarball = System.getProperty("spool.dist.tarball");
    assertTrue(
        tarball != null && Files.isRegularFile(Path.of(tarball)),
        "the release tarball " + tarball + " exists (built by data-plane's mvn package)");
    Path into = Files.createDirectories(dir.resolve("release"));
    Run untar = run(into, List.of("tar", "-xzf", tarball));
    assertEquals(0, untar.exit(), untar.out());
    try (var entries = Files.list(into)) {
      List<Path> top = entries.toList();
      assertEquals(1, top.size(), "one top directory in the tarball: " + top);
      assertEquals("spool-" + SpoolVersion.version(), top.get(0).getFileName().toString());
      return top.get(0);
    }
  }

  /** The example config with {@code values} set (replacing its lines, or appended). */
  static String fromExample(String example, Map<String, String> values) {
    String out = example;
    for (Map.Entry<String, String> v : values.entrySet()) {
      Pattern line = Pattern.compile("(?m)^" + Pattern.quote(v.getKey()) + "=.*$");
      Matcher m = line.matcher(out);
      String replacement = Matcher.quoteReplacement(v.getKey() + "=" + v.getValue());
      out = m.find() ? m.replaceAll(replacement) : out + "\n" + v.getKey() + "=" + v.getValue();
    }
    return out + "\n";
  }

  private static Path pidFile(Path home, int node) {
    return home.resolve("run/spool-node-" + node + ".pid");
  }

  private static void awaitReady(int metricsPort) {
    HttpClient http = HttpClient.newHttpClient();
    URI ready = URI.create("http://127.0.0.1:" + metricsPort + "/health/ready");
    await("node on metrics port " + metricsPort + " ready")
        .atMost(E2e.READY)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () ->
                http.send(HttpRequest.newBuilder(ready).build(), BodyHandlers.ofString())
                        .statusCode()
                    == 200);
  }

  private static void awaitThreeActiveBrokers(String bootstrap) {
    try (Admin admin = new Admin(Map.of("bootstrap.servers", bootstrap))) {
      await("three unfenced brokers")
          .atMost(E2e.READY)
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(
              () -> {
                ClusterDescription d = admin.describeCluster().get(5, TimeUnit.SECONDS);
                return d.brokers().size() == NODES
                    && d.brokers().stream().noneMatch(ClusterDescription.Broker::fenced);
              });
    }
  }

  private static List<JsonNode> jsonLines(String out, String field) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String l : out.split("\n")) {
      if (l.startsWith("{")) {
        JsonNode n = json.readTree(l);
        if (n.has(field)) {
          lines.add(n);
        }
      }
    }
    return lines;
  }

  private Run run(Path cwd, List<String> command) throws Exception {
    return run(cwd, command, "");
  }

  /**
   * Runs {@code command} in {@code cwd} with only PATH and JAVA_HOME (this test's JVM) in its
   * environment and small heaps for the nodes; stdout and stderr together.
   */
  private Run run(Path cwd, List<String> command, String stdin) throws Exception {
    return finish(start(cwd, command, stdin));
  }

  private Run run(Path cwd, List<String> command, String stdin, Path javaHome) throws Exception {
    return finish(start(cwd, command, stdin, javaHome));
  }

  private Process start(Path cwd, List<String> command, String stdin) throws IOException {
    return start(cwd, command, stdin, Path.of(System.getProperty("java.home")));
  }

  private Process start(Path cwd, List<String> command, String stdin, Path javaHome)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
    Map<String, String> env = pb.environment();
    env.clear();
    env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
    env.put("JAVA_HOME", javaHome.toString());
    // Small and quick like the test harness's nodes (ProcessCluster.DEFAULT_JVM_OPTIONS).
    env.put(
        "SPOOL_NODE_OPTS",
        "-Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData");
    pb.redirectErrorStream(true);
    Path out = Files.createTempFile(dir, "out", ".txt");
    pb.redirectOutput(out.toFile());
    Process p = pb.start();
    outputs.put(p, out);
    p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    return p;
  }

  private Run finish(Process p) throws Exception {
    if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(p.info().commandLine() + " did not finish in " + COMMAND_TIMEOUT);
    }
    return new Run(p.exitValue(), Files.readString(outputs.remove(p)));
  }
}
