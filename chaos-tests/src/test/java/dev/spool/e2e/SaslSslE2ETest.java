package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.NewTopic;
import dev.spool.common.ScramMechanism;
import dev.spool.testing.TestCertificates;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL over TLS on the Kafka listener (KAFKA:SASL_SSL): Kafka's producer and consumer trust the
 * node's certificate and log in with PLAIN and SCRAM-SHA-512 against a user made with Spool's
 * Admin; a wrong password is refused with SASL_AUTHENTICATION_FAILED.
 */
@Tag("integration")
@Timeout(180)
class SaslSslE2ETest {
  @TempDir static Path dir;
  private static TestCertificates certs;
  private static InProcessCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
    InProcessCluster.Builder b = InProcessCluster.builder().nodes(1).dir(dir.resolve("cluster"));
    certs.nodeConfig("none", "KAFKA").forEach(b::config);
    cluster =
        b.config("kafka.listener", "127.0.0.1:0")
            .config("listener.security.protocol.map", "SPOOL:PLAINTEXT,KAFKA:SASL_SSL")
            .config("sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN")
            .start();
    cluster.admin().createTopic(new NewTopic("tls-sasl", 1, 1, Map.of())).get(30, TimeUnit.SECONDS);
    cluster
        .admin()
        .upsertScramCredential("tess", ScramMechanism.SCRAM_SHA_512, "tess-pw", 4096)
        .get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Properties client(String mechanism, String password) {
    Properties p = new Properties();
    certs.clientConfig(certs.truststore(), false).forEach(p::put);
    p.put("security.protocol", "SASL_SSL");
    p.put(
        "bootstrap.servers",
        "127.0.0.1:" + cluster.broker(cluster.brokers().get(0)).kafkaBoundPort());
    p.put("sasl.mechanism", mechanism);
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put(
        "sasl.jaas.config", module + " required username=\"tess\" password=\"" + password + "\";");
    return p;
  }

  @Test
  void producesAndConsumesOverTlsWithPlainAndScram() throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            client("PLAIN", "tess-pw"), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 20; i++) {
        producer.send(new ProducerRecord<>("tls-sasl", "v" + i)).get(30, TimeUnit.SECONDS);
      }
    }
    List<String> read = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            client("SCRAM-SHA-512", "tess-pw"),
            new StringDeserializer(),
            new StringDeserializer())) {
      TopicPartition tp = new TopicPartition("tls-sasl", 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (read.size() < 20 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          read.add(r.value());
        }
      }
    }
    assertEquals(20, read.size());
    assertEquals("v19", read.get(19));
  }

  @Test
  void aWrongPasswordIsRefusedOverTls() {
    try (Admin admin = Admin.create(client("SCRAM-SHA-512", "wrong"))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
      SaslAuthenticationException sasl =
          assertInstanceOf(SaslAuthenticationException.class, e.getCause());
      assertTrue(sasl.getMessage().contains("invalid credentials"), sasl.getMessage());
    }
  }
}
