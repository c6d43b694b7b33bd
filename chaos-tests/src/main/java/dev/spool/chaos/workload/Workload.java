package dev.spool.chaos.workload;

import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.history.SendErrors;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.ConsumerRecords;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.RecordMetadata;
import dev.spool.common.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chaos workload (Jepsen's Kafka queue workload, without transactions): producer workers send
 * unique values to partitions of RF-3 topics with an idempotent acks=all producer, consumer workers
 * read every partition with {@code assign}, and every operation goes through the {@link
 * HistoryRecorder} as invoke → ok | fail | info.
 *
 * <ul>
 *   <li><b>Processes.</b> A worker thread runs one Jepsen process at a time and one operation at a
 *       time (a send waits for its acknowledgement). After an {@code info} the recorder starts a
 *       new process, so the worker closes its client and opens a fresh one: a new producer (new
 *       producer id), or a new consumer session that assigns all partitions from the beginning. A
 *       producer is also replaced after a {@code fail} (same process): a definite failure can come
 *       from a producer that will never send again, and one such producer would silence its worker
 *       for the rest of the run.
 *   <li><b>fail vs info.</b> A send is {@code fail} only when the client says no attempt may have
 *       been appended ({@link SendErrors#classify(Throwable)}); everything else, including our own
 *       wait running out, is {@code info}. A poll that throws is {@code info} (the session's
 *       position is unknown) and ends the session.
 *   <li><b>Values.</b> One counter for all producers: value {@code v} is written at most once by
 *       the workload, as the record value's decimal text, with no key.
 *   <li><b>Drain.</b> {@link #drain} reads every partition to the end offsets of that moment with a
 *       fresh consumer session, so the {@code unseen} checker has final polls that caught up.
 * </ul>
 *
 * <p>Threads: one per worker; counters are atomics read by the progress printer.
 */
public final class Workload implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Workload.class);

  /** Consumer workers are numbered from here, drain sessions from {@link #DRAIN_WORKER}. */
  static final int CONSUMER_WORKER_BASE = 100;

  static final int DRAIN_WORKER = 1_000;
  static final long DELIVERY_TIMEOUT_MS = 15_000;
  static final long REQUEST_TIMEOUT_MS = 5_000;

  /**
   * How much longer than the producer's delivery timeout we wait for a future before calling it
   * info.
   */
  static final long ACK_WAIT_SLACK_MS = 10_000;

  static final Duration POLL_TIMEOUT = Duration.ofMillis(500);

  private final WorkloadConfig config;
  private final HistoryRecorder recorder;
  private final AtomicLong nextValue = new AtomicLong();
  private final AtomicBoolean stopProducers = new AtomicBoolean();
  private final AtomicBoolean stopConsumers = new AtomicBoolean();
  private final List<Thread> producerThreads = new ArrayList<>();
  private final List<Thread> consumerThreads = new ArrayList<>();
  private final Counters counters = new Counters();

  /** Running totals for progress output. */
  public static final class Counters {
    public final AtomicLong sendOk = new AtomicLong();
    public final AtomicLong sendFail = new AtomicLong();
    public final AtomicLong sendInfo = new AtomicLong();
    public final AtomicLong polls = new AtomicLong();
    public final AtomicLong recordsRead = new AtomicLong();
    public final AtomicLong pollInfo = new AtomicLong();
  }

  public Workload(WorkloadConfig config, HistoryRecorder recorder) {
    this.config = config;
    this.recorder = recorder;
  }

  public Counters counters() {
    return counters;
  }

  /** Starts every worker thread. */
  public void start() {
    for (int w = 0; w < config.producers(); w++) {
      int worker = w;
      Thread t = new Thread(() -> runProducer(worker), "chaos-producer-" + w);
      t.setDaemon(true);
      producerThreads.add(t);
      t.start();
    }
    for (int i = 0; i < config.consumers(); i++) {
      int worker = CONSUMER_WORKER_BASE + i;
      Thread t = new Thread(() -> runConsumer(worker), "chaos-consumer-" + i);
      t.setDaemon(true);
      consumerThreads.add(t);
      t.start();
    }
    LOG.info(
        "workload started: {} producers at {}/s each, {} consumers, {} partitions",
        config.producers(),
        config.sendsPerSecondPerProducer(),
        config.consumers(),
        config.partitions().size());
  }

  // ---------------------------------------------------------------- producers

  Map<String, String> producerProps() {
    Map<String, String> p = new HashMap<>(config.clientSecurity());
    p.put("bootstrap.servers", config.bootstrapServers());
    p.put("acks", "all");
    p.put("linger.ms", "0");
    p.put("request.timeout.ms", Long.toString(REQUEST_TIMEOUT_MS));
    p.put("delivery.timeout.ms", Long.toString(DELIVERY_TIMEOUT_MS));
    p.put("max.block.ms", "5000");
    p.put("retry.backoff.max.ms", "500");
    p.putAll(config.producerOverrides());
    return p;
  }

  private void runProducer(int worker) {
    Random rng = new Random(config.seed() * 1_000 + worker);
    long pauseNs = (long) (TimeUnit.SECONDS.toNanos(1) / config.sendsPerSecondPerProducer());
    long next = System.nanoTime();
    Producer producer = null;
    try {
      while (!stopProducers.get()) {
        if (producer == null) {
          producer = new Producer(producerProps());
          watchLeaders(worker, producer);
        }
        TopicPartition tp = config.partitions().get(rng.nextInt(config.partitions().size()));
        long value = nextValue.getAndIncrement();
        if (!send(worker, producer, tp, value)) {
          // info: the process crashed, its successor gets a new producer. fail: the process goes
          // on, but with a new producer too, since a definite failure may come from a producer
          // that can no longer send at all (one that lost its producer id for good).
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
      LOG.error("producer worker {} died", worker, e);
    } finally {
      if (producer != null) {
        producer.close(Duration.ofSeconds(5));
      }
    }
  }

  /**
   * Records a {@code client-leader} entry whenever this producer's cached leader or epoch of one of
   * the workload's partitions changes (its first metadata included), so the fault timelines can
   * tell when the client learned of a new leader. The listener runs on the producer's I/O thread;
   * the first look runs here, in case the first metadata arrived before the listener was added.
   */
  private void watchLeaders(int worker, Producer producer) {
    long process = recorder.processOf(worker);
    Map<TopicPartition, LeaderAtEpoch> seen = new HashMap<>();
    Runnable look =
        () -> {
          synchronized (seen) {
            for (TopicPartition tp : config.partitions()) {
              producer
                  .cachedPartition(tp)
                  .ifPresent(
                      p -> {
                        LeaderAtEpoch view = new LeaderAtEpoch(p.leader(), p.leaderEpoch());
                        if (!view.equals(seen.put(tp, view))) {
                          recorder.clientLeaderView(
                              worker, process, tp, p.leader(), p.leaderEpoch());
                        }
                      });
            }
          }
        };
    producer.addMetadataListener(look);
    look.run();
  }

  private record LeaderAtEpoch(int leader, int epoch) {}

  /** One send op; false unless it was acknowledged (the caller then replaces the producer). */
  private boolean send(int worker, Producer producer, TopicPartition tp, long value)
      throws InterruptedException {
    Op invoke = recorder.invokeSend(worker, tp, value);
    try {
      RecordMetadata m =
          producer
              .send(
                  new ProducerRecord(
                      tp.topic(),
                      tp.partition(),
                      null,
                      Long.toString(value).getBytes(StandardCharsets.UTF_8),
                      List.of(),
                      null))
              .get(DELIVERY_TIMEOUT_MS + ACK_WAIT_SLACK_MS, TimeUnit.MILLISECONDS);
      recorder.sendOk(invoke, m.offset());
      counters.sendOk.incrementAndGet();
      return true;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      String error =
          e instanceof TimeoutException
              ? "no answer within " + (DELIVERY_TIMEOUT_MS + ACK_WAIT_SLACK_MS) + " ms"
              : SendErrors.describe(e);
      if (SendErrors.classify(e) == OpType.FAIL) {
        recorder.fail(invoke, error);
        counters.sendFail.incrementAndGet();
        return false;
      }
      recorder.info(invoke, error);
      counters.sendInfo.incrementAndGet();
      return false;
    }
  }

  // ---------------------------------------------------------------- consumers

  Map<String, String> consumerProps() {
    Map<String, String> p = new HashMap<>(config.clientSecurity());
    p.put("bootstrap.servers", config.bootstrapServers());
    p.put("auto.offset.reset", "earliest");
    p.put("fetch.max.wait.ms", "500");
    p.put("request.timeout.ms", Long.toString(REQUEST_TIMEOUT_MS));
    p.put("default.api.timeout.ms", "10000");
    return p;
  }

  private void runConsumer(int worker) {
    Consumer consumer = null;
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
          consumer.close();
          consumer = null;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("consumer worker {} died", worker, e);
    } finally {
      if (consumer != null) {
        consumer.close();
      }
    }
  }

  /**
   * A new consumer session: assign every partition from its beginning. Null if it failed (info).
   */
  private Consumer openSession(int worker) {
    Op invoke = recorder.invokeAssign(worker, config.partitions(), true);
    Consumer c = null;
    try {
      c = new Consumer(consumerProps());
      c.assign(config.partitions());
      c.seekToBeginning(config.partitions());
      recorder.ok(invoke);
      return c;
    } catch (RuntimeException e) {
      recorder.info(invoke, SendErrors.describe(e));
      if (c != null) {
        c.close();
      }
      return null;
    }
  }

  /** One poll op; returns what it read, or null if it completed as info (the session ends). */
  private Map<TopicPartition, List<OffsetValue>> poll(int worker, Consumer consumer) {
    Op invoke = recorder.invokePoll(worker);
    try {
      ConsumerRecords records = consumer.poll(POLL_TIMEOUT);
      Map<TopicPartition, List<OffsetValue>> reads = new LinkedHashMap<>();
      for (TopicPartition tp : records.partitions()) {
        List<OffsetValue> pairs = new ArrayList<>();
        for (ConsumerRecord r : records.records(tp)) {
          pairs.add(new OffsetValue(r.offset(), Long.parseLong(r.valueAsString())));
        }
        reads.put(tp, pairs);
        counters.recordsRead.addAndGet(pairs.size());
      }
      recorder.pollOk(invoke, reads);
      counters.polls.incrementAndGet();
      return reads;
    } catch (RuntimeException e) {
      recorder.info(invoke, SendErrors.describe(e));
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
   * Reads every partition from its beginning to the end offsets of this moment with fresh consumer
   * sessions (recorded like any other), retrying a session that fails. Returns the end offsets it
   * caught up with; throws if it could not within {@code timeout}.
   */
  public Map<TopicPartition, Long> drain(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<TopicPartition, Long> end = null;
    int worker = DRAIN_WORKER;
    String lastProblem = "nothing tried";
    while (System.nanoTime() < deadline) {
      if (end == null) {
        try (Consumer probe = new Consumer(consumerProps())) {
          end = new LinkedHashMap<>(probe.endOffsets(config.partitions()));
          LOG.info("draining to end offsets {}", end);
        } catch (RuntimeException e) {
          lastProblem = "end offsets: " + e.getMessage();
          Thread.sleep(1_000); // a retry backoff: the cluster gives no signal to wait on
          continue;
        }
      }
      Consumer c = openSession(worker);
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
            // Offsets with nothing readable (an empty end) count as caught up via the position.
            if (position.get(tp) + 1 < end.get(tp)) {
              try {
                position.merge(tp, c.position(tp) - 1, Math::max);
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
        c.close();
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
