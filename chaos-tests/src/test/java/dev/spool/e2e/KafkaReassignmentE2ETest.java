package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.testing.process.ProcessCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsOptions;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
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
 * Replica reassignment through Kafka's own Admin (kafka-clients 4.4) against the Kafka listeners of
 * three node processes (docs/architecture.md#replica-reassignment): a partition on broker 1 alone
 * moves to brokers 2 and 3 with its records, and the refusals Kafka's clients know arrive as their
 * exceptions.
 */
@Tag("integration")
class KafkaReassignmentE2ETest {
  @RegisterExtension
  static final TestWatcher LOGS = E2e.logsOnFailure(() -> KafkaReassignmentE2ETest.cluster);

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String TOPIC = "moving";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static ProcessCluster cluster;
  private static Admin admin;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = E2e.kafkaCluster("KafkaReassignmentE2ETest", Map.of());
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

  private static TopicDescription describe() throws Exception {
    return admin
        .describeTopics(List.of(TOPIC))
        .allTopicNames()
        .get(10, TimeUnit.SECONDS)
        .get(TOPIC);
  }

  private static List<Integer> ids(List<Node> nodes) {
    return nodes.stream().map(Node::id).toList();
  }

  /** The exception a reassignment of {@link #TP} fails with. */
  private static Throwable refusal(
      Optional<NewPartitionReassignment> target, AlterPartitionReassignmentsOptions options) {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                admin
                    .alterPartitionReassignments(Map.of(TP, target), options)
                    .all()
                    .get(30, TimeUnit.SECONDS));
    return e.getCause();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldMoveAPartitionWithItsRecordsAndRefuseWhatKafkaRefuses() throws Exception {
    admin
        .createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1)))))
        .all()
        .get(30, TimeUnit.SECONDS);
    Awaitility.await().atMost(WAIT).until(() -> describe().partitions().get(0).leader() != null);
    List<String> sent = new ArrayList<>();
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        sent.add("value-" + i);
        acks.add(p.send(new ProducerRecord<>(TOPIC, 0, null, bytes("value-" + i))));
      }
      for (Future<RecordMetadata> a : acks) {
        a.get(30, TimeUnit.SECONDS);
      }
    }

    admin
        .alterPartitionReassignments(
            Map.of(TP, Optional.of(new NewPartitionReassignment(List.of(2, 3)))))
        .all()
        .get(30, TimeUnit.SECONDS);
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () ->
                ids(describe().partitions().get(0).replicas()).equals(List.of(2, 3))
                    && admin
                        .listPartitionReassignments()
                        .reassignments()
                        .get(10, TimeUnit.SECONDS)
                        .isEmpty());
    var moved = describe().partitions().get(0);
    assertEquals(List.of(2, 3), ids(moved.replicas()));
    assertEquals(2, moved.leader().id(), "leadership moved into the target, its first replica");
    assertEquals(sent, readAll(sent.size()), "every record, in order, from the new leader");

    // A cancel with nothing to cancel; a broker that does not exist; an RF change disallowed (v1).
    assertInstanceOf(
        NoReassignmentInProgressException.class,
        refusal(Optional.empty(), new AlterPartitionReassignmentsOptions()));
    assertInstanceOf(
        InvalidReplicaAssignmentException.class,
        refusal(
            Optional.of(new NewPartitionReassignment(List.of(2, 99))),
            new AlterPartitionReassignmentsOptions()));
    assertInstanceOf(
        InvalidReplicationFactorException.class,
        refusal(
            Optional.of(new NewPartitionReassignment(List.of(1))),
            new AlterPartitionReassignmentsOptions().allowReplicationFactorChange(false)));
    assertEquals(
        List.of(2, 3), ids(describe().partitions().get(0).replicas()), "refusals changed nothing");
  }

  /**
   * kafka-reassign-partitions.sh --throttle sets the leader and follower throttle rates on every
   * broker of a move, and removes them after it: Spool keeps the highest as its cluster throttle.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void shouldTakeKafkasBrokerThrottleRatesAsTheClusterThrottle() throws Exception {
    Map<ConfigResource, Collection<AlterConfigOp>> set = new HashMap<>();
    for (String broker : List.of("1", "2")) {
      set.put(
          new ConfigResource(ConfigResource.Type.BROKER, broker),
          List.of(
              new AlterConfigOp(
                  new ConfigEntry("leader.replication.throttled.rate", "1048576"),
                  AlterConfigOp.OpType.SET),
              new AlterConfigOp(
                  new ConfigEntry("follower.replication.throttled.rate", "1048576"),
                  AlterConfigOp.OpType.SET)));
    }
    admin.incrementalAlterConfigs(set).all().get(30, TimeUnit.SECONDS);
    awaitSpoolThrottle(1_048_576L);

    Map<ConfigResource, Collection<AlterConfigOp>> delete = new HashMap<>();
    delete.put(
        new ConfigResource(ConfigResource.Type.BROKER, "1"),
        List.of(
            new AlterConfigOp(
                new ConfigEntry("follower.replication.throttled.rate", null),
                AlterConfigOp.OpType.DELETE)));
    admin.incrementalAlterConfigs(delete).all().get(30, TimeUnit.SECONDS);
    awaitSpoolThrottle(0L);

    ExecutionException bad =
        assertThrows(
            ExecutionException.class,
            () ->
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            new ConfigResource(ConfigResource.Type.BROKER, "1"),
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("follower.replication.throttled.rate", "-5"),
                                    AlterConfigOp.OpType.SET))))
                    .all()
                    .get(30, TimeUnit.SECONDS));
    assertInstanceOf(InvalidRequestException.class, bad.getCause());
    assertEquals(0L, spoolThrottle(), "a refused rate changes nothing");
  }

  /**
   * Waits until Spool's CLI reports {@code expected}: the answer to Kafka's Admin waited for the
   * image of the broker it went to, and the CLI may ask another, which follows within a heartbeat.
   */
  private static void awaitSpoolThrottle(long expected) {
    Awaitility.await().atMost(WAIT).until(() -> spoolThrottle() == expected);
  }

  /** The cluster throttle as Spool's own CLI reports it. */
  private static long spoolThrottle() throws Exception {
    CliRunner.Result r = E2e.cli(cluster, "reassign", "status", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    return new ObjectMapper().readTree(r.out()).path("throttleBytesPerSec").asLong();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The partition's records from the start, by assign, until {@code expected} arrived. */
  private static List<String> readAll(int expected) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.kafkaBootstrapServers());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.assign(List.of(TP));
      c.seekToBeginning(List.of(TP));
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          out.add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }
}
