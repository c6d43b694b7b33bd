package dev.spool.chaos.workload;

import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.history.SendErrors;
import dev.spool.common.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@link Workload}'s client for Apache Kafka: Kafka's own Java client ({@code kafka-clients}), for
 * running the same chaos workload against Apache Kafka ({@link #create}): the same workers, pacing,
 * values (one counter, decimal text, no key), producer settings (idempotent, acks=all, linger 0,
 * the same request and delivery timeouts), consumer sessions (assign every partition, seek to the
 * beginning) and the same history records, so one history format and one checker suite judge both
 * systems.
 *
 * <p>What differs, because Kafka's client does not say it:
 *
 * <ul>
 *   <li><b>fail vs info.</b> Kafka's producer retries inside and does not report whether an earlier
 *       attempt of a send reached a broker, so a send is {@code fail} only when the client refused
 *       it before sending anything (its topic never appeared in the producer's metadata within
 *       {@code max.block.ms}); every other error is {@code info}. Sound for the checkers, only less
 *       precise for {@code aborted-read}.
 *   <li><b>No client-leader records.</b> Kafka's producer exposes no cached leader epoch, so the
 *       fault timelines have no client-switch step for Kafka runs.
 * </ul>
 */
public final class KafkaWorkload implements WorkloadClient {
  private final WorkloadConfig config;

  private KafkaWorkload(WorkloadConfig config) {
    this.config = config;
  }

  /** The chaos workload with Kafka's client. */
  public static Workload create(WorkloadConfig config, HistoryRecorder recorder) {
    return new Workload(config, recorder, new KafkaWorkload(config));
  }

  @Override
  public String threadPrefix() {
    return "kafka";
  }

  @Override
  public String system() {
    return "Kafka";
  }

  Map<String, Object> producerProps() {
    return new HashMap<>(Workload.producerSettings(config, Map.of("enable.idempotence", "true")));
  }

  Map<String, Object> consumerProps() {
    return new HashMap<>(Workload.consumerSettings(config, Map.of("enable.auto.commit", "false")));
  }

  private KafkaConsumer<byte[], byte[]> newConsumer() {
    return new KafkaConsumer<>(
        consumerProps(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @Override
  public Sender newSender(int worker) {
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerProps(), new ByteArraySerializer(), new ByteArraySerializer());
    return new Sender() {
      @Override
      public long send(TopicPartition tp, byte[] value, long waitMs)
          throws ExecutionException, TimeoutException, InterruptedException {
        return producer
            .send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value))
            .get(waitMs, TimeUnit.MILLISECONDS)
            .offset();
      }

      @Override
      public void close(Duration timeout) {
        producer.close(timeout);
      }
    };
  }

  @Override
  public Session newSession() {
    KafkaConsumer<byte[], byte[]> consumer = newConsumer();
    return new Session() {
      @Override
      public void assignFromBeginning(List<TopicPartition> partitions) {
        consumer.assign(kafka(partitions));
        consumer.seekToBeginning(kafka(partitions));
      }

      @Override
      public Map<TopicPartition, List<OffsetValue>> poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        Map<TopicPartition, List<OffsetValue>> reads = new LinkedHashMap<>();
        for (org.apache.kafka.common.TopicPartition ktp : records.partitions()) {
          List<OffsetValue> pairs = new ArrayList<>();
          for (ConsumerRecord<byte[], byte[]> r : records.records(ktp)) {
            pairs.add(
                new OffsetValue(
                    r.offset(), Long.parseLong(new String(r.value(), StandardCharsets.UTF_8))));
          }
          reads.put(new TopicPartition(ktp.topic(), ktp.partition()), pairs);
        }
        return reads;
      }

      @Override
      public long position(TopicPartition tp) {
        return consumer.position(
            new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()));
      }

      @Override
      public void close() {
        consumer.close(CloseOptions.timeout(Duration.ZERO));
      }
    };
  }

  @Override
  public Map<TopicPartition, Long> endOffsets(List<TopicPartition> partitions) {
    try (KafkaConsumer<byte[], byte[]> probe = newConsumer()) {
      Map<TopicPartition, Long> end = new LinkedHashMap<>();
      for (var e : probe.endOffsets(kafka(partitions)).entrySet()) {
        end.put(new TopicPartition(e.getKey().topic(), e.getKey().partition()), e.getValue());
      }
      return end;
    }
  }

  private static List<org.apache.kafka.common.TopicPartition> kafka(List<TopicPartition> tps) {
    return tps.stream()
        .map(tp -> new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()))
        .toList();
  }

  /**
   * {@code fail} only for a send Kafka's producer refused before sending it: its topic was not in
   * the producer's metadata within {@code max.block.ms}. Everything else may have been appended.
   */
  @Override
  public OpType classify(Throwable error) {
    Throwable t = SendErrors.unwrap(error);
    if (t instanceof org.apache.kafka.common.errors.TimeoutException
        && t.getMessage() != null
        && t.getMessage().contains("not present in metadata")) {
      return OpType.FAIL;
    }
    return OpType.INFO;
  }

  @Override
  public String describe(Throwable error) {
    Throwable t = SendErrors.unwrap(error);
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }
}
