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
 *       been appended ({@link WorkloadClient#classify}; for Spool {@link
 *       dev.spool.chaos.history.SendErrors#classify(Throwable)}); everything else, including our
 *       own wait running out, is {@code info}. A poll that throws is {@code info} (the session's
 *       position is unknown) and ends the session.
 *   <li><b>Values.</b> One counter for all producers: value {@code v} is written at most once by
 *       the workload, as the record value's decimal text, with no key.
 *   <li><b>Drain.</b> {@link #drain} reads every partition to the end offsets of that moment with a
 *       fresh consumer session, so the {@code unseen} checker has final polls that caught up.
 * </ul>
 *
 * <p>The client library is a {@link WorkloadClient}: Spool's ({@link #Workload(WorkloadConfig,
 * HistoryRecorder)}) or Apache Kafka's ({@link KafkaWorkload#create}); the workers, the history
 * they record and the drain are the same for both.
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
  private final WorkloadClient client;
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

  /** The workload with Spool's client. */
  public Workload(WorkloadConfig config, HistoryRecorder recorder) {
    this(config, recorder, new SpoolClient(config, recorder));
  }

  Workload(WorkloadConfig config, HistoryRecorder recorder, WorkloadClient client) {
    this.config = config;
    this.recorder = recorder;
    this.client = client;
  }

  public Counters counters() {
    return counters;
  }

  /** Starts every worker thread. */
  public void start() {
    for (int w = 0; w < config.producers(); w++) {
      int worker = w;
      Thread t = new Thread(() -> runProducer(worker), client.threadPrefix() + "-producer-" + w);
      t.setDaemon(true);
      producerThreads.add(t);
      t.start();
    }
    for (int i = 0; i < config.consumers(); i++) {
      int worker = CONSUMER_WORKER_BASE + i;
      Thread t = new Thread(() -> runConsumer(worker), client.threadPrefix() + "-consumer-" + i);
      t.setDaemon(true);
      consumerThreads.add(t);
      t.start();
    }
    LOG.info(
        "{} workload started: {} producers at {}/s each, {} consumers, {} partitions",
        client.system(),
        config.producers(),
        config.sendsPerSecondPerProducer(),
        config.consumers(),
        config.partitions().size());
  }

  // ---------------------------------------------------------------- producers

  /**
   * The producer settings of both clients: acks=all, linger 0, the workload's timeouts, then the
   * client's {@code extra}, then the config's overrides.
   */
  static Map<String, String> producerSettings(WorkloadConfig config, Map<String, String> extra) {
    Map<String, String> p = new HashMap<>(config.clientSecurity());
    p.put("bootstrap.servers", config.bootstrapServers());
    p.put("acks", "all");
    p.put("linger.ms", "0");
    p.put("request.timeout.ms", Long.toString(REQUEST_TIMEOUT_MS));
    p.put("delivery.timeout.ms", Long.toString(DELIVERY_TIMEOUT_MS));
    p.put("max.block.ms", "5000");
    p.put("retry.backoff.max.ms", "500");
    p.putAll(extra);
    p.putAll(config.producerOverrides());
    return p;
  }

  /** The consumer settings of both clients, then the client's {@code extra}. */
  static Map<String, String> consumerSettings(WorkloadConfig config, Map<String, String> extra) {
    Map<String, String> p = new HashMap<>(config.clientSecurity());
    p.put("bootstrap.servers", config.bootstrapServers());
    p.put("auto.offset.reset", "earliest");
    p.put("fetch.max.wait.ms", "500");
    p.put("request.timeout.ms", Long.toString(REQUEST_TIMEOUT_MS));
    p.put("default.api.timeout.ms", "10000");
    p.putAll(extra);
    return p;
  }

  private void runProducer(int worker) {
    Random rng = new Random(config.seed() * 1_000 + worker);
    long pauseNs = (long) (TimeUnit.SECONDS.toNanos(1) / config.sendsPerSecondPerProducer());
    long next = System.nanoTime();
    WorkloadClient.Sender producer = null;
    try {
      while (!stopProducers.get()) {
        if (producer == null) {
          producer = client.newSender(worker);
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
      LOG.error("{} producer worker {} died", client.system(), worker, e);
    } finally {
      if (producer != null) {
        producer.close(Duration.ofSeconds(5));
      }
    }
  }

  /** One send op; false unless it was acknowledged (the caller then replaces the producer). */
  private boolean send(int worker, WorkloadClient.Sender producer, TopicPartition tp, long value)
      throws InterruptedException {
    Op invoke = recorder.invokeSend(worker, tp, value);
    try {
      long offset =
          producer.send(
              tp,
              Long.toString(value).getBytes(StandardCharsets.UTF_8),
              DELIVERY_TIMEOUT_MS + ACK_WAIT_SLACK_MS);
      recorder.sendOk(invoke, offset);
      counters.sendOk.incrementAndGet();
      return true;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      String error =
          e instanceof TimeoutException
              ? "no answer within " + (DELIVERY_TIMEOUT_MS + ACK_WAIT_SLACK_MS) + " ms"
              : client.describe(e);
      if (client.classify(e) == OpType.FAIL) {
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

  private void runConsumer(int worker) {
    WorkloadClient.Session consumer = null;
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
      LOG.error("{} consumer worker {} died", client.system(), worker, e);
    } finally {
      if (consumer != null) {
        consumer.close();
      }
    }
  }

  /**
   * A new consumer session: assign every partition from its beginning. Null if it failed (info).
   */
  private WorkloadClient.Session openSession(int worker) {
    Op invoke = recorder.invokeAssign(worker, config.partitions(), true);
    WorkloadClient.Session c = null;
    try {
      c = client.newSession();
      c.assignFromBeginning(config.partitions());
      recorder.ok(invoke);
      return c;
    } catch (RuntimeException e) {
      recorder.info(invoke, client.describe(e));
      if (c != null) {
        c.close();
      }
      return null;
    }
  }

  /** One poll op; returns what it read, or null if it completed as info (the session ends). */
  private Map<TopicPartition, List<OffsetValue>> poll(int worker, WorkloadClient.Session consumer) {
    Op invoke = recorder.invokePoll(worker);
    try {
      Map<TopicPartition, List<OffsetValue>> reads = consumer.poll(POLL_TIMEOUT);
      reads.values().forEach(pairs -> counters.recordsRead.addAndGet(pairs.size()));
      recorder.pollOk(invoke, reads);
      counters.polls.incrementAndGet();
      return reads;
    } catch (RuntimeException e) {
      recorder.info(invoke, client.describe(e));
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
        try {
          end = client.endOffsets(config.partitions());
          LOG.info("draining to end offsets {}", end);
        } catch (RuntimeException e) {
          end = null;
          lastProblem = "end offsets: " + e.getMessage();
          Thread.sleep(1_000); // a retry backoff: the cluster gives no signal to wait on
          continue;
        }
      }
      WorkloadClient.Session c = openSession(worker);
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
