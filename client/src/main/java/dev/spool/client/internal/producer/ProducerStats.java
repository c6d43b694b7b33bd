package dev.spool.client.internal.producer;

import dev.spool.client.ProducerMetrics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * The producer's counters and produce-request latency histogram: plain numbers for tools and
 * benchmarks, never log lines. Thread-safe (adders; the histogram is locked per record, which
 * happens once per response).
 */
public final class ProducerStats {
  private final LongAdder recordsSent = new LongAdder();
  private final LongAdder bytesSent = new LongAdder();
  private final LongAdder batchesSent = new LongAdder();
  private final LongAdder recordsFailed = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder requests = new LongAdder();
  private final Histogram requestLatencyUs = new Histogram(TimeUnit.MINUTES.toMicros(5), 2);

  void recordsSent(int records, int bytes) {
    recordsSent.add(records);
    bytesSent.add(bytes);
    batchesSent.increment();
  }

  void recordsFailed(int records) {
    recordsFailed.add(records);
  }

  void retries(int batches) {
    retries.add(batches);
  }

  void request(long latencyNs) {
    requests.increment();
    long us =
        Math.min(
            TimeUnit.NANOSECONDS.toMicros(latencyNs), requestLatencyUs.getHighestTrackableValue());
    synchronized (requestLatencyUs) {
      requestLatencyUs.recordValue(Math.max(0, us));
    }
  }

  public ProducerMetrics snapshot() {
    double p50;
    double p99;
    double max;
    synchronized (requestLatencyUs) {
      p50 = requestLatencyUs.getValueAtPercentile(50) / 1000.0;
      p99 = requestLatencyUs.getValueAtPercentile(99) / 1000.0;
      max = requestLatencyUs.getMaxValue() / 1000.0;
    }
    return new ProducerMetrics(
        recordsSent.sum(),
        bytesSent.sum(),
        batchesSent.sum(),
        recordsFailed.sum(),
        retries.sum(),
        requests.sum(),
        p50,
        p99,
        max);
  }
}
