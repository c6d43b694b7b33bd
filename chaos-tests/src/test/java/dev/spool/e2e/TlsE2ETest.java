package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.Admin;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.NewTopic;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.TopicPartition;
import dev.spool.testing.TestCertificates;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A three-node cluster whose Spool and Kafka listeners speak TLS and require client certificates
 * (mutual TLS), so replication between the brokers runs over mutual TLS too: Spool's clients and
 * Kafka's produce and consume over it, followers replicate over it (a leader's death loses nothing
 * acknowledged), and a client that lacks a certificate or does not trust the brokers fails with an
 * error that says so. Fetch answers on these connections are copied, not sent with sendfile.
 */
@Tag("integration")
@Timeout(240)
class TlsE2ETest {
  @TempDir static Path dir;
  private static TestCertificates certs;
  private static InProcessCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
    InProcessCluster.Builder b =
        InProcessCluster.builder()
            .nodes(3)
            .dir(dir.resolve("cluster"))
            .config("kafka.listener", "127.0.0.1:0");
    certs.nodeConfig("required", "SPOOL", "KAFKA").forEach(b::config);
    cluster = b.start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Map<String, String> spoolClient(Path truststore, boolean certificate) {
    Map<String, String> p = new HashMap<>(certs.clientConfig(truststore, certificate));
    p.put("bootstrap.servers", cluster.bootstrapServers());
    return p;
  }

  private static Properties kafkaClient() {
    Properties p = new Properties();
    certs.clientConfig(certs.truststore(), true).forEach(p::put);
    List<String> bootstrap = new ArrayList<>();
    for (int id : cluster.brokers()) {
      bootstrap.add("127.0.0.1:" + cluster.broker(id).kafkaBoundPort());
    }
    p.put("bootstrap.servers", String.join(",", bootstrap));
    return p;
  }

  private static Set<String> readValues(String topic, int partitions, int expected) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      tps.add(new TopicPartition(topic, i));
    }
    Map<String, String> props = spoolClient(certs.truststore(), true);
    props.put("fetch.max.wait.ms", "100");
    Set<String> values = new HashSet<>();
    try (Consumer consumer = new Consumer(props)) {
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                  values.add(r.valueAsString());
                }
                return values.size() >= expected;
              });
    }
    return values;
  }

  @Test
  void shouldProduceConsumeAndReplicateOverMutualTls() throws Exception {
    String topic = "tls-orders";
    cluster.admin().createTopic(new NewTopic(topic, 2, 3, Map.of())).get(30, TimeUnit.SECONDS);
    int records = 3_000;
    Set<String> sent = new HashSet<>();
    try (Producer producer = new Producer(spoolClient(certs.truststore(), true))) {
      List<CompletableFuture<?>> acks = new ArrayList<>();
      for (int i = 0; i < records; i++) {
        String value = "value-" + i + "-" + "x".repeat(200);
        sent.add(value);
        acks.add(producer.send(ProducerRecord.of(topic, "key-" + i, value)));
      }
      CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }
    assertEquals(sent, readValues(topic, 2, records));

    // Followers fetched every acknowledged record over TLS: the leader's death loses none.
    cluster.awaitFullIsr(List.of(topic), Duration.ofSeconds(30));
    TopicPartition tp = new TopicPartition(topic, 0);
    int leader = cluster.partitionLeader(tp).orElseThrow();
    cluster.stopBroker(leader);
    try {
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                var now = cluster.partitionLeader(tp);
                return now.isPresent() && now.getAsInt() != leader;
              });
      assertEquals(sent, readValues(topic, 2, records));
    } finally {
      cluster.startBroker(leader);
      cluster.awaitReady(Duration.ofSeconds(60));
    }
  }

  @Test
  void shouldServeKafkaClientsOverSsl() throws Exception {
    String topic = "tls-kafka";
    cluster.admin().createTopic(new NewTopic(topic, 1, 3, Map.of())).get(30, TimeUnit.SECONDS);
    Properties pp = kafkaClient();
    pp.put("key.serializer", StringSerializer.class.getName());
    pp.put("value.serializer", StringSerializer.class.getName());
    Set<String> sent = new HashSet<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        sent.add("kafka-" + i);
        acks.add(
            producer.send(
                new org.apache.kafka.clients.producer.ProducerRecord<>(
                    topic, "k" + i, "kafka-" + i)));
      }
      for (Future<RecordMetadata> f : acks) {
        f.get(60, TimeUnit.SECONDS);
      }
    }
    Properties cp = kafkaClient();
    cp.put("key.deserializer", StringDeserializer.class.getName());
    cp.put("value.deserializer", StringDeserializer.class.getName());
    Set<String> read = new HashSet<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
                return read.size() >= sent.size();
              });
    }
    assertEquals(sent, read);
  }

  @Test
  void shouldFailClientsWithoutACertificateOrTrustWithAClearError() {
    for (boolean trusted : new boolean[] {true, false}) {
      Map<String, String> props =
          spoolClient(trusted ? certs.truststore() : certs.untrustedTruststore(), false);
      props.put("default.api.timeout.ms", "3000");
      try (Admin admin = new Admin(props)) {
        ExecutionException e =
            assertThrows(
                ExecutionException.class, () -> admin.describeCluster().get(30, TimeUnit.SECONDS));
        assertTrue(
            e.getCause().getMessage().contains("TLS handshake with"), e.getCause().getMessage());
      }
    }
    // Kafka's own client names it as well.
    Properties pp = kafkaClient();
    pp.put("ssl.truststore.location", certs.untrustedTruststore().toString());
    pp.put("key.serializer", StringSerializer.class.getName());
    pp.put("value.serializer", StringSerializer.class.getName());
    pp.put("max.block.ms", "10000");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  producer
                      .send(new org.apache.kafka.clients.producer.ProducerRecord<>("tls-x", "v"))
                      .get(30, TimeUnit.SECONDS));
      assertInstanceOf(SslAuthenticationException.class, e.getCause());
    }
  }
}
