package dev.spool.e2e;

import static org.awaitility.Awaitility.await;

import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.RecordMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A steady producer load for replication tests: unique values 0, 1, 2, ... round-robin over the
 * partitions of one topic, at most {@code maxInFlight} unacknowledged, about {@code ratePerSecond}
 * sends a second. Remembers every acknowledgement (value → partition and offset) and every failure.
 */
final class AckedLoad implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AckedLoad.class);

  record Ack(long value, int partition, long offset) {}

  private final Producer producer;
  private final String topic;
  private final int partitions;
  private final Semaphore inFlight;
  private final long pauseNs;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Ack> acks = new CopyOnWriteArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private final int maxInFlight;

  AckedLoad(
      String bootstrap,
      String topic,
      int partitions,
      int maxInFlight,
      int ratePerSecond,
      Map<String, String> props) {
    Map<String, String> p = new HashMap<>(props);
    p.put("bootstrap.servers", bootstrap);
    p.putIfAbsent("linger.ms", "1");
    this.producer = new Producer(p);
    this.topic = topic;
    this.partitions = partitions;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
    this.pauseNs = TimeUnit.SECONDS.toNanos(1) / ratePerSecond;
    this.thread = new Thread(this::run, "acked-load-" + topic);
    thread.start();
  }

  private void run() {
    long next = System.nanoTime();
    long reportAt = next;
    for (long v = 0; !stop.get(); v++) {
      try {
        inFlight.acquire();
        long value = v;
        int partition = (int) (v % partitions);
        producer
            .send(
                new ProducerRecord(
                    topic,
                    partition,
                    null,
                    Long.toString(value).getBytes(StandardCharsets.UTF_8),
                    List.of(),
                    null))
            .whenComplete(
                (RecordMetadata m, Throwable e) -> {
                  try {
                    if (e == null) {
                      acks.add(new Ack(value, m.partition(), m.offset()));
                    } else {
                      failures.add(e);
                    }
                  } catch (Throwable t) {
                    failures.add(
                        new AssertionError(
                            "callback of value " + value + " failed (m=" + m + ")", t));
                  } finally {
                    inFlight.release();
                  }
                });
        next += pauseNs;
        if (System.nanoTime() >= reportAt) {
          reportAt += TimeUnit.SECONDS.toNanos(2);
          LOG.info(
              "load on {}: {} acknowledged, {} failed, {} in flight",
              topic,
              acks.size(),
              failures.size(),
              maxInFlight - inFlight.availablePermits());
        }
        long sleepNs = next - System.nanoTime();
        if (sleepNs > 0) {
          TimeUnit.NANOSECONDS.sleep(
              sleepNs); // pacing a load generator, not waiting for a condition
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  int acked() {
    return acks.size();
  }

  /** Blocks until {@code more} further sends were acknowledged; false on timeout or failures. */
  boolean awaitMoreAcks(int more, Duration timeout) {
    int target = acks.size() + more;
    try {
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> acks.size() >= target);
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }

  List<Ack> acks() {
    return List.copyOf(acks);
  }

  List<Throwable> failures() {
    return List.copyOf(failures);
  }

  /** Stops sending and waits until every send has completed. */
  @Override
  public void close() throws InterruptedException {
    if (stop.getAndSet(true)) {
      return;
    }
    thread.join(30_000);
    if (!inFlight.tryAcquire(maxInFlight, 150, TimeUnit.SECONDS)) {
      throw new IllegalStateException("sends still pending after 150 s");
    }
    producer.close();
  }
}
