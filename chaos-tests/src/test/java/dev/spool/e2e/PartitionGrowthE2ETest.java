package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.client.Admin;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.NewPartitions;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.RecordMetadata;
import dev.spool.client.TopicDescription;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Growing a topic's partition count on three real node processes, with Spool's own clients: a
 * producer with the default (key hash) partitioner and a two-member consumer group keep running
 * while {@code spool topic alter --partitions} grows the topic; the producer starts writing to the
 * new partitions and the group is assigned them by its coordinator, both on their own (metadata
 * refresh, the coordinator's view of the topic), and every acknowledged record is consumed. Bad
 * growths are refused with their error and change nothing.
 */
@Tag("integration")
@SpoolClusterTest(
    nodes = 3,
    mode = ClusterMode.PROCESS,
    config = {
      "offsets.topic.num.partitions=3",
      "group.consumer.heartbeat.interval.ms=300",
      "group.consumer.session.timeout.ms=10000"
    })
class PartitionGrowthE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static ProcessCluster cluster;

  @BeforeAll
  static void startCluster(ProcessCluster c) {
    cluster = c;
  }

  private static CliRunner.Result cli(String... args) {
    return E2e.cli(cluster, args);
  }

  /** One group member in its own thread (a consumer is used by one thread): value -> partition. */
  private static CompletableFuture<Void> member(
      String group, Map<String, TopicPartition> consumed, AtomicBoolean stop) {
    return CompletableFuture.runAsync(
        () -> {
          Map<String, String> props = new HashMap<>();
          props.put("bootstrap.servers", cluster.bootstrapServers());
          props.put("group.id", group);
          props.put("auto.offset.reset", "earliest");
          props.put("fetch.max.wait.ms", "100");
          props.put("metadata.max.age.ms", "1000");
          try (Consumer c = new Consumer(props)) {
            c.subscribe(List.of("growing"));
            while (!stop.get()) {
              for (ConsumerRecord r : c.poll(Duration.ofMillis(200))) {
                consumed.put(r.valueAsString(), r.topicPartition());
              }
            }
          }
        });
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldSpreadProducersAndAGroupOverNewPartitionsWithoutLosingARecord() throws Exception {
    E2e.createTopic(cluster, "growing", 2, Map.of());
    Map<String, RecordMetadata> acked = new ConcurrentHashMap<>();
    Map<String, TopicPartition> consumed = new ConcurrentHashMap<>();
    AtomicBoolean stopProducing = new AtomicBoolean();
    AtomicBoolean stopConsuming = new AtomicBoolean();
    AtomicReference<Throwable> sendFailure = new AtomicReference<>();
    CompletableFuture<Void> a = member("growers", consumed, stopConsuming);
    CompletableFuture<Void> b = member("growers", consumed, stopConsuming);
    try (Producer producer =
        new Producer(
            Map.of(
                "bootstrap.servers",
                cluster.bootstrapServers(),
                "linger.ms",
                "5",
                "metadata.max.age.ms",
                "1000"))) {
      CompletableFuture<Void> load =
          CompletableFuture.runAsync(() -> produce(producer, acked, stopProducing, sendFailure));
      Awaitility.await("records on both first partitions, consumed")
          .atMost(Duration.ofSeconds(60))
          .until(() -> consumed.values().stream().distinct().count() == 2);

      CliRunner.Result grown = cli("topic", "alter", "growing", "--partitions", "5", "--json");
      assertEquals(0, grown.exitCode(), grown.toString());
      JsonNode json = JSON.readTree(grown.out());
      assertEquals("growing", json.get("topic").asText());
      assertEquals(5, json.get("partitions").asInt());
      // The CLI's answer waits for its broker's image; the admin may ask another broker, whose
      // image shows the growth a moment later.
      AtomicReference<TopicDescription> described = new AtomicReference<>();
      Awaitility.await("every broker's image shows the five partitions")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                described.set(cluster.admin().describeTopic("growing").get(30, TimeUnit.SECONDS));
                return described.get().partitions().size() == 5;
              });
      TopicDescription d = described.get();
      assertEquals(5, d.partitions().size());
      for (TopicDescription.PartitionDescription p : d.partitions()) {
        assertEquals(3, p.replicas().size(), p.toString());
        assertTrue(p.leader() >= 0, p.toString());
      }

      Set<Integer> all = Set.of(0, 1, 2, 3, 4);
      Awaitility.await("the producer writes to every partition, the group reads every one")
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  partitions(acked.values().stream().map(RecordMetadata::partition)).equals(all)
                      && partitions(consumed.values().stream().map(TopicPartition::partition))
                          .equals(all));
      stopProducing.set(true);
      load.get(60, TimeUnit.SECONDS);
    }
    assertEquals(null, sendFailure.get(), "every acks=all send succeeded");
    Awaitility.await("every acknowledged record consumed")
        .atMost(Duration.ofSeconds(60))
        .until(() -> consumed.keySet().containsAll(acked.keySet()));
    stopConsuming.set(true);
    CompletableFuture.allOf(a, b).get(60, TimeUnit.SECONDS);
    for (Map.Entry<String, RecordMetadata> e : acked.entrySet()) {
      assertEquals(e.getValue().topicPartition(), consumed.get(e.getKey()), e.getKey());
    }
  }

  private static Set<Integer> partitions(java.util.stream.Stream<Integer> s) {
    return s.collect(java.util.stream.Collectors.toCollection(TreeSet::new));
  }

  /** Keyed records (the default partitioner hashes the key over the partition count it knows). */
  private static void produce(
      Producer producer,
      Map<String, RecordMetadata> acked,
      AtomicBoolean stop,
      AtomicReference<Throwable> failure) {
    int i = 0;
    while (!stop.get() && failure.get() == null) {
      List<CompletableFuture<RecordMetadata>> batch = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int k = 0; k < 20; k++, i++) {
        String v = "v-" + i;
        values.add(v);
        batch.add(producer.send(ProducerRecord.of("growing", "key-" + i, v)));
      }
      for (int k = 0; k < batch.size(); k++) {
        try {
          acked.put(values.get(k), batch.get(k).get(60, TimeUnit.SECONDS));
        } catch (Exception e) {
          failure.compareAndSet(null, e);
        }
      }
      try {
        Thread.sleep(20); // pacing: a steady trickle, not a flood, on a 2-core machine
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Every refusal carries its error and leaves the topic as it was: a decrease or the same count
   * (INVALID_PARTITIONS), an unknown topic, an assignment naming an unregistered broker or with the
   * wrong number of partitions or replicas (INVALID_REPLICA_ASSIGNMENT); validate-only changes
   * nothing; an explicit assignment is used as given.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldRefuseBadGrowthsAndChangeNothing() throws Exception {
    E2e.createTopic(cluster, "guarded", 3, Map.of());
    Admin admin = cluster.admin();
    assertRefused(admin, "guarded", NewPartitions.increaseTo(2), ErrorCode.INVALID_PARTITIONS);
    assertRefused(admin, "guarded", NewPartitions.increaseTo(3), ErrorCode.INVALID_PARTITIONS);
    assertRefused(
        admin, "no-such-topic", NewPartitions.increaseTo(4), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assertRefused(
        admin,
        "guarded",
        NewPartitions.increaseTo(4, List.of(List.of(1, 2, 9))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assertRefused(
        admin,
        "guarded",
        NewPartitions.increaseTo(5, List.of(List.of(1, 2, 3))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assertRefused(
        admin,
        "guarded",
        NewPartitions.increaseTo(4, List.of(List.of(1, 2))),
        ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    admin
        .createPartitions(Map.of("guarded", NewPartitions.increaseTo(6)), true)
        .get(30, TimeUnit.SECONDS);
    assertEquals(3, partitionCount("guarded"), "validate-only grows nothing");

    CliRunner.Result decrease = cli("topic", "alter", "guarded", "--partitions", "1");
    assertEquals(1, decrease.exitCode(), decrease.toString());
    assertTrue(decrease.err().startsWith("error: INVALID_PARTITIONS"), decrease.err());

    admin
        .createPartitions(Map.of("guarded", NewPartitions.increaseTo(4, List.of(List.of(3, 1, 2)))))
        .get(30, TimeUnit.SECONDS);
    TopicDescription d = admin.describeTopic("guarded").get(30, TimeUnit.SECONDS);
    assertEquals(4, d.partitions().size());
    assertEquals(List.of(3, 1, 2), d.partitions().get(3).replicas());
    assertEquals(3, d.partitions().get(3).leader());
  }

  private static int partitionCount(String topic) throws Exception {
    return cluster.admin().describeTopic(topic).get(30, TimeUnit.SECONDS).partitions().size();
  }

  private static void assertRefused(
      Admin admin, String topic, NewPartitions grow, ErrorCode expected) throws Exception {
    int before = topic.equals("guarded") ? partitionCount(topic) : -1;
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class,
            () -> admin.createPartitions(Map.of(topic, grow)).get(30, TimeUnit.SECONDS));
    assertTrue(e.getCause() instanceof SpoolException, e.toString());
    assertEquals(expected, ((SpoolException) e.getCause()).errorCode(), e.getCause().getMessage());
    if (before >= 0) {
      assertEquals(before, partitionCount(topic), "a refused growth changes nothing");
    }
  }
}
