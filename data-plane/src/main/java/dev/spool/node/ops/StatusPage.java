package dev.spool.node.ops;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.broker.request.DescribeClusterHandler.PartitionCounts;
import dev.spool.common.BrokerReadiness;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The node's status page: {@code /} is one static HTML file ({@code status.html}, nothing loaded
 * from elsewhere) whose script reads {@code /status.json} every two seconds and draws it: the
 * cluster (active controller, brokers, fenced, readiness), topics with their partitions, leaders,
 * ISR and under-replicated marks, and sparklines of bytes in and out and produce latency.
 *
 * <p>The numbers come from the same places as {@code cluster status}: the broker's metadata image,
 * {@link PartitionCounts} and the quorum's own description, so the page and the CLI agree. The
 * sparklines come from {@link #sample}, called once a second, which keeps the last {@value
 * #HISTORY} rates in rings: a freshly opened page draws the last two minutes at once.
 *
 * <p>A controller-only node has no metadata image: its page shows the quorum and its readiness.
 *
 * <p>Threads: {@link #sample} and {@link #json} on the ops endpoint's thread only.
 */
public final class StatusPage {
  /** Samples kept per sparkline (one a second). */
  static final int HISTORY = 120;

  /** How long a page request waits for the quorum's description. */
  private static final long QUORUM_WAIT_MS = 1000;

  private static final JsonFactory JSON = new JsonFactory();

  private final int nodeId;
  private final int maxPartitions;
  private final Supplier<OpsServer.Readiness> readiness;
  private final Supplier<MetadataImage> image;
  private final Supplier<CompletableFuture<QuorumInfo>> quorum;
  private final Supplier<BrokerMetrics.Totals> totals;
  private final byte[] html;

  private final double[] bytesInPerSec = new double[HISTORY];
  private final double[] bytesOutPerSec = new double[HISTORY];
  private final double[] produceMs = new double[HISTORY];
  private int samples;
  private BrokerMetrics.Totals last;
  private long lastNs;

  /**
   * @param maxPartitions partitions listed at most (the counts always cover every partition)
   * @param image the broker's metadata image, or null on a node without a broker
   * @param quorum the quorum's description (a future: it may ask the active controller)
   */
  public StatusPage(
      int nodeId,
      int maxPartitions,
      Supplier<OpsServer.Readiness> readiness,
      Supplier<MetadataImage> image,
      Supplier<CompletableFuture<QuorumInfo>> quorum,
      Supplier<BrokerMetrics.Totals> totals) {
    this.nodeId = nodeId;
    this.maxPartitions = maxPartitions;
    this.readiness = readiness;
    this.image = image;
    this.quorum = quorum;
    this.totals = totals;
    try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
      if (in == null) {
        throw new IllegalStateException("status.html is missing from the jar");
      }
      html = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The page itself. */
  byte[] html() {
    return html;
  }

  /** Takes one sample of the running totals and appends the rates since the last one. */
  void sample(long nowNs) {
    BrokerMetrics.Totals t = totals.get();
    if (last != null && nowNs > lastNs) {
      double seconds = (nowNs - lastNs) / 1e9;
      int i = samples % HISTORY;
      bytesInPerSec[i] = Math.max(0, t.bytesIn() - last.bytesIn()) / seconds;
      bytesOutPerSec[i] = Math.max(0, t.bytesOut() - last.bytesOut()) / seconds;
      double requests = t.produceRequests() - last.produceRequests();
      produceMs[i] =
          requests > 0 ? (t.produceSeconds() - last.produceSeconds()) * 1e3 / requests : 0;
      samples++;
    }
    last = t;
    lastNs = nowNs;
  }

  /** {@code /status.json}: what the page shows. */
  byte[] json() throws IOException {
    QuorumInfo q = describeQuorum();
    MetadataImage img = image.get();
    OpsServer.Readiness self = readiness.get();
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeObjectFieldStart("node");
      g.writeNumberField("id", nodeId);
      g.writeBooleanField("ready", self.ready());
      g.writeStringField("notReadyReason", self.reason());
      g.writeEndObject();
      g.writeObjectFieldStart("controller");
      g.writeNumberField("leader", q == null ? -1 : q.getLeaderId());
      g.writeNumberField("term", q == null ? -1 : q.getTerm());
      g.writeNumberField("commitIndex", q == null ? -1 : q.getCommitIndex());
      g.writeEndObject();
      if (img != null) {
        writeImage(g, img);
      }
      writeSeries(g);
      g.writeEndObject();
    }
    return out.toByteArray();
  }

  private QuorumInfo describeQuorum() {
    CompletableFuture<QuorumInfo> f = quorum.get();
    if (f == null) {
      return null;
    }
    try {
      return f.get(QUORUM_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      // The page still shows the node's own view; the controller shows as unknown (-1).
      return null;
    }
  }

  private void writeImage(JsonGenerator g, MetadataImage img) throws IOException {
    g.writeNumberField("metadataOffset", img.offset());
    g.writeArrayFieldStart("brokers");
    for (BrokerRegistration b :
        img.brokers().values().stream()
            .sorted(Comparator.comparingInt(BrokerRegistration::id))
            .toList()) {
      g.writeStartObject();
      g.writeNumberField("id", b.id());
      g.writeStringField("host", b.host());
      g.writeNumberField("port", b.port());
      g.writeNumberField("epoch", b.epoch());
      g.writeBooleanField("fenced", b.fenced());
      g.writeBooleanField("inControlledShutdown", b.inControlledShutdown());
      g.writeArrayFieldStart("offlineDirs");
      for (String dir : b.offlineDirs()) {
        g.writeString(dir);
      }
      g.writeEndArray();
      // The same rule as `cluster status`: what the quorum's metadata shows of readiness.
      String notReady =
          BrokerReadiness.notReadyReason(b.fenced(), b.inControlledShutdown(), b.offlineDirs());
      g.writeBooleanField("ready", notReady.isEmpty());
      g.writeStringField("notReadyReason", notReady);
      g.writeEndObject();
    }
    g.writeEndArray();
    PartitionCounts counts = PartitionCounts.of(img);
    g.writeNumberField("offlinePartitions", counts.offline());
    g.writeNumberField("underReplicatedPartitions", counts.underReplicated());
    g.writeNumberField("underMinIsrPartitions", counts.underMinIsr());
    List<TopicImage> topics =
        img.topics().stream().sorted(Comparator.comparing(TopicImage::name)).toList();
    int total = 0;
    for (TopicImage t : topics) {
      total += t.partitionCount();
    }
    g.writeNumberField("partitions", total);
    int listed = 0;
    g.writeArrayFieldStart("topics");
    for (TopicImage t : topics) {
      if (listed >= maxPartitions) {
        break;
      }
      g.writeStartObject();
      g.writeStringField("name", t.name());
      g.writeNumberField("partitionCount", t.partitionCount());
      g.writeArrayFieldStart("partitions");
      for (PartitionState p : t.partitions()) {
        if (listed++ >= maxPartitions) {
          break;
        }
        g.writeStartObject();
        g.writeNumberField("partition", p.partition());
        g.writeNumberField("leader", p.leader());
        g.writeNumberField("leaderEpoch", p.leaderEpoch());
        writeInts(g, "replicas", p.replicas());
        writeInts(g, "isr", p.isr());
        g.writeBooleanField("underReplicated", PartitionCounts.isUnderReplicated(p));
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeNumberField("partitionsListed", Math.min(listed, maxPartitions));
  }

  private static void writeInts(JsonGenerator g, String name, List<Integer> values)
      throws IOException {
    g.writeArrayFieldStart(name);
    for (int v : values) {
      g.writeNumber(v);
    }
    g.writeEndArray();
  }

  /** The rings, oldest first. */
  private void writeSeries(JsonGenerator g) throws IOException {
    int n = Math.min(samples, HISTORY);
    g.writeObjectFieldStart("series");
    g.writeNumberField("intervalMs", OpsServer.SAMPLE_INTERVAL_MS);
    writeRing(g, "bytesInPerSec", bytesInPerSec, n);
    writeRing(g, "bytesOutPerSec", bytesOutPerSec, n);
    writeRing(g, "produceLatencyMs", produceMs, n);
    g.writeEndObject();
  }

  private void writeRing(JsonGenerator g, String name, double[] ring, int n) throws IOException {
    g.writeArrayFieldStart(name);
    for (int k = samples - n; k < samples; k++) {
      g.writeNumber(Math.round(ring[k % HISTORY] * 1000) / 1000.0);
    }
    g.writeEndArray();
  }
}
