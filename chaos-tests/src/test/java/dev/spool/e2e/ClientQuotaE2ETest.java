package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.quota.ClientQuotaManager;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas end to end on a live in-process node (docs/security.md#quotas): Kafka's Admin sets
 * a producer_byte_rate for one client id and a consumer_byte_rate for another on the Kafka
 * listener, Kafka's producer and consumer then run flat out, and each is held within 10 % of its
 * quota, measured over one full span of the quota windows (5 × 1 s here; Kafka defaults to 11)
 * after the first, as the quota's rate is defined over that span; the clients see throttle_time_ms.
 * Removing the quota lifts the throttle. Nothing sleeps: the loops run by bytes moved and time
 * observed.
 *
 * <p>The request_percentage quota likewise: a client id with a small share of one thread sends
 * small produces flat out, Kafka's producer on the Kafka listener, then Spool's on Spool's. The
 * thread time the broker meters for it ({@link ClientQuotaManager#requestSeconds}) over a span is
 * its share, held within 10 % of the quota; Kafka's producer sees throttle_time_ms, one without a
 * quota beside it does not, and without the quota the client id is neither metered nor throttled.
 */
@Tag("integration")
@Timeout(180)
class ClientQuotaE2ETest {
  private static final double QUOTA = 256 * 1024;
  private static final int VALUE_BYTES = 4096;
  // quota.window.num 5 × quota.window.size.seconds 1 (Kafka's default is 11 windows): the rates
  // are held the same way over a shorter span, and each measurement takes two spans.
  private static final int WINDOWS = 5;
  private static final long SPAN_MS = WINDOWS * 1_000L;

  /** request_percentage: percent of one thread. */
  private static final double SHARE = 2.0;

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
            .config("quota.window.num", String.valueOf(WINDOWS))
            .config("quota.window.size.seconds", "1")
            .start();
    admin = Admin.create(Map.of("bootstrap.servers", bootstrap()));
    admin
        .createTopics(
            List.of(
                new NewTopic("q-produce", 1, (short) 1),
                new NewTopic("q-fetch", 1, (short) 1),
                new NewTopic("q-spool", 1, (short) 1),
                new NewTopic("q-request", 1, (short) 1)))
        .all()
        .get(30, TimeUnit.SECONDS);
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

  private static KafkaProducer<byte[], byte[]> producer(String clientId) {
    return producer(clientId, "2", "16384");
  }

  private static KafkaProducer<byte[], byte[]> producer(
      String clientId, String lingerMs, String batchSize) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("client.id", clientId);
    p.put("acks", "1");
    p.put("linger.ms", lingerMs);
    p.put("batch.size", batchSize);
    p.put("buffer.memory", "65536");
    p.put("max.block.ms", "60000");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static ClientQuotaEntity clientId(String id) {
    return new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, id));
  }

  private static void setQuota(String clientId, String key, Double value) throws Exception {
    setQuota(clientId(clientId), key, value);
  }

  private static void setQuota(ClientQuotaEntity entity, String key, Double value)
      throws Exception {
    admin
        .alterClientQuotas(
            List.of(
                new ClientQuotaAlteration(
                    entity, List.of(new ClientQuotaAlteration.Op(key, value)))))
        .all()
        .get(30, TimeUnit.SECONDS);
  }

  /** Spool's listener: its anonymous user and a client id. */
  private static ClientQuotaEntity anonymous(String clientId) {
    return new ClientQuotaEntity(
        Map.of(ClientQuotaEntity.USER, "ANONYMOUS", ClientQuotaEntity.CLIENT_ID, clientId));
  }

  /** What was moved or spent so far (bytes, thread seconds), at a moment. */
  private record Mark(long nanos, double total) {}

  /** The rate between the first mark at or after {@code fromMs} and the one a span later. */
  private static double rate(List<Mark> marks, long startNanos) {
    Mark a = null;
    for (Mark m : marks) {
      long ms = TimeUnit.NANOSECONDS.toMillis(m.nanos() - startNanos);
      if (a == null && ms >= SPAN_MS) {
        a = m;
      } else if (a != null && TimeUnit.NANOSECONDS.toMillis(m.nanos() - a.nanos()) >= SPAN_MS) {
        return (m.total() - a.total()) / ((m.nanos() - a.nanos()) / 1e9);
      }
    }
    throw new AssertionError("the run ended before a full span was measured: " + marks.size());
  }

  private static double metric(Map<?, ? extends Metric> metrics, String name) {
    return metrics.values().stream()
        .filter(m -> m.metricName().name().equals(name))
        .mapToDouble(m -> ((Number) m.metricValue()).doubleValue())
        .filter(v -> !Double.isNaN(v))
        .max()
        .orElse(0);
  }

  /** Sends one value (blocking while the producer's buffer is full), then acks it. */
  private interface Sender {
    void send(byte[] value, Runnable acked);
  }

  /** Produces flat out for two spans, marking the acknowledged bytes as they come. */
  private static double produceFlatOut(Sender sender, Runnable flush) {
    List<Mark> marks = new java.util.concurrent.CopyOnWriteArrayList<>();
    AtomicLong acked = new AtomicLong();
    byte[] value = new byte[VALUE_BYTES];
    long start = System.nanoTime();
    while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(2 * SPAN_MS + 500)) {
      sender.send(
          value, () -> marks.add(new Mark(System.nanoTime(), acked.addAndGet(VALUE_BYTES))));
    }
    flush.run();
    return rate(marks, start);
  }

  /** Kafka's producer flat out on the Kafka listener. */
  private static double kafkaProduceFlatOut(KafkaProducer<byte[], byte[]> p) {
    return produceFlatOut(
        (v, acked) ->
            p.send(
                new ProducerRecord<>("q-produce", v),
                (md, err) -> {
                  if (err == null) {
                    acked.run();
                  }
                }),
        p::flush);
  }

  private static dev.spool.client.Producer spoolProducer(
      String clientId, String lingerMs, String batchSize) {
    return new dev.spool.client.Producer(
        Map.of(
            "bootstrap.servers", cluster.bootstrapServers(),
            "client.id", clientId,
            "linger.ms", lingerMs,
            "buffer.memory", "65536",
            "batch.size", batchSize));
  }

  /**
   * Spool's producer flat out on Spool's listener, which only mutes (its client ignores the
   * throttle).
   */
  private static double spoolProduceFlatOut() {
    // linger.ms 5 is Spool's producer's default.
    try (dev.spool.client.Producer p = spoolProducer("spool-producer", "5", "16384")) {
      return produceFlatOut(
          (v, acked) -> p.send(new dev.spool.client.ProducerRecord("q-spool", v)).thenRun(acked),
          p::flush);
    }
  }

  @Test
  void producerAndConsumerAreHeldToTheirByteRates() throws Exception {
    // The fetch side reads data written before its quota: an unthrottled producer fills it.
    try (KafkaProducer<byte[], byte[]> fill = producer("filler")) {
      byte[] value = new byte[VALUE_BYTES];
      long need = (long) (QUOTA * 3.5 * SPAN_MS / 1000);
      for (long sent = 0; sent < need; sent += VALUE_BYTES) {
        fill.send(new ProducerRecord<>("q-fetch", value));
      }
      fill.flush();
    }
    setQuota("slow-producer", "producer_byte_rate", QUOTA);
    setQuota("slow-consumer", "consumer_byte_rate", QUOTA);
    // Spool's listener, its anonymous user and a client id: the pair's quota applies.
    setQuota(anonymous("spool-producer"), "producer_byte_rate", QUOTA);
    var described =
        admin
            .describeClientQuotas(
                ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.CLIENT_ID))))
            .entities()
            .get(30, TimeUnit.SECONDS);
    assertEquals(Map.of("producer_byte_rate", QUOTA), described.get(clientId("slow-producer")));
    assertEquals(Map.of("consumer_byte_rate", QUOTA), described.get(clientId("slow-consumer")));

    CompletableFuture<double[]> fetched =
        CompletableFuture.supplyAsync(ClientQuotaE2ETest::consumeFlatOut);
    CompletableFuture<Double> spool =
        CompletableFuture.supplyAsync(ClientQuotaE2ETest::spoolProduceFlatOut);
    double produced;
    double produceThrottle;
    try (KafkaProducer<byte[], byte[]> p = producer("slow-producer")) {
      produced = kafkaProduceFlatOut(p);
      produceThrottle = metric(p.metrics(), "produce-throttle-time-max");
    }
    double[] fetch = fetched.get(120, TimeUnit.SECONDS);
    double spoolProduced = spool.get(120, TimeUnit.SECONDS);
    System.out.printf(
        "client quota %.0f B/s: Kafka produce %.0f B/s (%.3f), Kafka fetch %.0f B/s (%.3f),"
            + " Spool produce %.0f B/s (%.3f)%n",
        QUOTA,
        produced,
        produced / QUOTA,
        fetch[0],
        fetch[0] / QUOTA,
        spoolProduced,
        spoolProduced / QUOTA);
    assertEquals(QUOTA, produced, QUOTA * 0.10, "produce rate");
    assertEquals(QUOTA, spoolProduced, QUOTA * 0.10, "Spool's producer's rate");
    assertEquals(QUOTA, fetch[0], QUOTA * 0.10, "fetch rate");
    assertTrue(produceThrottle > 0, "the producer saw throttle_time_ms");
    assertTrue(fetch[1] > 0, "the consumer saw throttle_time_ms");

    // Without its quota the same producer moves the same bytes at least three times as fast.
    setQuota("slow-producer", "producer_byte_rate", null);
    try (KafkaProducer<byte[], byte[]> p = producer("slow-producer")) {
      byte[] value = new byte[VALUE_BYTES];
      long bytes = (long) (QUOTA * 10);
      long start = System.nanoTime();
      for (long sent = 0; sent < bytes; sent += VALUE_BYTES) {
        p.send(new ProducerRecord<>("q-produce", value));
      }
      p.flush();
      double rate = bytes / ((System.nanoTime() - start) / 1e9);
      assertTrue(rate > 3 * QUOTA, "unthrottled after the quota's removal: " + rate + " B/s");
    }
  }

  private static dev.spool.cli.CliRunner.Result cli(String... args) {
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.add("-b");
    all.add(cluster.bootstrapServers());
    return new dev.spool.cli.CliRunner(Map.of(), dir).run("", all.toArray(new String[0]));
  }

  @Test
  void theCliAltersAndDescribesQuotasAndRefusesBadOnes() throws Exception {
    var r =
        cli(
            "quota",
            "alter",
            "--user",
            "carol",
            "--client-id",
            "<default>",
            "--add",
            "producer_byte_rate=1048576,consumer_byte_rate=2048");
    assertEquals(0, r.exitCode(), r.toString());
    r =
        cli(
            "quota",
            "alter",
            "--user",
            "carol",
            "--client-id",
            "<default>",
            "--delete",
            "consumer_byte_rate");
    assertEquals(0, r.exitCode(), r.toString());
    r = cli("quota", "describe", "--user", "carol", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(
        List.of(
            "{\"user\":\"carol\",\"client_id\":\"<default>\",\"values\":{\"producer_byte_rate\":1048576.0}}"),
        r.outLines());
    r = cli("quota", "describe", "--user", "carol", "--client-id", "<default>");
    assertEquals(
        List.of("user=carol,client-id=<default> producer_byte_rate=1048576"), r.outLines());
    // Kafka's Admin sees the same quota, its default client id as Kafka names it.
    var kafka =
        admin
            .describeClientQuotas(
                ClientQuotaFilter.containsOnly(
                    List.of(
                        ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "carol"),
                        ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.CLIENT_ID))))
            .entities()
            .get(30, TimeUnit.SECONDS);
    var carolDefault = new java.util.HashMap<String, String>();
    carolDefault.put(ClientQuotaEntity.USER, "carol");
    carolDefault.put(ClientQuotaEntity.CLIENT_ID, null);
    assertEquals(
        Map.of(new ClientQuotaEntity(carolDefault), Map.of("producer_byte_rate", 1048576.0)),
        kafka);

    for (String[] bad :
        List.of(
            new String[] {"--user", "carol", "--add", "bytes_per_fortnight=5"},
            new String[] {"--user", "carol", "--add", "producer_byte_rate=-1"},
            new String[] {"--user", "", "--add", "producer_byte_rate=1"},
            new String[] {"--add", "producer_byte_rate=1"})) {
      List<String> args = new java.util.ArrayList<>(List.of("quota", "alter"));
      args.addAll(List.of(bad));
      r = cli(args.toArray(new String[0]));
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains("INVALID_REQUEST"), r.toString());
    }
    // Kafka's Admin is refused by the controller with the same reason.
    var refused =
        admin.alterClientQuotas(
            List.of(
                new ClientQuotaAlteration(
                    clientId("x"),
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", -5.0)))));
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class,
            () -> refused.all().get(30, TimeUnit.SECONDS));
    assertTrue(
        e.getCause() instanceof org.apache.kafka.common.errors.InvalidRequestException
            && e.getCause().getMessage().contains("above 0"),
        String.valueOf(e.getCause()));
  }

  /** Consumes flat out for two spans; the rate over a span and the largest throttle seen. */
  private static double[] consumeFlatOut() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("client.id", "slow-consumer");
    p.put("max.partition.fetch.bytes", "16384");
    p.put("fetch.max.bytes", "16384");
    p.put("enable.auto.commit", "false");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition("q-fetch", 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<Mark> marks = new java.util.ArrayList<>();
      long bytes = 0;
      long start = System.nanoTime();
      while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(2 * SPAN_MS + 500)) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          bytes += r.serializedValueSize();
        }
        marks.add(new Mark(System.nanoTime(), bytes));
      }
      return new double[] {rate(marks, start), metric(c.metrics(), "fetch-throttle-time-max")};
    }
  }

  private static ClientQuotaManager quotas() {
    return cluster.broker(cluster.brokers().get(0)).quotas();
  }

  /**
   * Runs {@code send} flat out for two spans, marking the metered thread time; the share (percent
   * of one thread) over a full span after the first.
   */
  private static double shareFlatOut(Runnable send) {
    List<Mark> marks = new java.util.ArrayList<>();
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
    return 100 * rate(marks, start);
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

  /** Kafka's producer sending small records, one at a time as fast as it can. */
  private static double sendSmall(KafkaProducer<byte[], byte[]> p, int records) {
    byte[] value = new byte[16];
    for (int i = 0; i < records; i++) {
      p.send(new ProducerRecord<>("q-request", value));
    }
    p.flush();
    return metric(p.metrics(), "produce-throttle-time-max");
  }

  @Test
  void aClientIsHeldToItsShareOfThreadTimeOnBothListeners() throws Exception {
    String key = "request_percentage";
    setQuota("busy", key, SHARE);
    setQuota(anonymous("spool-busy"), key, SHARE);
    byte[] value = new byte[16];

    // Beside it, a client id without a request quota: not metered, not throttled.
    CompletableFuture<Double> free =
        CompletableFuture.supplyAsync(
            () -> {
              try (KafkaProducer<byte[], byte[]> p = producer("free", "0", "1024")) {
                return sendSmall(p, 20_000);
              }
            });
    double kafkaShare;
    double kafkaThrottle;
    try (KafkaProducer<byte[], byte[]> p = producer("busy", "0", "1024")) {
      kafkaShare = shareFlatOut(() -> p.send(new ProducerRecord<>("q-request", value)));
      kafkaThrottle = metric(p.metrics(), "produce-throttle-time-max");
      p.flush();
    }
    double freeThrottle = free.get(120, TimeUnit.SECONDS);

    double throttledBefore = quotas().throttledSeconds(ClientQuotaManager.Kind.REQUEST);
    // For the report only: the CPU the request threads really used meanwhile (only this client
    // is busy), against the time metered.
    double meteredBefore = quotas().requestSeconds();
    long cpuBefore = requestThreadsCpuNanos();
    double spoolShare;
    try (dev.spool.client.Producer p = spoolProducer("spool-busy", "0", "1024")) {
      spoolShare =
          shareFlatOut(() -> p.send(new dev.spool.client.ProducerRecord("q-request", value)));
      p.flush();
    }
    double spoolThrottled =
        quotas().throttledSeconds(ClientQuotaManager.Kind.REQUEST) - throttledBefore;
    System.out.printf(
        "request_percentage %.1f: Kafka producer's share %.3f %% (%.3f of the quota), throttle"
            + " max %.0f ms; Spool producer's share %.3f %% (%.3f), %.1f s throttled (%.3f s"
            + " metered, %.3f s CPU on the event loops and workers meanwhile); unquoted client's"
            + " throttle max %.0f ms%n",
        SHARE,
        kafkaShare,
        kafkaShare / SHARE,
        kafkaThrottle,
        spoolShare,
        spoolShare / SHARE,
        spoolThrottled,
        quotas().requestSeconds() - meteredBefore,
        (requestThreadsCpuNanos() - cpuBefore) / 1e9,
        freeThrottle);
    assertTrue(kafkaThrottle > 0, "Kafka's producer saw throttle_time_ms");
    assertEquals(0.0, freeThrottle, "the client id without a quota was never throttled");
    assertEquals(SHARE, kafkaShare, SHARE * 0.10, "Kafka producer's share of thread time");
    assertTrue(spoolThrottled > 0, "Spool's producer was throttled");
    assertEquals(SHARE, spoolShare, SHARE * 0.10, "Spool producer's share of thread time");

    // Without the quota the same client id is not metered, so never throttled.
    setQuota("busy", key, null);
    double metered = quotas().requestSeconds();
    try (KafkaProducer<byte[], byte[]> p = producer("busy", "0", "1024")) {
      assertEquals(0.0, sendSmall(p, 20_000), "unthrottled once the quota is removed");
    }
    assertEquals(metered, quotas().requestSeconds(), 1e-9, "nothing metered");
  }
}
