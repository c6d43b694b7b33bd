package dev.spool.bench;

import dev.spool.client.Admin;
import dev.spool.client.NewTopic;
import dev.spool.common.Clock;
import dev.spool.config.Config;
import dev.spool.node.NodeConfig;
import dev.spool.node.NodeStorage;
import dev.spool.node.SpoolNode;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * What one {@code /metrics} scrape of a node with many partitions costs (the target: 10,000
 * partitions in under 200 ms and 20 MiB): starts a real combined node in this JVM, creates {@code
 * TOPICS} topics of {@code PARTITIONS/TOPICS} partitions (RF 1, every partition led here), then
 * scrapes it over HTTP from a separate process ({@code curl}), as Prometheus does. Time is curl's,
 * request to last byte; allocation is what the node's ops thread ({@code ops-http-<id>}, the only
 * thread a scrape runs on) allocated during the scrape, from the JVM's per-thread allocation
 * counter. Run by scripts/bench-metrics.sh.
 *
 * <p>Usage: {@code ScrapeBench [partitions=10000] [topics=10] [scrapes=30]}.
 *
 * <p>Threads: main only (the node has its own).
 */
public final class ScrapeBench {
  private ScrapeBench() {}

  public static void main(String[] args) throws Exception {
    int partitions = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int topics = Math.min(partitions, args.length > 1 ? Integer.parseInt(args[1]) : 10);
    int scrapes = args.length > 2 ? Integer.parseInt(args[2]) : 30;
    Path dir = Files.createTempDirectory("scrape-bench");
    Map<String, String> p = new LinkedHashMap<>();
    p.put("node.id", "1");
    p.put("process.roles", "broker,controller");
    p.put("cluster.id", "scrape-bench");
    p.put("listener", "127.0.0.1:0");
    p.put("data.dir", dir.resolve("data").toString());
    p.put("controller.quorum.voters", "1@127.0.0.1:" + freePort());
    p.put("controller.quorum.bind.host", "127.0.0.1");
    p.put("metrics.listener", "127.0.0.1:0");
    Config config = NodeConfig.parse(p);
    NodeStorage.format(config, "scrape-bench", false); // as spool storage format does
    try (SpoolNode node = SpoolNode.start(config, Clock.SYSTEM)) {
      awaitTrue(() -> node.readiness().ready(), 120, "node ready");
      long createStart = System.nanoTime();
      try (Admin admin =
          new Admin(Map.of("bootstrap.servers", "127.0.0.1:" + node.broker().boundPort()))) {
        List<NewTopic> ts = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
          ts.add(new NewTopic("scrape-" + t, partitions / topics, 1, Map.of()));
        }
        admin.createTopics(ts).get(300, TimeUnit.SECONDS);
      }
      awaitTrue(
          () -> node.broker().replicaManager().partitions().size() >= partitions,
          600,
          partitions + " partitions hosted");
      System.out.printf(
          "created %d partitions in %d topics in %d s%n",
          partitions, topics, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - createStart));
      measure(node, scrapes);
    }
  }

  private static void measure(SpoolNode node, int scrapes) throws Exception {
    InetSocketAddress a = node.opsAddress();
    String url = "http://127.0.0.1:" + a.getPort() + "/metrics";
    Path bodyFile = Files.createTempFile("scrape-bench", ".txt");
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long opsThread = opsThreadId();
    // Warm-up: as many scrapes as are measured, so the JIT has compiled the scrape path.
    for (int i = 0; i < scrapes; i++) {
      curl(url, bodyFile);
    }
    double[] ms = new double[scrapes];
    double[] mib = new double[scrapes];
    long bodyBytes = 0;
    for (int i = 0; i < scrapes; i++) {
      long alloc0 = mx.getThreadAllocatedBytes(opsThread);
      double[] r = curl(url, bodyFile);
      mib[i] = (mx.getThreadAllocatedBytes(opsThread) - alloc0) / (1024.0 * 1024.0);
      ms[i] = r[0];
      bodyBytes = (long) r[1];
    }
    String body = Files.readString(bodyFile);
    Files.delete(bodyFile);
    long series = body.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
    long partitionSeries = body.lines().filter(l -> l.startsWith("spool_log_end_offset{")).count();
    Arrays.sort(ms);
    Arrays.sort(mib);
    System.out.printf(
        "scrape: %d samples (%d partitions with spool_log_end_offset), %d bytes%n",
        series, partitionSeries, bodyBytes);
    System.out.printf(
        "scrape time ms: p50 %.1f p90 %.1f max %.1f (%d scrapes after %d warm-up)%n",
        ms[scrapes / 2], ms[scrapes * 9 / 10], ms[scrapes - 1], scrapes, scrapes);
    System.out.printf(
        "scrape allocation MiB (ops thread): p50 %.2f p90 %.2f max %.2f%n",
        mib[scrapes / 2], mib[scrapes * 9 / 10], mib[scrapes - 1]);
    // What the same scrape costs without HTTP, on this thread: registry callbacks plus the text.
    ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
    var writer = io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create();
    long self = Thread.currentThread().getId();
    double[] inMs = new double[scrapes];
    double[] inMib = new double[scrapes];
    for (int i = 0; i < 2 * scrapes; i++) {
      out.reset();
      long alloc0 = mx.getThreadAllocatedBytes(self);
      long t0 = System.nanoTime();
      writer.write(
          out,
          node.metricsRegistry().scrape(),
          io.prometheus.metrics.config.EscapingScheme.UNDERSCORE_ESCAPING);
      if (i >= scrapes) {
        inMs[i - scrapes] = (System.nanoTime() - t0) / 1e6;
        inMib[i - scrapes] = (mx.getThreadAllocatedBytes(self) - alloc0) / (1024.0 * 1024.0);
      }
    }
    Arrays.sort(inMs);
    Arrays.sort(inMib);
    System.out.printf(
        "in-process scrape (no HTTP): time ms p50 %.1f max %.1f, allocation MiB p50 %.2f"
            + " max %.2f%n",
        inMs[scrapes / 2], inMs[scrapes - 1], inMib[scrapes / 2], inMib[scrapes - 1]);
  }

  /**
   * One scrape by {@code curl}, a separate process as Prometheus is: its own request-to-last-byte
   * time in ms and the body's size. Fails on anything but a 200.
   */
  private static double[] curl(String url, Path bodyFile) throws Exception {
    Process p =
        new ProcessBuilder(
                "curl",
                "-sS",
                "--max-time",
                "60",
                "-o",
                bodyFile.toString(),
                "-w",
                "%{http_code} %{time_total} %{size_download}",
                url)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.waitFor() != 0 || !out.startsWith("200 ")) {
      throw new IllegalStateException("curl " + url + " failed: " + out);
    }
    String[] f = out.split(" ");
    return new double[] {Double.parseDouble(f[1]) * 1000, Double.parseDouble(f[2])};
  }

  private static long opsThreadId() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("ops-http-")) {
        return t.getId();
      }
    }
    throw new IllegalStateException("no ops-http thread");
  }

  private static void awaitTrue(Callable<Boolean> c, int seconds, String what) {
    org.awaitility.Awaitility.await(what)
        .atMost(Duration.ofSeconds(seconds))
        .pollInterval(Duration.ofMillis(200))
        .until(c);
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }
}
