package dev.spool.e2e;

import dev.spool.testing.process.ProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka Streams' word count (at-least-once) against a Spool cluster's Kafka listeners: lines go in,
 * Streams splits them, repartitions by word through an internal topic, counts in a store backed by
 * a compacted changelog topic (both created by Streams through CreateTopics) and writes every new
 * count to an output topic. The test thread owns an instance; Streams runs its own threads.
 */
final class StreamsWordCount {
  static final String APP_ID = "spool-wordcount";
  static final String INPUT = "wc-lines";
  static final String OUTPUT = "wc-counts";
  static final String STORE = "counts";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String[] WORDS = {
    "log", "quorum", "segment", "replica", "leader", "offset", "batch", "group", "spool"
  };

  private final String bootstrap;
  private final Admin admin;
  private final Path stateDir;

  StreamsWordCount(String bootstrap, Admin admin, Path stateDir) {
    this.bootstrap = bootstrap;
    this.admin = admin;
    this.stateDir = stateDir;
  }

  /** Line i holds words (i + j) mod 9 for j below 1 + i mod 5: uneven counts, every word used. */
  static List<String> lines(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      StringBuilder line = new StringBuilder();
      for (int j = 0; j <= i % 5; j++) {
        line.append(j == 0 ? "" : " ").append(WORDS[(i * 7 + j * 3) % WORDS.length]);
      }
      out.add(line.toString());
    }
    return out;
  }

  /** The count of every word in {@code lines}, counted here without Streams. */
  static Map<String, Long> expectedCounts(List<String> lines) {
    Map<String, Long> out = new HashMap<>();
    for (String line : lines) {
      for (String w : line.split(" ")) {
        out.merge(w, 1L, Long::sum);
      }
    }
    return out;
  }

  /**
   * Creates the input and output topics, starts Streams, produces {@code lines} and returns the
   * last count of each word on the output topic once it stops changing towards {@code expected} (or
   * when the wait ends), with Streams closed.
   */
  Map<String, Long> run(List<String> lines, Map<String, Long> expected) throws Exception {
    admin
        .createTopics(
            List.of(new NewTopic(INPUT, 3, (short) 3), new NewTopic(OUTPUT, 3, (short) 3)))
        .all()
        .get(60, TimeUnit.SECONDS);
    StreamsBuilder b = new StreamsBuilder();
    b.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> List.of(line.split(" ")))
        .groupBy((k, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore(STORE)))
        .toStream()
        .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
    try (KafkaStreams streams = new KafkaStreams(b.build(), streamsConfig())) {
      streams.start();
      ProcessCluster.await(
          "Streams running", WAIT, () -> streams.state() == KafkaStreams.State.RUNNING, () -> "");
      produce(lines);
      return readCounts(expected);
    }
  }

  private Properties streamsConfig() {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    // Streams' default replication factor (-1) stays: its internal topics take the broker's
    // default.
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    // No record cache: every count update goes to the output, so the last one is the total.
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // Kafka's 3 s wait for more members is the broker's; the member's own timeouts made short.
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
    return p;
  }

  private void produce(List<String> lines) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        sends.add(producer.send(new ProducerRecord<>(INPUT, "line-" + i, lines.get(i))));
      }
      for (var f : sends) {
        f.get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** The latest count per word on the output topic, read by assign until it equals expected. */
  private Map<String, Long> readCounts(Map<String, Long> expected) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Map<String, Long> latest = new HashMap<>();
    try (KafkaConsumer<String, Long> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        tps.add(new TopicPartition(OUTPUT, i));
      }
      c.assign(tps);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (!latest.equals(expected) && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(300)).forEach(r -> latest.put(r.key(), r.value()));
      }
      // One more poll: a count past the expected total would be a record counted twice.
      c.poll(Duration.ofMillis(1000)).forEach(r -> latest.put(r.key(), r.value()));
    }
    return latest;
  }

  /** The internal topics Streams created, each with its cleanup.policy. */
  Map<String, String> internalTopicPolicies() throws Exception {
    Map<String, String> out = new HashMap<>();
    for (String t : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
      if (t.startsWith(APP_ID + "-")) {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, t);
        Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
        out.put(t, c.get("cleanup.policy").value());
      }
    }
    return out;
  }
}
