package dev.spool.client.internal.consumer;

import dev.spool.client.ConsumerMetrics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/** The consumer's counters and fetch latency histogram (numbers, not log lines). Thread-safe. */
public final class ConsumerStats {
  private final LongAdder records = new LongAdder();
  private final LongAdder bytes = new LongAdder();
  private final LongAdder fetches = new LongAdder();
  private final LongAdder truncations = new LongAdder();
  private final Histogram fetchLatencyUs = new Histogram(TimeUnit.MINUTES.toMicros(5), 2);

  void recordsConsumed(int n) {
    records.add(n);
  }

  void bytesFetched(int n) {
    bytes.add(n);
  }

  void fetch(long latencyNs) {
    fetches.increment();
    long us =
        Math.min(
            TimeUnit.NANOSECONDS.toMicros(latencyNs), fetchLatencyUs.getHighestTrackableValue());
    synchronized (fetchLatencyUs) {
      fetchLatencyUs.recordValue(Math.max(0, us));
    }
  }

  void truncation() {
    truncations.increment();
  }

  public ConsumerMetrics snapshot() {
    double p50;
    double p99;
    synchronized (fetchLatencyUs) {
      p50 = fetchLatencyUs.getValueAtPercentile(50) / 1000.0;
      p99 = fetchLatencyUs.getValueAtPercentile(99) / 1000.0;
    }
    return new ConsumerMetrics(
        records.sum(), bytes.sum(), fetches.sum(), truncations.sum(), p50, p99);
  }
}
