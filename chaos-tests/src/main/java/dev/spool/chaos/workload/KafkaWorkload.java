package dev.spool.chaos.workload;

import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpType;
import dev.spool.common.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Workload} with Apache Kafka's own Java client ({@code kafka-clients}), for running the
 * same chaos workload against Apache Kafka: the same workers, pacing, values (one counter, decimal
 * text, no key), producer settings (idempotent, acks=all, linger 0, the same request and delivery
 * timeouts), consumer sessions (assign every partition, seek to the beginning) and the same history
 * records, so one history format and one checker suite judge both systems.
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
public final class KafkaWorkload implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaWorkload.class);

  private final WorkloadConfig config;
  private final HistoryRecorder recorder;
  private final AtomicLong nextValue = new AtomicLong();
  private final AtomicBoolean stopProducers = new AtomicBoolean();
  private final AtomicBoolean stopConsumers = new AtomicBoolean();
  private final List<Thread> producerThreads = new ArrayList<>();
  private final List<Thread> consumerThreads = new ArrayList<>();
  private final Workload.Counters counters = new Workload.Counters();

  public KafkaWorkload(WorkloadConfig config, HistoryRecorder recorder) {
    this.config = config;
    this.recorder = recorder;
  }

  public Workload.Counters counters() {
    return counters;
  }

  /** Starts every worker thread. */
  public void start() {
    for (int w = 0; w < config.producers(); w++) {
      int worker = w;
      Thread t = new Thread(() -> runProducer(worker), "kafka-producer-" + w);
      t.setDaemon(true);
      producerThreads.add(t);
      t.start();
    }
    for (int i = 0; i < config.consumers(); i++) {
      int worker = Workload.CONSUMER_WORKER_BASE + i;
      Thread t = new Thread(() -> runConsumer(worker), "kafka-consumer-" + i);
      t.setDaemon(true);
      consumerThreads.add(t);
      t.start();
    }
    LOG.info(
        "Kafka workload started: {} producers at {}/s each, {} consumers, {} partitions",
        config.producers(),
        config.sendsPerSecondPerProducer(),
        config.consumers(),
        config.partitions().size());
  }

  // ---------------------------------------------------------------- producers

  Map<String, Object> producerProps() {
    Map<String, Object> p = new HashMap<>(config.clientSecurity());
    p.put("bootstrap.servers", config.bootstrapServers());
    p.put("acks", "all");
    p.put("enable.idempotence", "true");
    p.put("linger.ms", "0");
    p.put("request.timeout.ms", Long.toString(Workload.REQUEST_TIMEOUT_MS));
    p.put("delivery.timeout.ms", Long.toString(Workload.DELIVERY_TIMEOUT_MS));
    p.put("max.block.ms", "5000");
    p.put("retry.backoff.max.ms", "500");
    p.putAll(config.producerOverrides());
    return p;
  }

  private void runProducer(int worker) {
    Random rng = new Random(config.seed() * 1_000 + worker);
    long pauseNs = (long) (TimeUnit.SECONDS.toNanos(1) / config.sendsPerSecondPerProducer());
    long next = System.nanoTime();
    KafkaProducer<byte[], byte[]> producer = null;
    try {
      while (!stopProducers.get()) {
        if (producer == null) {
          producer =
              new KafkaProducer<>(
                  producerProps(), new ByteArraySerializer(), new ByteArraySerializer());
        }
        TopicPartition tp = config.partitions().get(rng.nextInt(config.partitions().size()));
        long value = nextValue.getAndIncrement();
        if (!send(worker, producer, tp, value)) {
          // As in Workload: info starts a new process with a new producer; after a fail the
          // process goes on, with a new producer too.
          producer.close(Duration.ZERO);
          producer = null;
        }
        next += pauseNs;
        long sleepNs = next - System.nanoTime();
        if (sleepNs > 0) {
          TimeUnit.NANOSECONDS.sleep(sleepNs); // pacing a load generator
        } else if (-sleepNs > TimeUnit.SECONDS.toNanos(1)) {
          next = System.nanoTime(); // after an outage, do not burst to catch up
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("Kafka producer worker {} died", worker, e);
    } finally {
      if (producer != null) {
        producer.close(Duration.ofSeconds(5));
      }
    }
  }

  /** One send op; false unless it was acknowledged (the caller then replaces the producer). */
  private boolean send(
      int worker, KafkaProducer<byte[], byte[]> producer, TopicPartition tp, long value)
      throws InterruptedException {
    Op invoke = recorder.invokeSend(worker, tp, value);
    try {
      RecordMetadata m =
          producer
              .send(
                  new ProducerRecord<>(
                      tp.topic(),
                      tp.partition(),
                      null,
                      Long.toString(value).getBytes(StandardCharsets.UTF_8)))
              .get(
                  Workload.DELIVERY_TIMEOUT_MS + Workload.ACK_WAIT_SLACK_MS, TimeUnit.MILLISECONDS);
      recorder.sendOk(invoke, m.offset());
      counters.sendOk.incrementAndGet();
      return true;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      String error =
          e instanceof TimeoutException
              ? "no answer within "
                  + (Workload.DELIVERY_TIMEOUT_MS + Workload.ACK_WAIT_SLACK_MS)
                  + " ms"
              : describe(e);
      if (classify(e) == OpType.FAIL) {
        recorder.fail(invoke, error);
        counters.sendFail.incrementAndGet();
        return false;
      }
      recorder.info(invoke, error);
      counters.sendInfo.incrementAndGet();
      return false;
    }
  }

  /**
   * {@code fail} only for a send Kafka's producer refused before sending it: its topic was not in
   * the producer's metadata within {@code max.block.ms}. Everything else may have been appended.
   */
  static OpType classify(Throwable error) {
    Throwable t = unwrap(error);
    if (t instanceof org.apache.kafka.common.errors.TimeoutException
        && t.getMessage() != null
        && t.getMessage().contains("not present in metadata")) {
      return OpType.FAIL;
    }
    return OpType.INFO;
  }

  static String describe(Throwable error) {
    Throwable t = unwrap(error);
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  private static Throwable unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  // ---------------------------------------------------------------- consumers

  Map<String, Object> consumerProps() {
    Map<String, Object> p = new HashMap<>(config.clientSecurity());
    p.put("bootstrap.servers", config.bootstrapServers());
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    p.put("fetch.max.wait.ms", "500");
    p.put("request.timeout.ms", Long.toString(Workload.REQUEST_TIMEOUT_MS));
    p.put("default.api.timeout.ms", "10000");
    return p;
  }

  private KafkaConsumer<byte[], byte[]> newConsumer() {
    return new KafkaConsumer<>(
        consumerProps(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private void runConsumer(int worker) {
    KafkaConsumer<byte[], byte[]> consumer = null;
    try {
      while (!stopConsumers.get()) {
        if (consumer == null) {
          consumer = openSession(worker);
          if (consumer == null) {
            Thread.sleep(500); // the assign failed; try a new session shortly
            continue;
          }
        }
        if (poll(worker, consumer) == null) {
          consumer.close(CloseOptions.timeout(Duration.ZERO));
          consumer = null;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("Kafka consumer worker {} died", worker, e);
    } finally {
      if (consumer != null) {
        consumer.close(CloseOptions.timeout(Duration.ZERO));
      }
    }
  }

  private static List<org.apache.kafka.common.TopicPartition> kafka(List<TopicPartition> tps) {
    return tps.stream()
        .map(tp -> new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()))
        .toList();
  }

  /** A new consumer session: every partition from its beginning. Null if it failed (info). */
  private KafkaConsumer<byte[], byte[]> openSession(int worker) {
    Op invoke = recorder.invokeAssign(worker, config.partitions(), true);
    KafkaConsumer<byte[], byte[]> c = null;
    try {
      c = newConsumer();
      c.assign(kafka(config.partitions()));
      c.seekToBeginning(kafka(config.partitions()));
      recorder.ok(invoke);
      return c;
    } catch (RuntimeException e) {
      recorder.info(invoke, describe(e));
      if (c != null) {
        c.close(CloseOptions.timeout(Duration.ZERO));
      }
      return null;
    }
  }

  /** One poll op; returns what it read, or null if it completed as info (the session ends). */
  private Map<TopicPartition, List<OffsetValue>> poll(
      int worker, KafkaConsumer<byte[], byte[]> consumer) {
    Op invoke = recorder.invokePoll(worker);
    try {
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Workload.POLL_TIMEOUT);
      Map<TopicPartition, List<OffsetValue>> reads = new LinkedHashMap<>();
      for (org.apache.kafka.common.TopicPartition ktp : records.partitions()) {
        List<OffsetValue> pairs = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records.records(ktp)) {
          pairs.add(
              new OffsetValue(
                  r.offset(), Long.parseLong(new String(r.value(), StandardCharsets.UTF_8))));
        }
        reads.put(new TopicPartition(ktp.topic(), ktp.partition()), pairs);
        counters.recordsRead.addAndGet(pairs.size());
      }
      recorder.pollOk(invoke, reads);
      counters.polls.incrementAndGet();
      return reads;
    } catch (RuntimeException e) {
      recorder.info(invoke, describe(e));
      counters.pollInfo.incrementAndGet();
      return null;
    }
  }

  // ---------------------------------------------------------------- phases

  /** Stops the producer workers; each finishes its current send first. */
  public void stopProducers(Duration timeout) throws InterruptedException {
    stopProducers.set(true);
    join(producerThreads, timeout);
  }

  /** Stops the consumer workers after their current poll. */
  public void stopConsumers(Duration timeout) throws InterruptedException {
    stopConsumers.set(true);
    join(consumerThreads, timeout);
  }

  private static void join(List<Thread> threads, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (t.isAlive()) {
        LOG.warn("{} did not stop within {}", t.getName(), timeout);
      }
    }
  }

  /**
   * As {@link Workload#drain}: reads every partition from its beginning to the end offsets of this
   * moment with fresh consumer sessions, recorded like any other.
   */
  public Map<TopicPartition, Long> drain(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<TopicPartition, Long> end = null;
    int worker = Workload.DRAIN_WORKER;
    String lastProblem = "nothing tried";
    while (System.nanoTime() < deadline) {
      if (end == null) {
        try (KafkaConsumer<byte[], byte[]> probe = newConsumer()) {
          end = new LinkedHashMap<>();
          for (var e : probe.endOffsets(kafka(config.partitions())).entrySet()) {
            end.put(new TopicPartition(e.getKey().topic(), e.getKey().partition()), e.getValue());
          }
          LOG.info("draining to end offsets {}", end);
        } catch (RuntimeException e) {
          end = null;
          lastProblem = "end offsets: " + e.getMessage();
          Thread.sleep(1_000); // a retry backoff: the cluster gives no signal to wait on
          continue;
        }
      }
      KafkaConsumer<byte[], byte[]> c = openSession(worker);
      if (c == null) {
        worker++;
        Thread.sleep(500);
        continue;
      }
      try {
        Map<TopicPartition, Long> position = new HashMap<>();
        config.partitions().forEach(tp -> position.put(tp, -1L));
        while (System.nanoTime() < deadline && !caughtUp(position, end)) {
          Map<TopicPartition, List<OffsetValue>> reads = poll(worker, c);
          if (reads == null) {
            break;
          }
          reads.forEach(
              (tp, pairs) -> pairs.forEach(ov -> position.merge(tp, ov.offset(), Math::max)));
          for (TopicPartition tp : config.partitions()) {
            if (position.get(tp) + 1 < end.get(tp)) {
              try {
                position.merge(
                    tp,
                    c.position(
                            new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()))
                        - 1,
                    Math::max);
              } catch (RuntimeException e) {
                lastProblem = "position: " + e.getMessage();
              }
            }
          }
        }
        if (caughtUp(position, end)) {
          return end;
        }
        lastProblem = "positions " + position + " short of " + end;
      } finally {
        c.close(CloseOptions.timeout(Duration.ZERO));
      }
      worker++;
    }
    throw new IllegalStateException(
        "the final drain did not reach the end offsets within " + timeout + ": " + lastProblem);
  }

  private static boolean caughtUp(
      Map<TopicPartition, Long> lastReadOffset, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (lastReadOffset.getOrDefault(e.getKey(), -1L) + 1 < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws InterruptedException {
    stopProducers(Duration.ofSeconds(30));
    stopConsumers(Duration.ofSeconds(30));
  }
}
