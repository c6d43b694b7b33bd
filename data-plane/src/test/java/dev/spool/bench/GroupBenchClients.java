package dev.spool.bench;

import dev.spool.client.Admin;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRebalanceListener;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.NewTopic;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The two systems GroupBench measures behind one small interface, so every measurement runs the
 * same code against Spool's client and against Kafka's: a {@link Member} (a consumer that
 * subscribes, polls, commits or reads assigned partitions) and a {@link Load} (a producer sending
 * to chosen partitions). Each Member belongs to the one thread that calls it, as both clients
 * require; a Load is safe to use from one sending thread.
 */
final class GroupBenchClients {
  private GroupBenchClients() {}

  /** Which client and, for Kafka, which group protocol. */
  enum SystemKind {
    SPOOL,
    KAFKA_CONSUMER,
    KAFKA_CLASSIC;

    static SystemKind parse(String s) {
      return switch (s) {
        case "spool" -> SPOOL;
        case "kafka-consumer" -> KAFKA_CONSUMER;
        case "kafka-classic" -> KAFKA_CLASSIC;
        default -> throw new IllegalArgumentException("unknown system: " + s);
      };
    }
  }

  /** What a member's rebalance listener reports: partition numbers of the one benched topic. */
  interface Ownership {
    void assigned(List<Integer> partitions);

    void revoked(List<Integer> partitions);
  }

  /** One polled batch: how many records per partition number, and their bytes. */
  record Polled(Map<Integer, Integer> countByPartition, long bytes) {
    int count() {
      return countByPartition.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  interface Member extends AutoCloseable {
    void subscribe(String topic, Ownership ownership);

    /** Reads every partition of {@code topic} from the beginning without a group. */
    void assignFromBeginning(String topic, int partitions);

    Polled poll(Duration timeout);

    /** Commits the consumed position of every partition this member owns; returns how many. */
    int commitOwnedPositions();

    @Override
    void close();
  }

  interface Load extends AutoCloseable {
    void send(int partition, byte[] value);

    void flush();

    @Override
    void close();
  }

  static Member member(
      SystemKind kind, String bootstrap, String group, String clientId, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", bootstrap);
    props.put("client.id", clientId);
    if (group != null) {
      props.put("group.id", group);
      props.put("auto.offset.reset", "earliest");
    }
    props.putAll(extra);
    if (kind == SystemKind.SPOOL) {
      return new SpoolMember(props);
    }
    if (group != null) {
      props.put("group.protocol", kind == SystemKind.KAFKA_CONSUMER ? "consumer" : "classic");
    }
    return new KafkaMember(props);
  }

  static Load load(SystemKind kind, String bootstrap, String topic) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", bootstrap);
    props.put("acks", "all");
    props.put("linger.ms", "5");
    if (kind == SystemKind.SPOOL) {
      Producer p = new Producer(props);
      return new Load() {
        @Override
        public void send(int partition, byte[] value) {
          p.send(new ProducerRecord(topic, partition, null, value, List.of(), null));
        }

        @Override
        public void flush() {
          p.flush();
        }

        @Override
        public void close() {
          p.close();
        }
      };
    }
    KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            asProperties(props), new ByteArraySerializer(), new ByteArraySerializer());
    return new Load() {
      @Override
      public void send(int partition, byte[] value) {
        p.send(
            new org.apache.kafka.clients.producer.ProducerRecord<>(topic, partition, null, value));
      }

      @Override
      public void flush() {
        p.flush();
      }

      @Override
      public void close() {
        p.close();
      }
    };
  }

  /** Creates {@code topic} (RF 3) unless it exists. */
  static void createTopic(SystemKind kind, String bootstrap, String topic, int partitions)
      throws Exception {
    if (kind == SystemKind.SPOOL) {
      try (Admin admin = new Admin(Map.of("bootstrap.servers", bootstrap))) {
        boolean exists = admin.listTopics().get(30, TimeUnit.SECONDS).contains(topic);
        if (!exists) {
          admin.createTopic(new NewTopic(topic, partitions, 3, Map.of())).get(60, TimeUnit.SECONDS);
        }
      }
      return;
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (org.apache.kafka.clients.admin.Admin admin =
        org.apache.kafka.clients.admin.Admin.create(p)) {
      admin
          .createTopics(
              List.of(new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) 3)))
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
  }

