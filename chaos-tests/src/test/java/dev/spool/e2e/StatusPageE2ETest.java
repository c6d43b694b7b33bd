package dev.spool.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.Clock;
import dev.spool.config.Config;
import dev.spool.node.NodeConfig;
import dev.spool.node.NodeStorage;
import dev.spool.node.SpoolNode;
import dev.spool.testing.Chromium;
import dev.spool.testing.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each node's status page ({@code /} on {@code metrics.listener}) loaded in a real headless browser
 * (Debian's chromium) after its script ran: what it shows of the cluster (active controller,
 * brokers, their state and readiness, partition counts, each partition's leader and ISR) equals
 * what {@code spool cluster status --json} and {@code topic describe --json} print, on a healthy
 * cluster and after a node stopped; and its bytes-in sparkline rises after a produce.
 *
 * <p>Set {@code -Dspool.statusPage.screenshot=FILE.png} to also save a screenshot of the page (the
 * one in docs/operations.md was made so).
 */
@Tag("integration")
@Timeout(300)
class StatusPageE2ETest {
  private static final String TOPIC = "pages";
  private static final int NODES = 3;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir static Path dir;
  static final List<SpoolNode> nodes = new ArrayList<>();
  static String bootstrap;

  @BeforeAll
  static void start() throws Exception {
    Ports ports = new Ports();
    StringBuilder voters = new StringBuilder();
    for (int id = 1; id <= NODES; id++) {
      voters
          .append(id == 1 ? "" : ",")
          .append(id)
          .append("@127.0.0.1:")
          .append(ports.next("127.0.0.1"));
    }
    List<CompletableFuture<SpoolNode>> starting = new ArrayList<>();
    for (int id = 1; id <= NODES; id++) {
      Map<String, String> p = new LinkedHashMap<>();
      p.put("node.id", Integer.toString(id));
      p.put("process.roles", "broker,controller");
      p.put("cluster.id", "status-page");
      p.put("listener", "127.0.0.1:0");
      p.put("data.dir", dir.resolve("node" + id).toString());
      p.put("controller.quorum.voters", voters.toString());
      p.put("controller.quorum.bind.host", "127.0.0.1");
      p.put("metrics.listener", "127.0.0.1:0");
      // The nodes stop one after the other after the test: the last one has no quorum left to
      // confirm its controlled shutdown and would wait out the default 30 s for nothing (node 3's
      // stop in the test is confirmed within milliseconds).
      p.put("controlled.shutdown.timeout.ms", "3000");
      // Quorum voters start together: each waits for a majority, so they start in parallel.
      starting.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  Config config = NodeConfig.parse(p);
                  NodeStorage.format(config, "status-page", false);
                  return SpoolNode.start(config, Clock.SYSTEM);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              }));
    }
    for (CompletableFuture<SpoolNode> f : starting) {
      nodes.add(f.get(120, TimeUnit.SECONDS));
    }
    bootstrap = "127.0.0.1:" + nodes.get(0).broker().boundPort();
    for (SpoolNode n : nodes) {
      await().atMost(E2e.READY).until(() -> get(n, "/health/ready").statusCode() == 200);
    }
  }

  @AfterAll
  static void stop() {
    for (SpoolNode n : nodes) {
      n.close();
    }
  }

  @Test
  void thePageShowsWhatClusterStatusSaysAndFollowsANodeStopping() throws Exception {
    cli("topic", "create", TOPIC, "--partitions", "3", "--replication-factor", "3");
    await()
        .atMost(E2e.READY)
        .until(
            () ->
                cliJson("cluster", "status", "--json").get("underReplicatedPartitions").asInt()
                    == 0);
    try (Producer p = new Producer(Map.of("bootstrap.servers", bootstrap, "linger.ms", "5"))) {
      for (int i = 0; i < 300; i++) {
        p.send(new ProducerRecord(TOPIC, i % 3, null, new byte[1000], List.of(), null));
      }
      p.flush();
    }

    SpoolNode first = nodes.get(0);
    awaitPageMatchesCli(first);
    // The leader of partition 0 took bytes in: its page's sparkline rose above the baseline.
    int leader =
        cliJson("topic", "describe", TOPIC, "--json")
            .get("partitions")
            .get(0)
            .get("leader")
            .asInt();
    SpoolNode leaderNode = nodes.get(leader - 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              String dom = dom(leaderNode);
              List<Double> ys = sparkline(dom, "spark-bytes-in");
              assertTrue(ys.size() >= 2, "the sparkline has samples: " + ys);
              assertTrue(
                  ys.stream().anyMatch(y -> y < 38.0),
                  "the bytes-in sparkline rose above its baseline: " + ys);
            });
    String shot = System.getProperty("spool.statusPage.screenshot");
    if (shot != null) {
      Chromium.screenshot(url(first), Path.of(shot), 1100, 900, Duration.ofSeconds(3), profile());
    }

    // Node 3 stops: both views show it not ready and its replicas out of the ISRs, and agree.
    nodes.get(2).close();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              JsonNode s = cliJson("cluster", "status", "--json");
              return s.get("underReplicatedPartitions").asInt() > 0
                  && !broker(s, 3).get("ready").asBoolean();
            });
    awaitPageMatchesCli(first);
    String dom = dom(first);
    assertTrue(dom.contains("NOT READY"), "broker 3 shows as not ready");
  }

  /** Loads the page until everything it shows equals the CLI's view (both settle on their own). */
  private static void awaitPageMatchesCli(SpoolNode n) {
    List<String> last = new ArrayList<>();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                last.clear();
                last.addAll(mismatches(dom(n)));
                return last.isEmpty();
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("the page never matched the CLI: " + last, e);
    }
  }

  /** What the page shows differently from {@code cluster status} and {@code topic describe}. */
  private static List<String> mismatches(String dom) throws Exception {
    JsonNode status = cliJson("cluster", "status", "--json");
    JsonNode topic = cliJson("topic", "describe", TOPIC, "--json");
    List<String> out = new ArrayList<>();
    if (Integer.parseInt(one(dom, "<body[^>]*data-updated=\"(\\d+)\"")) < 1) {
      out.add("the page's script has not drawn yet");
    }
    check(
        out,
        "controller",
        status.get("controller").get("leader").asText(),
        text(dom, "controller"));
    check(out, "offline", status.get("offlinePartitions").asText(), text(dom, "offline"));
    check(
        out,
        "under-replicated",
        status.get("underReplicatedPartitions").asText(),
        text(dom, "under-replicated"));
    check(
        out,
        "under-min-isr",
        status.get("underMinIsrPartitions").asText(),
        text(dom, "under-min-isr"));
    int rows = 0;
    for (JsonNode b : status.get("brokers")) {
      String row = one(dom, "<tr data-broker=\"" + b.get("id").asInt() + "\">(.*?)</tr>");
      rows++;
      String state =
          b.get("fenced").asBoolean()
              ? "FENCED"
              : !b.get("offlineDirs").isEmpty()
                  ? "DIR OFFLINE"
                  : b.get("inControlledShutdown").asBoolean() ? "shutting down" : "active";
      check(out, "broker " + b.get("id") + " state", state, field(row, "state"));
      String ready =
          b.get("ready").asBoolean()
              ? "ready"
              : "NOT READY (" + b.get("notReadyReason").asText() + ")";
      check(out, "broker " + b.get("id") + " readiness", ready, field(row, "ready"));
    }
    check(
        out,
        "broker rows",
        Integer.toString(rows),
        Integer.toString(count(dom, "<tr data-broker=")));
    for (JsonNode p : topic.get("partitions")) {
      String row =
          one(
              dom,
              "<tr data-partition=\"" + TOPIC + "-" + p.get("partition").asInt() + "\">(.*?)</tr>");
      check(out, "leader of " + p.get("partition"), p.get("leader").asText(), field(row, "leader"));
      check(out, "ISR of " + p.get("partition"), ints(p.get("isr")), field(row, "isr"));
      boolean u = p.get("isr").size() < p.get("replicas").size();
      check(out, "mark of " + p.get("partition"), u ? "under-replicated" : "", field(row, "mark"));
    }
    return out;
  }

  private static void check(List<String> out, String what, String cli, String page) {
    if (!cli.equals(page)) {
      out.add(what + ": cli " + cli + ", page " + page);
    }
  }

  private static String ints(JsonNode array) {
    List<String> s = new ArrayList<>();
    array.forEach(v -> s.add(v.asText()));
    return String.join(",", s);
  }

  private static JsonNode broker(JsonNode status, int id) {
    for (JsonNode b : status.get("brokers")) {
      if (b.get("id").asInt() == id) {
        return b;
      }
    }
    throw new AssertionError("no broker " + id + " in " + status);
  }

  private static String text(String dom, String id) {
    return one(dom, "id=\"" + id + "\"[^>]*>([^<]*)<");
  }

  private static String field(String row, String name) {
    return one(row, "data-field=\"" + name + "\"[^>]*>([^<]*)<");
  }

  private static String one(String text, String regex) {
    Matcher m = Pattern.compile(regex, Pattern.DOTALL).matcher(text);
    return m.find() ? m.group(1) : "<missing: " + regex + ">";
  }

  private static int count(String text, String literal) {
    int n = 0;
    for (int i = text.indexOf(literal); i >= 0; i = text.indexOf(literal, i + 1)) {
      n++;
    }
    return n;
  }

  /** The y coordinates of a sparkline's points (the SVG is 40 high; the baseline is y = 38). */
  private static List<Double> sparkline(String dom, String id) {
    String points = one(dom, "<svg id=\"" + id + "\"[^>]*>\\s*<polyline points=\"([^\"]*)\"");
    List<Double> ys = new ArrayList<>();
    for (String xy : points.trim().split("\\s+")) {
      if (xy.contains(",")) {
        ys.add(Double.parseDouble(xy.substring(xy.indexOf(',') + 1)));
      }
    }
    return ys;
  }

  private static String url(SpoolNode n) {
    return "http://127.0.0.1:" + n.opsAddress().getPort() + "/";
  }

  private static Path profile() throws IOException {
    return Files.createTempDirectory(dir, "chromium");
  }

  private static String dom(SpoolNode n) throws IOException {
    return Chromium.dumpDom(url(n), Duration.ofSeconds(3), profile());
  }

  private static HttpResponse<String> get(SpoolNode n, String path) throws IOException {
    try {
      return HTTP.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.opsAddress().getPort() + path))
              .timeout(Duration.ofSeconds(10))
              .GET()
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static JsonNode cliJson(String... args) throws Exception {
    return JSON.readTree(cli(args));
  }

  /** Runs {@code spool ARGS -b BOOTSTRAP} in-process; fails unless it exits 0; its output. */
  private static String cli(String... args) {
    CliRunner.Result r = E2e.cli(dir, bootstrap, args);
    assertEquals(0, r.exitCode(), String.join(" ", args) + ": " + r);
    return r.out();
  }
}
