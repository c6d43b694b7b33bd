package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.testing.process.ProcessCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Kafka's {@code Admin.createPartitions} against the Kafka listeners of three real node processes
 * (kafka-clients 4.4): validateOnly changes nothing, a growth placed by the controller and one on
 * explicit replicas, each bad request refused with Kafka's exception for it; a Kafka producer with
 * the default partitioner and a KIP-848 group consumer (group.protocol=consumer) find the new
 * partitions on their own, and the consumer reads every acknowledged record.
 */
@Tag("integration")
class KafkaCreatePartitionsE2ETest {
  /** Node logs on failure: the cluster is built here, not by the JUnit extension. */
  @RegisterExtension
  static final TestWatcher LOGS = E2e.logsOnFailure(() -> KafkaCreatePartitionsE2ETest.cluster);

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static ProcessCluster cluster;
  private static Admin admin;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        E2e.kafkaCluster(
            "KafkaCreatePartitionsE2ETest",
            Map.of(
                "offsets.topic.num.partitions", "3",
                "group.consumer.heartbeat.interval.ms", "300",
                "group.consumer.session.timeout.ms", "10000"));
    admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers()));
  }

  @AfterAll
  static void stopCluster() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static List<TopicPartitionInfo> partitions(String topic) throws Exception {
    TopicDescription d =
        admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    return d.partitions();
  }

  private static void grow(String topic, NewPartitions np, boolean validateOnly) throws Exception {
    admin
        .createPartitions(
            Map.of(topic, np), new CreatePartitionsOptions().validateOnly(validateOnly))
        .all()
        .get(30, TimeUnit.SECONDS);
  }

  private static void assertRefused(String topic, NewPartitions np, Class<?> expected)
      throws Exception {
    int before = topic.equals("kgrow") ? partitions(topic).size() : -1;
    ExecutionException e = assertThrows(ExecutionException.class, () -> grow(topic, np, false));
    assertTrue(expected.isInstance(e.getCause()), e.toString());
    assertTrue(
        e.getCause().getMessage() != null && !e.getCause().getMessage().isEmpty(), e.toString());
    if (before >= 0) {
      assertEquals(before, partitions(topic).size(), "a refused growth changes nothing");
    }
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldGrowThroughKafkasAdminAndReachKafkasClients() throws Exception {
    admin
        .createTopics(List.of(new NewTopic("kgrow", 2, (short) 3)))
        .all()
        .get(60, TimeUnit.SECONDS);
    cluster.awaitFullIsr(List.of("kgrow"), WAIT);

    grow("kgrow", NewPartitions.increaseTo(4), true);
    assertEquals(2, partitions("kgrow").size(), "validateOnly grows nothing");
    assertRefused("kgrow", NewPartitions.increaseTo(1), InvalidPartitionsException.class);
    assertRefused("kgrow", NewPartitions.increaseTo(2), InvalidPartitionsException.class);
    assertRefused(
        "kgrow-nope", NewPartitions.increaseTo(3), UnknownTopicOrPartitionException.class);
    assertRefused(
        "kgrow",
        NewPartitions.increaseTo(4, List.of(List.of(1, 2, 3))),
        InvalidReplicaAssignmentException.class);
    assertRefused(
        "kgrow",
        NewPartitions.increaseTo(3, List.of(List.of(1, 1, 2))),
        InvalidReplicaAssignmentException.class);
    assertRefused(
        "kgrow",
        NewPartitions.increaseTo(3, List.of(List.of(1, 2, 7))),
        InvalidReplicaAssignmentException.class);

    try (KafkaProducer<byte[], byte[]> p = producer();
        KafkaConsumer<byte[], byte[]> c = consumer()) {
      c.subscribe(List.of("kgrow"));
      Map<String, Integer> acked = new HashMap<>();
      Map<String, Integer> read = new HashMap<>();
      int next = send(p, 0, 100, acked);
      pollUntil(c, read, () -> read.keySet().containsAll(acked.keySet()));

      grow("kgrow", NewPartitions.increaseTo(3, List.of(List.of(3, 1, 2))), false);
      grow("kgrow", NewPartitions.increaseTo(5), false);
      List<TopicPartitionInfo> now = partitions("kgrow");
      assertEquals(5, now.size());
      assertEquals(3, now.get(2).leader().id());
      assertEquals(List.of(3, 1, 2), now.get(2).replicas().stream().map(n -> n.id()).toList());
      for (TopicPartitionInfo info : now) {
        assertEquals(3, info.replicas().size(), info.toString());
        assertEquals(3, info.isr().size(), info.toString());
      }

      Set<Integer> all = Set.of(0, 1, 2, 3, 4);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (!new TreeSet<>(acked.values()).equals(all) && System.nanoTime() < deadline) {
        next = send(p, next, next + 50, acked);
      }
      assertEquals(all, new TreeSet<>(acked.values()), "the producer found every partition");
      pollUntil(c, read, () -> read.keySet().containsAll(acked.keySet()));
      assertEquals(all, new TreeSet<>(read.values()), "the group was assigned every partition");
      acked.forEach((v, partition) -> assertEquals(partition, read.get(v), v));
    }
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
    p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "1000");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static KafkaConsumer<byte[], byte[]> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "kgrowers");
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "1000");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Keyed sends (the default partitioner hashes keys); value -> acknowledged partition. */
  private static int send(
      KafkaProducer<byte[], byte[]> p, int from, int to, Map<String, Integer> acked)
      throws Exception {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (int i = from; i < to; i++) {
      sends.add(
          p.send(
              new ProducerRecord<>(
                  "kgrow",
                  ("key-" + i).getBytes(StandardCharsets.UTF_8),
                  ("v-" + i).getBytes(StandardCharsets.UTF_8))));
    }
    for (int i = from; i < to; i++) {
      acked.put("v-" + i, sends.get(i - from).get(60, TimeUnit.SECONDS).partition());
    }
    return to;
  }

  private static void pollUntil(
      KafkaConsumer<byte[], byte[]> c,
      Map<String, Integer> read,
      java.util.concurrent.Callable<Boolean> done) {
    // In this thread: a Kafka consumer is used by one thread at a time.
    Awaitility.await()
        .pollInSameThread()
        .atMost(Duration.ofSeconds(90))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                read.put(new String(r.value(), StandardCharsets.UTF_8), r.partition());
              }
              return done.call();
            });
  }
}