  private static Properties asProperties(Map<String, String> props) {
    Properties p = new Properties();
    p.putAll(props);
    return p;
  }

  private static List<Integer> numbers(Collection<TopicPartition> tps) {
    return tps.stream().map(TopicPartition::partition).collect(Collectors.toList());
  }

  private static final class SpoolMember implements Member {
    private final Consumer consumer;
    private final Map<TopicPartition, Long> positions = new HashMap<>();

    SpoolMember(Map<String, String> props) {
      consumer = new Consumer(props);
    }

    @Override
    public void subscribe(String topic, Ownership ownership) {
      consumer.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              partitions.forEach(positions::remove);
              ownership.revoked(numbers(partitions));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              ownership.assigned(numbers(partitions));
            }
          });
    }

    @Override
    public void assignFromBeginning(String topic, int partitions) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
    }

    @Override
    public Polled poll(Duration timeout) {
      Map<Integer, Integer> counts = new HashMap<>();
      long bytes = 0;
      for (ConsumerRecord r : consumer.poll(timeout)) {
        counts.merge(r.partition(), 1, Integer::sum);
        positions.put(r.topicPartition(), r.offset() + 1);
        bytes += r.value() == null ? 0 : r.value().length;
      }
      return new Polled(counts, bytes);
    }

    @Override
    public int commitOwnedPositions() {
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      for (TopicPartition tp : consumer.assignment()) {
        Long pos = positions.get(tp);
        if (pos != null) {
          offsets.put(tp, new OffsetAndMetadata(pos));
        }
      }
      if (!offsets.isEmpty()) {
        consumer.commitSync(offsets);
      }
      return offsets.size();
    }

    @Override
    public void close() {
      consumer.close();
    }
  }

  private static final class KafkaMember implements Member {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<org.apache.kafka.common.TopicPartition, Long> positions = new HashMap<>();

    KafkaMember(Map<String, String> props) {
      consumer =
          new KafkaConsumer<>(
              asProperties(props), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<Integer> kafkaNumbers(
        Collection<org.apache.kafka.common.TopicPartition> tps) {
      return tps.stream()
          .map(org.apache.kafka.common.TopicPartition::partition)
          .collect(Collectors.toList());
    }

    @Override
    public void subscribe(String topic, Ownership ownership) {
      consumer.subscribe(
          List.of(topic),
          new org.apache.kafka.clients.consumer.ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(
                Collection<org.apache.kafka.common.TopicPartition> partitions) {
              partitions.forEach(positions::remove);
              ownership.revoked(kafkaNumbers(partitions));
            }

            @Override
            public void onPartitionsAssigned(
                Collection<org.apache.kafka.common.TopicPartition> partitions) {
              ownership.assigned(kafkaNumbers(partitions));
            }
          });
    }

    @Override
    public void assignFromBeginning(String topic, int partitions) {
      List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new org.apache.kafka.common.TopicPartition(topic, p));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
    }

    @Override
    public Polled poll(Duration timeout) {
      Map<Integer, Integer> counts = new HashMap<>();
      long bytes = 0;
      ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
      for (org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> r : records) {
        counts.merge(r.partition(), 1, Integer::sum);
        positions.put(
            new org.apache.kafka.common.TopicPartition(r.topic(), r.partition()), r.offset() + 1);
        bytes += r.value() == null ? 0 : r.value().length;
      }
      return new Polled(counts, bytes);
    }

    @Override
    public int commitOwnedPositions() {
      Map<
              org.apache.kafka.common.TopicPartition,
              org.apache.kafka.clients.consumer.OffsetAndMetadata>
          offsets = new HashMap<>();
      for (org.apache.kafka.common.TopicPartition tp : consumer.assignment()) {
        Long pos = positions.get(tp);
        if (pos != null) {
          offsets.put(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(pos));
        }
      }
      if (!offsets.isEmpty()) {
        consumer.commitSync(offsets);
      }
      return offsets.size();
    }

    @Override
    public void close() {
      consumer.close();
    }
  }
}
