package dev.spool.chaos.workload;

import dev.spool.chaos.history.SendErrors;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecords;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clients the brokers must refuse for the whole run. Every {@code interval} a fresh client tries,
 * in turn: to produce to and to read from the workload's partitions with a certificate of the
 * cluster's CA (it gets past mutual TLS) that no ACL names ({@code produce}, {@code fetch}), and to
 * produce with no certificate at all ({@code produce-without-certificate}). Each attempt is {@link
 * Outcome#REFUSED} (the broker answered an authorization error, or refused the TLS handshake of the
 * client without a certificate), {@link Outcome#ACCEPTED} (a write was acknowledged or a record
 * read: a hole) or {@link Outcome#OTHER} (no answer to judge: a node down, a timeout). Kept out of
 * the history: its writes are not the workload's.
 *
 * <p>A thread of its own starts the attempts, up to {@link #CONCURRENT} run at once; {@link
 * #attempts} and {@link #skipped} may be read from any thread.
 */
public final class Intruder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Intruder.class);
  private static final long TIMEOUT_MS = 3_000;

  /**
   * Attempts that may run at once. An attempt that meets a paused broker can take up to {@code 3 ×
   * TIMEOUT_MS} to give up, so a pause of a few seconds can hold several threads; with too few, the
   * attempts that would have met a live broker in that window are skipped and the window shows no
   * refusal although the brokers refused everything they were asked (six were too few once).
   */
  private static final int CONCURRENT = 16;

  /** How an attempt ended. */
  public enum Outcome {
    REFUSED,
    ACCEPTED,
    OTHER
  }

  /**
   * One attempt.
   *
   * @param startNs when it started, on the run's clock
   * @param atNs when it ended, on the run's clock
   * @param what "produce", "fetch" or "produce-without-certificate"
   * @param detail the error code name or exception, or what was accepted
   */
  public record Attempt(long startNs, long atNs, String what, Outcome outcome, String detail) {
    /** One line for a report: when, what, how it ended. */
    public String describe() {
      return String.format(
          "%s %.1f-%.1f s %s (%s)", what, startNs / 1e9, atNs / 1e9, outcome, detail);
    }
  }

  private final String bootstrapServers;
  private final Map<String, String> clientSecurity;
  private final Map<String, String> noCertificate;
  private final List<TopicPartition> partitions;
  private final Duration interval;
  private final LongSupplier clock;
  private final List<Attempt> attempts = new ArrayList<>();
  private final Thread thread;
  private final AtomicLong skipped = new AtomicLong();
  private volatile boolean stop;

  /**
   * @param clientSecurity the intruder's TLS client keys, with a trusted certificate
   * @param noCertificate TLS client keys that trust the brokers but present no certificate
   * @param clock the run's clock (nanoseconds since its start), to place attempts among the faults
   */
  public Intruder(
      String bootstrapServers,
      Map<String, String> clientSecurity,
      Map<String, String> noCertificate,
      List<TopicPartition> partitions,
      Duration interval,
      LongSupplier clock) {
    this.bootstrapServers = bootstrapServers;
    this.clientSecurity = Map.copyOf(clientSecurity);
    this.noCertificate = Map.copyOf(noCertificate);
    this.partitions = List.copyOf(partitions);
    this.interval = interval;
    this.clock = clock;
    this.thread = new Thread(this::run, "chaos-intruder");
    this.thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  /** Every attempt so far, in the order they ended. */
  public List<Attempt> attempts() {
    synchronized (attempts) {
      return List.copyOf(attempts);
    }
  }

  /** Attempts not started because {@link #CONCURRENT} were already running. */
  public long skipped() {
    return skipped.get();
  }

  /**
   * Starts an attempt every interval on one of {@link #CONCURRENT} threads (an attempt stuck on a
   * paused broker must not keep the others from running); one that finds them all busy is skipped
   * and counted ({@link #skipped}).
   */
  private void run() {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            CONCURRENT,
            CONCURRENT,
            0,
            TimeUnit.MILLISECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, "chaos-intruder-attempt");
              t.setDaemon(true);
              return t;
            },
            (r, p) -> skipped.incrementAndGet());
    long next = System.nanoTime();
    try {
      for (int n = 0; !stop; n++) {
        int attempt = n;
        pool.execute(() -> attempt(attempt));
        next += interval.toNanos();
        long restNs = next - System.nanoTime();
        if (restNs > 0) {
          TimeUnit.NANOSECONDS.sleep(restNs); // pacing: one attempt per interval
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      pool.shutdown();
      try {
        pool.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void attempt(int n) {
    TopicPartition tp = partitions.get(n % partitions.size());
    String bootstrap = rotated(n);
    long startNs = clock.getAsLong();
    Ended e =
        switch (n % 3) {
          case 0 -> produce("produce", props(bootstrap, clientSecurity), tp, n);
          case 1 -> fetch(bootstrap, tp);
          default -> produce("produce-without-certificate", props(bootstrap, noCertificate), tp, n);
        };
    Attempt a = new Attempt(startNs, clock.getAsLong(), e.what(), e.outcome(), e.detail());
    if (a.outcome() != Outcome.REFUSED) {
      LOG.warn("intruder {} on {}: {} ({})", a.what(), tp, a.outcome(), a.detail());
    }
    synchronized (attempts) {
      attempts.add(a);
    }
  }

  /**
   * The bootstrap list starting at a different broker each attempt, so a paused broker that a
   * client asks first costs one attempt, not every attempt of its fault window.
   */
  private String rotated(int n) {
    List<String> servers = List.of(bootstrapServers.split(","));
    List<String> out = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      out.add(servers.get((n + i) % servers.size()));
    }
    return String.join(",", out);
  }

  private Map<String, String> props(String bootstrap, Map<String, String> security) {
    Map<String, String> p = new HashMap<>(security);
    p.put("bootstrap.servers", bootstrap);
    p.put("request.timeout.ms", Long.toString(TIMEOUT_MS));
    return p;
  }

  private Ended produce(String what, Map<String, String> p, TopicPartition tp, int n) {
    p.put("acks", "all");
    p.put("max.block.ms", Long.toString(TIMEOUT_MS));
    p.put("delivery.timeout.ms", Long.toString(TIMEOUT_MS * 2));
    try (Producer producer = new Producer(p)) {
      byte[] value = ("intruder-" + n).getBytes(StandardCharsets.UTF_8);
      long offset =
          producer
              .send(new ProducerRecord(tp.topic(), tp.partition(), null, value, List.of(), null))
              .get(TIMEOUT_MS * 3, TimeUnit.MILLISECONDS)
              .offset();
      return attempt(what, Outcome.ACCEPTED, "acknowledged at offset " + offset);
    } catch (Exception e) {
      return judged(what, e);
    }
  }

  private Ended fetch(String bootstrap, TopicPartition tp) {
    Map<String, String> p = props(bootstrap, clientSecurity);
    p.put("default.api.timeout.ms", Long.toString(TIMEOUT_MS));
    try (Consumer consumer = new Consumer(p)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      ConsumerRecords records = consumer.poll(Duration.ofMillis(TIMEOUT_MS));
      int read = records.records(tp).size();
      return read > 0
          ? attempt("fetch", Outcome.ACCEPTED, "read " + read + " records")
          : attempt("fetch", Outcome.OTHER, "an empty poll without an error");
    } catch (RuntimeException e) {
      return judged("fetch", e);
    }
  }

  private Ended judged(String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    String detail = SendErrors.describe(e);
    boolean handshakeRefused = false;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains("TLS handshake")) {
        handshakeRefused = true;
        detail = detail + ": " + t.getMessage();
        break;
      }
    }
    boolean refused = detail.contains("AUTHORIZATION_FAILED") || handshakeRefused;
    return attempt(what, refused ? Outcome.REFUSED : Outcome.OTHER, detail);
  }

  private static Ended attempt(String what, Outcome outcome, String detail) {
    return new Ended(what, outcome, detail);
  }

  /** How an attempt ended, before it is placed on the run's clock. */
  private record Ended(String what, Outcome outcome, String detail) {}

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.join(TimeUnit.SECONDS.toMillis(30));
  }
}
