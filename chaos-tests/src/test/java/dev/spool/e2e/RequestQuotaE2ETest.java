package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.quota.ClientQuotaManager;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request_percentage quota end to end on a live in-process node (docs/security.md#quotas): a
 * client id with a small share of one thread sends small produces flat out, first Kafka's producer
 * on the Kafka listener, then Spool's on Spool's listener. The thread time the broker meters for it
 * ({@link ClientQuotaManager#requestSeconds}), over one full span of Kafka's default windows (11 ×
 * 1 s) after the first, is its share, held within 10 % of the quota; Kafka's producer sees
 * throttle_time_ms, one without a quota running beside it does not, and once the quota is removed
 * the same client id is no longer throttled. Nothing sleeps: the loops run by time observed.
 */
@Tag("integration")
@Timeout(240)
class RequestQuotaE2ETest {
  /** Percent of one thread. */
  private static final double QUOTA = 2.0;

  private static final long SPAN_MS = 11_000;

  @TempDir static Path dir;
  private static InProcessCluster cluster;
  private static Admin admin;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        InProcessCluster.builder()
            .nodes(1)
            .dir(dir.resolve("cluster"))
            .config("kafka.listener", "127.0.0.1:0")
            .start();
    admin = Admin.create(Map.of("bootstrap.servers", bootstrap()));
    admin.createTopics(List.of(new NewTopic("rq", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String bootstrap() {
    return "127.0.0.1:" + cluster.broker(cluster.brokers().get(0)).kafkaBoundPort();
  }

  private static ClientQuotaManager quotas() {
    return cluster.broker(cluster.brokers().get(0)).quotas();
  }

  private static KafkaProducer<byte[], byte[]> producer(String clientId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("client.id", clientId);
    p.put("acks", "1");
    p.put("linger.ms", "0");
    p.put("batch.size", "1024");
    p.put("buffer.memory", "65536");
    p.put("max.block.ms", "60000");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static void setQuota(ClientQuotaEntity entity, Double percent) throws Exception {
    admin
        .alterClientQuotas(
            List.of(
                new ClientQuotaAlteration(
                    entity, List.of(new ClientQuotaAlteration.Op("request_percentage", percent)))))
        .all()
        .get(30, TimeUnit.SECONDS);
  }

  private static ClientQuotaEntity clientId(String id) {
    return new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, id));
  }

  private static double metric(Map<?, ? extends Metric> metrics, String name) {
    return metrics.values().stream()
        .filter(m -> m.metricName().name().equals(name))
        .mapToDouble(m -> ((Number) m.metricValue()).doubleValue())
        .filter(v -> !Double.isNaN(v))
        .max()
        .orElse(0);
  }

  /** Metered thread time at a moment. */
  private record Mark(long nanos, double seconds) {}

  /**
   * Runs {@code send} flat out for two spans, marking the metered thread time; the share (percent
   * of one thread) over the first full span after the first.
   */
  private static double shareFlatOut(Runnable send) {
    List<Mark> marks = new ArrayList<>();
    long start = System.nanoTime();
    long lastMark = 0;
    while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(2 * SPAN_MS + 500)) {
      send.run();
      long now = System.nanoTime();
      if (now - lastMark > TimeUnit.MILLISECONDS.toNanos(20)) {
        marks.add(new Mark(now, quotas().requestSeconds()));
        lastMark = now;
      }
    }
    Mark a = null;
    for (Mark m : marks) {
      if (a == null && TimeUnit.NANOSECONDS.toMillis(m.nanos() - start) >= SPAN_MS) {
        a = m;
      } else if (a != null && TimeUnit.NANOSECONDS.toMillis(m.nanos() - a.nanos()) >= SPAN_MS) {
        return 100 * (m.seconds() - a.seconds()) / ((m.nanos() - a.nanos()) / 1e9);
      }
    }
    throw new AssertionError("the run ended before a full span was measured: " + marks.size());
  }

  /** CPU time of the broker's event loops and partition workers (this JVM runs the node). */
  private static long requestThreadsCpuNanos() {
    var mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long total = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String n = t.getName();
      if (n.startsWith("spool-network-") || n.startsWith("partition-") && !n.endsWith("ticker")) {
        total += Math.max(0, mx.getThreadCpuTime(t.getId()));
      }
    }
    return total;
  }

  /** Sends small records flat out (blocking while the producer's buffer is full). */
  private static Runnable sender(Consumer<byte[]> send) {
    byte[] value = new byte[16];
    return () -> send.accept(value);
  }

  @Test
  void aClientIsHeldToItsShareOfThreadTimeOnBothListeners() throws Exception {
    setQuota(clientId("busy"), QUOTA);
    // Spool's listener: its anonymous user and a client id.
    setQuota(
        new ClientQuotaEntity(
            Map.of(ClientQuotaEntity.USER, "ANONYMOUS", ClientQuotaEntity.CLIENT_ID, "spool-busy")),
        QUOTA);

    // Beside it, a client id without a request quota: not metered, not throttled.
    CompletableFuture<Double> free =
        CompletableFuture.supplyAsync(
            () -> {
              try (KafkaProducer<byte[], byte[]> p = producer("free")) {
                byte[] value = new byte[16];
                for (int i = 0; i < 20_000; i++) {
                  p.send(new ProducerRecord<>("rq", value));
                }
                p.flush();
                return metric(p.metrics(), "produce-throttle-time-max");
              }
            });
    double kafkaShare;
    double kafkaThrottle;
    double throttledBefore = quotas().throttledSeconds(ClientQuotaManager.Kind.REQUEST);
    try (KafkaProducer<byte[], byte[]> p = producer("busy")) {
      kafkaShare = shareFlatOut(sender(v -> p.send(new ProducerRecord<>("rq", v))));
      kafkaThrottle = metric(p.metrics(), "produce-throttle-time-max");
      p.flush();
    }
    double freeThrottle = free.get(120, TimeUnit.SECONDS);

    double spoolShare;
    double spoolThrottledBefore = quotas().throttledSeconds(ClientQuotaManager.Kind.REQUEST);
    // For the report only: the CPU time the request threads really used meanwhile (only this
    // client is busy), against the wall time metered.
    double meteredAtStart = quotas().requestSeconds();
    long cpuAtStart = requestThreadsCpuNanos();
    try (dev.spool.client.Producer p =
        new dev.spool.client.Producer(
            Map.of(
                "bootstrap.servers", cluster.bootstrapServers(),
                "client.id", "spool-busy",
                "linger.ms", "0",
                "buffer.memory", "65536",
                "batch.size", "1024"))) {
      spoolShare = shareFlatOut(sender(v -> p.send(new dev.spool.client.ProducerRecord("rq", v))));
      p.flush();
    }
    double spoolThrottled =
        quotas().throttledSeconds(ClientQuotaManager.Kind.REQUEST) - spoolThrottledBefore;
    System.out.printf(
        "Spool run: %.3f s metered, %.3f s CPU on the event loops and partition workers%n",
        quotas().requestSeconds() - meteredAtStart, (requestThreadsCpuNanos() - cpuAtStart) / 1e9);
    System.out.printf(
        "request_percentage %.1f: Kafka producer's share %.3f %% (%.3f of the quota), throttle"
            + " max %.0f ms; Spool producer's share %.3f %% (%.3f), %.1f s throttled; unquoted"
            + " client's throttle max %.0f ms; request throttles before the Spool run %.1f s%n",
        QUOTA,
        kafkaShare,
        kafkaShare / QUOTA,
        kafkaThrottle,
        spoolShare,
        spoolShare / QUOTA,
        spoolThrottled,
        freeThrottle,
        quotas().throttledSeconds(ClientQuotaManager.Kind.REQUEST) - throttledBefore);
    assertTrue(kafkaThrottle > 0, "Kafka's producer saw throttle_time_ms");
    assertEquals(0.0, freeThrottle, "the client id without a quota was never throttled");
    assertEquals(QUOTA, kafkaShare, QUOTA * 0.10, "Kafka producer's share of thread time");
    assertTrue(spoolThrottled > 0, "Spool's producer was throttled");
    assertEquals(QUOTA, spoolShare, QUOTA * 0.10, "Spool producer's share of thread time");

    // Without the quota the same client id is not metered, so never throttled.
    setQuota(clientId("busy"), null);
    double meteredBefore = quotas().requestSeconds();
    try (KafkaProducer<byte[], byte[]> p = producer("busy")) {
      byte[] value = new byte[16];
      for (int i = 0; i < 20_000; i++) {
        p.send(new ProducerRecord<>("rq", value));
      }
      p.flush();
      assertEquals(0.0, metric(p.metrics(), "produce-throttle-time-max"), "unthrottled");
    }
    assertEquals(meteredBefore, quotas().requestSeconds(), 1e-9, "nothing metered");
  }
}
