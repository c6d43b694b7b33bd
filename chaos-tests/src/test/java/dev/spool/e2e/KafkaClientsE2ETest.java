package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.fuzz.FuzzCampaign;
import dev.spool.chaos.fuzz.KafkaRequestFuzzer;
import dev.spool.client.ReplicaLog;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.BrokerIdNotRegisteredException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own Java clients (kafka-clients 4.4, which the data plane already carries for its codec)
 * against the Kafka listeners of three real node processes: the producer with its defaults
 * (idempotent, acks=all), the consumer by assign, Admin, and a leader kill under a running
 * producer, and a short fuzz run. One cluster for the class; the failover test runs last because it
 * kills a node.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaClientsE2ETest {
  /** Node logs on failure: the cluster is built here, not by the JUnit extension. */
  @RegisterExtension
  static final TestWatcher LOGS = E2e.logsOnFailure(() -> KafkaClientsE2ETest.cluster);

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static ProcessCluster cluster;
  private static Admin admin;

  @BeforeAll
  static void startCluster() throws Exception {
    Map<String, String> config = new java.util.LinkedHashMap<>();
    // A small offsets topic and quick KIP-848 heartbeats keep the group tests short.
    config.put("offsets.topic.num.partitions", "6");
    config.put("group.consumer.heartbeat.interval.ms", "500");
    config.put("group.consumer.session.timeout.ms", "10000");
    // Kafka's 3 s wait for more members of a new classic group, made short for tests.
    config.put("group.initial.rebalance.delay.ms", "200");
    cluster = E2e.kafkaCluster("KafkaClientsE2ETest", config);
    admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
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

  private static String bootstrap() {
    return cluster.kafkaBootstrapServers();
  }

  private static KafkaProducer<byte[], byte[]> producer(Object... kv) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /**
   * Every record of {@code partitions} from the start to their end offsets (so a duplicate shows),
   * and at least {@code expected} records, by assign (no group).
   */
  private static Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> readAll(
      String topic, int partitions, int expected) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      tps.add(new org.apache.kafka.common.TopicPartition(topic, i));
    }
    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> out = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<org.apache.kafka.common.TopicPartition, Long> end = c.endOffsets(tps);
      long deadline = System.nanoTime() + WAIT.toNanos();
      int read = 0;
      while ((read < expected || tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp)))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          out.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>())
              .add(r);
          read++;
        }
      }
    }
    return out;
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static void createTopic(String name, int partitions, Map<String, String> configs)
      throws Exception {
    admin
        .createTopics(List.of(new NewTopic(name, partitions, (short) 3).configs(configs)))
        .all()
        .get(60, TimeUnit.SECONDS);
    cluster.awaitFullIsr(List.of(name), WAIT);
  }

  @Test
  @Order(1)
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldProduceWithTheDefaultIdempotentProducerAndReadBackByAssign() throws Exception {
    createTopic("orders", 3, Map.of());
    Map<String, RecordMetadata> acked = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> p = producer()) {
      List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        sends.add(
            p.send(
                new ProducerRecord<>(
                    "orders",
                    ("key-" + i % 17).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8))));
      }
      for (int i = 0; i < sends.size(); i++) {
        acked.put("value-" + i, sends.get(i).get(30, TimeUnit.SECONDS));
      }
    }
    var read = readAll("orders", 3, 300);
    Map<String, ConsumerRecord<byte[], byte[]>> byValue = new HashMap<>();
    read.values().forEach(l -> l.forEach(r -> byValue.put(text(r.value()), r)));
    assertEquals(300, read.values().stream().mapToInt(List::size).sum(), "each record once");
    for (var e : acked.entrySet()) {
      ConsumerRecord<byte[], byte[]> r = byValue.get(e.getKey());
      assertEquals(e.getValue().partition(), r.partition(), e.getKey());
      assertEquals(e.getValue().offset(), r.offset(), e.getKey());
    }
    // Records of one key share a partition (the producer's default partitioner, Kafka's hash).
    Map<String, Set<Integer>> partitionsOfKey = new HashMap<>();
    byValue
        .values()
        .forEach(
            r ->
                partitionsOfKey
                    .computeIfAbsent(text(r.key()), k -> new java.util.HashSet<>())
                    .add(r.partition()));
    partitionsOfKey.forEach((k, ps) -> assertEquals(1, ps.size(), k + " in " + ps));
  }

  @Test
  @Order(2)
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldServeAdminTopicsConfigsAndDescribeCluster() throws Exception {
    DescribeClusterResult dc = admin.describeCluster();
    assertEquals(3, dc.nodes().get(30, TimeUnit.SECONDS).size());
    assertFalse(dc.clusterId().get(30, TimeUnit.SECONDS).isEmpty());
    assertTrue(dc.controller().get(30, TimeUnit.SECONDS).id() >= 1);
    Set<String> brokerPorts = Set.of(bootstrap().split(","));
    dc.nodes()
        .get()
        .forEach(
            n ->
                assertTrue(
                    brokerPorts.contains(n.host() + ":" + n.port()),
                    n + " advertises its Kafka listener"));

    // kafka-cluster.sh unregister sends UnregisterBroker: Spool's refusals reach Kafka's Admin.
    ExecutionException unknown =
        assertThrows(
            ExecutionException.class,
            () -> admin.unregisterBroker(99).all().get(30, TimeUnit.SECONDS));
    assertInstanceOf(BrokerIdNotRegisteredException.class, unknown.getCause(), unknown.toString());
    ExecutionException alive =
        assertThrows(
            ExecutionException.class,
            () -> admin.unregisterBroker(1).all().get(30, TimeUnit.SECONDS));
    assertInstanceOf(InvalidRequestException.class, alive.getCause(), alive.toString());
    assertTrue(alive.getCause().getMessage().contains("stop it first"), alive.toString());
    assertEquals(3, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());

    createTopic("admin-topic", 2, Map.of("retention.ms", "3600000"));
    assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("admin-topic"));
    TopicDescription d =
        admin.describeTopics(List.of("admin-topic")).allTopicNames().get().get("admin-topic");
    assertEquals(2, d.partitions().size());
    d.partitions().forEach(p -> assertEquals(3, p.replicas().size(), p.toString()));

    ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "admin-topic");
    assertEquals("3600000", topicConfig(res).get("retention.ms").value());
    admin
        .incrementalAlterConfigs(
            Map.of(
                res,
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET))))
        .all()
        .get(30, TimeUnit.SECONDS);
    ProcessCluster.await(
        "retention.ms altered",
        WAIT,
        () -> "7200000".equals(topicConfig(res).get("retention.ms").value()),
        () -> String.valueOf(topicConfig(res).get("retention.ms")));

    admin.deleteTopics(List.of("admin-topic")).all().get(30, TimeUnit.SECONDS);
    ProcessCluster.await(
        "admin-topic deleted",
        WAIT,
        () -> !listTopics().contains("admin-topic"),
        () -> String.valueOf(listTopics()));
  }

  private static Config topicConfig(ConfigResource res) {
    try {
      return admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Set<String> listTopics() {
    try {
      return admin.listTopics().names().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * KIP-848 groups through the Kafka listener: a consumer with {@code group.protocol=consumer}
   * subscribes, reads everything and commits; a new consumer of the group resumes from that commit
   * (reads only what was produced since); Admin lists, describes (members and assignment), lists
   * the offsets of, and deletes the group.
   */
  @Test
  @Order(3)
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldServeConsumerProtocolGroupsToKafkasConsumerAndAdmin() throws Exception {
    createTopic("grouped", 3, Map.of());
    String group = "kip848";
    produceValues("grouped", "first-", 300);
    try (KafkaConsumer<byte[], byte[]> c = groupConsumer(group, "consumer")) {
      c.subscribe(List.of("grouped"));
      assertEquals(300, pollValues(c, 300).size());
      c.commitSync(Duration.ofSeconds(30));
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
      assertEquals(GroupType.CONSUMER, d.type());
      assertEquals(GroupState.STABLE, d.groupState());
      assertEquals(1, d.members().size());
      assertEquals(3, d.members().iterator().next().assignment().topicPartitions().size());
      assertTrue(
          admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
              .anyMatch(
                  g -> g.groupId().equals(group) && g.type().orElse(null) == GroupType.CONSUMER),
          "listed as a consumer group");
    }
    Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    assertEquals(3, committed.size(), committed.toString());
    assertEquals(300, committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum());

    produceValues("grouped", "second-", 100);
    try (KafkaConsumer<byte[], byte[]> c = groupConsumer(group, "consumer")) {
      c.subscribe(List.of("grouped"));
      List<String> again = pollValues(c, 100);
      assertEquals(100, again.size(), "resumed from the commit");
      again.forEach(v -> assertTrue(v.startsWith("second-"), v + " was read before the commit"));
      c.commitSync(Duration.ofSeconds(30));
    }
    // The closed consumer left the group (epoch -1), so the group is empty and can be deleted.
    ProcessCluster.await(
        group + " deleted",
        WAIT,
        () -> {
          try {
            admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
            return true;
          } catch (java.util.concurrent.ExecutionException e) {
            return false; // NON_EMPTY_GROUP until the leave is applied
          } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(e);
          }
        },
        () -> "still present");
    assertEquals(
        Map.of(),
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS));
  }

  /**
   * Kafka's producer with each codec through the listener (the broker validates compressed batches
   * and stores them as sent), read back by Kafka's consumer, which decompresses them.
   */
  @Test
  @Order(4)
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldStoreAndServeEveryCompressionCodecOfKafkasProducer() throws Exception {
    createTopic("compressed", 1, Map.of());
    List<String> codecs = List.of("gzip", "snappy", "lz4", "zstd");
    for (String codec : codecs) {
      try (KafkaProducer<byte[], byte[]> p =
          producer(
              ProducerConfig.COMPRESSION_TYPE_CONFIG,
              codec,
              ProducerConfig.LINGER_MS_CONFIG,
              "20")) {
        for (int i = 0; i < 50; i++) {
          p.send(
              new ProducerRecord<>(
                  "compressed",
                  (codec + "-" + i).getBytes(StandardCharsets.UTF_8),
                  (codec + "-value-" + i + "-" + "x".repeat(200))
                      .getBytes(StandardCharsets.UTF_8)));
        }
        p.flush();
      }
    }
    var read =
        readAll("compressed", 1, 200).getOrDefault(new TopicPartition("compressed", 0), List.of());
    assertEquals(200, read.size());
    for (int k = 0; k < codecs.size(); k++) {
      for (int i = 0; i < 50; i++) {
        ConsumerRecord<byte[], byte[]> r = read.get(k * 50 + i);
        assertEquals(k * 50 + i, r.offset());
        assertEquals(codecs.get(k) + "-" + i, text(r.key()));
        assertEquals(codecs.get(k) + "-value-" + i + "-" + "x".repeat(200), text(r.value()));
      }
    }
  }

  private static void produceValues(String topic, String prefix, int n) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = producer()) {
      List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        sends.add(
            p.send(
                new ProducerRecord<>(
                    topic,
                    ("k" + i).getBytes(StandardCharsets.UTF_8),
                    (prefix + i).getBytes(StandardCharsets.UTF_8))));
      }
      for (var f : sends) {
        f.get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static KafkaConsumer<byte[], byte[]> groupConsumer(String group, String protocol) {
    return groupConsumer(group, protocol, Map.of());
  }

  private static KafkaConsumer<byte[], byte[]> groupConsumer(
      String group, String protocol, Map<String, String> extra) {
    Properties p = new Properties();
    p.putAll(extra);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Polls until {@code expected} records arrived (or the wait ends); their values. */
  private static List<String> pollValues(KafkaConsumer<byte[], byte[]> c, int expected) {
    List<String> out = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (out.size() < expected && System.nanoTime() < deadline) {
      c.poll(Duration.ofMillis(500)).forEach(r -> out.add(text(r.value())));
    }
    // One more poll: anything beyond the expected records would be a duplicate or a skip back.
    c.poll(Duration.ofMillis(500)).forEach(r -> out.add(text(r.value())));
    return out;
  }

  /**
   * Admin's record APIs through the listener. describeProducers shows the idempotent producer that
   * wrote; deleteRecords moves the log start, so a consumer from the earliest offset starts there;
   * every replica takes the new start through replication, so it holds after the leader is killed
   * and another takes over; -1 deletes up to the high watermark (Spool's own Admin this time).
   * describeLogDirs lists each broker's replica (createPartitions: KafkaCreatePartitionsE2ETest).
   */
  @Test
  @Order(5)
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldDeleteRecordsAndDescribeLogDirsAndProducersThroughAdmin() throws Exception {
    createTopic("trimmed", 1, Map.of());
    TopicPartition tp = new TopicPartition("trimmed", 0);
    var ktp = new org.apache.kafka.common.TopicPartition("trimmed", 0);
    produceValues("trimmed", "t-", 100);
    var producers =
        admin.describeProducers(List.of(ktp)).partitionResult(ktp).get(30, TimeUnit.SECONDS);
    assertEquals(1, producers.activeProducers().size(), producers.toString());
    var state = producers.activeProducers().get(0);
    assertTrue(state.producerId() >= 0, state.toString());
    assertEquals(99, state.lastSequence(), "100 records from sequence 0");
    assertTrue(
        state.coordinatorEpoch().isEmpty() && state.currentTransactionStartOffset().isEmpty());

    DeletedRecords deleted =
        admin
            .deleteRecords(Map.of(ktp, RecordsToDelete.beforeOffset(40)))
            .lowWatermarks()
            .get(ktp)
            .get(30, TimeUnit.SECONDS);
    assertEquals(40, deleted.lowWatermark());
    assertEquals(List.of(40L, 60L), firstOffsetAndCount("trimmed", tp));
    ProcessCluster.await(
        "every replica's log starts at 40",
        WAIT,
        () -> logStarts("trimmed").equals(List.of(40L, 40L, 40L)),
        () -> String.valueOf(logStarts("trimmed")));

    int leader = cluster.partitionLeader(tp).orElseThrow();
    cluster.kill(leader, Signal.KILL);
    ProcessCluster.await(
        "a new leader of " + tp,
        WAIT,
        () -> cluster.partitionLeader(tp).orElse(leader) != leader,
        () -> "leader " + cluster.partitionLeader(tp));
    assertEquals(List.of(40L, 60L), firstOffsetAndCount("trimmed", tp), "after the failover");
    cluster.start(leader);
    cluster.awaitReady(WAIT);
    cluster.awaitFullIsr(List.of("trimmed"), WAIT);

    assertEquals(
        Map.of(tp, 100L), cluster.admin().deleteRecords(Map.of(tp, -1L)).get(30, TimeUnit.SECONDS));
    assertEquals(List.of(-1L, 0L), firstOffsetAndCount("trimmed", tp));

    var dirs = admin.describeLogDirs(cluster.brokers()).allDescriptions().get(30, TimeUnit.SECONDS);
    assertEquals(Set.copyOf(cluster.brokers()), dirs.keySet());
    dirs.forEach(
        (broker, byDir) -> {
          assertEquals(1, byDir.size(), "one data directory on broker " + broker);
          var d = byDir.values().iterator().next();
          assertTrue(d.totalBytes().orElse(0) > 0, "broker " + broker + ": " + d);
          var replica = d.replicaInfos().get(ktp);
          assertTrue(replica != null && replica.size() > 0, "broker " + broker + ": " + d);
          assertFalse(replica.isFuture());
        });
  }

  /**
   * The first offset a consumer from the earliest offset reads (-1 none), and how many it reads.
   */
  private static List<Long> firstOffsetAndCount(String topic, TopicPartition tp) {
    List<ConsumerRecord<byte[], byte[]>> read = readAll(topic, 1, 0).getOrDefault(tp, List.of());
    return List.of(read.isEmpty() ? -1L : read.get(0).offset(), (long) read.size());
  }

  /** Each replica's log start offset, by Spool's DescribeLogs (Kafka's API has no such field). */
  private static List<Long> logStarts(String topic) {
    return cluster.admin().describeLogs(List.of(topic)).join().stream()
        .map(ReplicaLog::logStartOffset)
        .toList();
  }

  /**
   * A short run of the fuzzer ({@code scripts/kafka-fuzz.sh} runs the long one) at one broker: its
   * canary connection is answered throughout, the nodes live on, Netty reports no leaked buffer,
   * every answer could be written, and Kafka's producer is served afterwards.
   */
  @Test
  @Order(6)
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldSurviveMutatedRequestsAndKeepServingOtherClients() throws Exception {
    createTopic("fuzz", 1, Map.of());
    String first = bootstrap().split(",")[0];
    int colon = first.lastIndexOf(':');
    FuzzCampaign.Result r =
        new KafkaRequestFuzzer(
                new InetSocketAddress(
                    first.substring(0, colon), Integer.parseInt(first.substring(colon + 1))),
                13L,
                "fuzz",
                5_000)
            .run(20_000);
    E2e.assertSurvived(cluster, r, 20_000);
    try (KafkaProducer<byte[], byte[]> p = producer()) {
      p.send(new ProducerRecord<>("fuzz", "after fuzz".getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  @Order(7)
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldLoseNoAcknowledgedRecordWhenTheLeaderIsKilledUnderAKafkaProducer() throws Exception {
    createTopic("failover", 1, Map.of("min.insync.replicas", "2"));
    TopicPartition tp = new TopicPartition("failover", 0);
    int leader = cluster.partitionLeader(tp).orElseThrow();
    Map<String, Long> acked = new ConcurrentHashMap<>();
    Collection<Exception> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean running = new AtomicBoolean(true);
    Thread sender;
    try (KafkaProducer<byte[], byte[]> p = producer(ProducerConfig.LINGER_MS_CONFIG, "5")) {
      sender =
          new Thread(
              () -> {
                for (int i = 0; running.get(); i++) {
                  String v = "v-" + i;
                  p.send(
                      new ProducerRecord<>("failover", v.getBytes(StandardCharsets.UTF_8)),
                      (md, e) -> {
                        if (e != null) {
                          failures.add(e);
                        } else {
                          acked.put(v, md.offset());
                        }
                      });
                  if (i % 20 == 19) {
                    try {
                      Thread.sleep(10); // a steady stream, not one huge backlog
                    } catch (InterruptedException ie) {
                      return;
                    }
                  }
                }
              },
              "kafka-sender");
      sender.start();
      awaitAcks(acked, 500);
      cluster.kill(leader, Signal.KILL);
      int before = acked.size();
      awaitAcks(acked, before + 500);
      assertNotEquals(leader, cluster.partitionLeader(tp).orElseThrow(), "a new leader");
      cluster.start(leader);
      cluster.awaitReady(WAIT);
      running.set(false);
      sender.join(30_000);
      p.flush();
    }
    assertEquals(List.of(), failures.stream().map(Exception::toString).toList());
    var read = readAll("failover", 1, acked.size()).getOrDefault(tp, List.of());
    Map<String, Long> offsetOf = new HashMap<>();
    read.forEach(r -> offsetOf.put(text(r.value()), r.offset()));
    for (var e : acked.entrySet()) {
      assertEquals(e.getValue(), offsetOf.get(e.getKey()), e.getKey() + " at its acked offset");
    }
    assertEquals(acked.size(), read.size(), "no duplicates from the idempotent producer");
  }

  /**
   * Classic groups (kafka-clients' default {@code group.protocol=classic}): two consumers subscribe
   * and share the partitions; one leaves, the other takes its partitions over from the committed
   * offsets; every record is consumed; Admin describes and lists the group as a classic one.
   */
  @Test
  @Order(7)
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldSharePartitionsInAClassicGroupAndHandThemOverOnLeave() throws Exception {
    createTopic("classic", 4, Map.of());
    String group = "classic-share";
    produceValues("classic", "a-", 400);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    KafkaConsumer<byte[], byte[]> c2 = classicConsumer(group);
    try (KafkaConsumer<byte[], byte[]> c1 = classicConsumer(group)) {
      c1.subscribe(List.of("classic"));
      c2.subscribe(List.of("classic"));
      ProcessCluster.await(
          "both members own partitions and all 400 records are read",
          WAIT,
          () -> {
            pollAndCommit(c1, seen);
            pollAndCommit(c2, seen);
            return !c1.assignment().isEmpty()
                && !c2.assignment().isEmpty()
                && c1.assignment().size() + c2.assignment().size() == 4
                && seen.size() == 400;
          },
          () -> c1.assignment() + " / " + c2.assignment() + ", " + seen.size() + " read");
      assertTrue(
          java.util.Collections.disjoint(c1.assignment(), c2.assignment()), "no shared partition");
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
      assertEquals(GroupType.CLASSIC, d.type());
      assertEquals(2, d.members().size());
    } // c1 leaves (LeaveGroup)
    produceValues("classic", "b-", 200);
    try (c2) {
      ProcessCluster.await(
          "the remaining member takes every partition and reads the rest",
          WAIT,
          () -> {
            pollAndCommit(c2, seen);
            return c2.assignment().size() == 4 && seen.size() == 600;
          },
          () -> c2.assignment() + ", " + seen.size() + " read");
      c2.commitSync(Duration.ofSeconds(30));
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
      assertEquals(GroupState.STABLE, d.groupState());
      assertEquals(4, d.members().iterator().next().assignment().topicPartitions().size());
      assertTrue(
          admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
              .anyMatch(
                  g -> g.groupId().equals(group) && g.type().orElse(null) == GroupType.CLASSIC),
          "listed as a classic group");
    }
    assertEquals(
        600,
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS)
            .values()
            .stream()
            .mapToLong(OffsetAndMetadata::offset)
            .sum(),
        "every record committed");
  }

  /**
   * The coordinator of a classic group is killed: the member finds the new one, which loaded the
   * group from the offsets topic, and goes on; the committed offsets are kept.
   */
  @Test
  @Order(8)
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldKeepAClassicGroupAndItsOffsetsAcrossACoordinatorFailover() throws Exception {
    createTopic("classic-fo", 2, Map.of());
    String group = "classic-failover";
    produceValues("classic-fo", "a-", 200);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    try (KafkaConsumer<byte[], byte[]> c = classicConsumer(group)) {
      c.subscribe(List.of("classic-fo"));
      ProcessCluster.await(
          "200 read",
          WAIT,
          () -> pollAndCommit(c, seen) >= 0 && seen.size() == 200,
          () -> seen.size() + " read");
      int coordinator =
          admin
              .describeConsumerGroups(List.of(group))
              .describedGroups()
              .get(group)
              .get()
              .coordinator()
              .id();
      cluster.kill(coordinator, Signal.KILL);
      produceValues("classic-fo", "b-", 100);
      ProcessCluster.await(
          "300 read and committed through the new coordinator",
          WAIT,
          () -> pollAndCommit(c, seen) >= 0 && seen.size() == 300,
          () -> seen.size() + " read");
      c.commitSync(Duration.ofSeconds(30));
      Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> committed =
          c.committed(c.assignment(), Duration.ofSeconds(30));
      assertEquals(
          300, committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum(), "kept");
      cluster.start(coordinator);
      cluster.awaitReady(WAIT);
    }
  }

  /**
   * Kafka Streams' word count (at-least-once): its repartition and compacted changelog topics are
   * created through CreateTopics, its classic group assigns the tasks, every word counted exactly.
   */
  @Test
  @Order(9)
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldCountWordsExactlyWithKafkaStreams(@TempDir Path stateDir) throws Exception {
    List<String> lines = StreamsWordCount.lines(500);
    Map<String, Long> expected = StreamsWordCount.expectedCounts(lines);
    var wc = new StreamsWordCount(bootstrap(), admin, stateDir);
    assertEquals(expected, wc.run(lines, expected));
    String prefix = StreamsWordCount.APP_ID + "-" + StreamsWordCount.STORE;
    assertEquals(
        Map.of(prefix + "-repartition", "delete", prefix + "-changelog", "compact"),
        wc.internalTopicPolicies());
  }

  /** Kafka's default consumer: group.protocol=classic, quick sessions for the failover test. */
  private static KafkaConsumer<byte[], byte[]> classicConsumer(String group) {
    return groupConsumer(
        group,
        "classic",
        Map.of(
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000",
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000"));
  }

  /** One short poll; what it read is committed before the next (a rebalance may refuse it). */
  private static int pollAndCommit(KafkaConsumer<byte[], byte[]> c, Set<String> seen) {
    var records = c.poll(Duration.ofMillis(200));
    records.forEach(r -> seen.add(text(r.value())));
    if (!records.isEmpty()) {
      try {
        c.commitSync(Duration.ofSeconds(10));
      } catch (org.apache.kafka.common.KafkaException e) {
        // A rebalance moved the partitions: the new owner reads from the last commit again.
      }
    }
    return records.count();
  }

  private static void awaitAcks(Map<String, Long> acked, int atLeast) {
    ProcessCluster.await(
        atLeast + " acknowledged records",
        WAIT,
        () -> acked.size() >= atLeast,
        () -> acked.size() + " so far");
  }
}
