package dev.spool.bench;

import dev.spool.broker.metrics.BrokerMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the broker's metrics cost on a request thread, with metrics on and off (the same calls
 * against {@link BrokerMetrics#DISABLED}): {@code request} is what a connection records for every
 * request (the API's data points looked up, {@code started}, {@code finished} with its four
 * histograms), {@code partition} what the produce or fetch path records per partition answered (a
 * topic's bytes and records). The timestamps a connection takes anyway are taken in both modes.
 * scripts/bench-metrics.sh runs it and turns the difference into a share of the cluster's CPU.
 *
 * <p>Threads: JMH's benchmark thread only.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MetricsRecordingBenchmark {
  @Param({"on", "off"})
  public String metrics;

  private BrokerMetrics m;

  @Setup
  public void setUp() {
    m =
        metrics.equals("on")
            ? new BrokerMetrics(new PrometheusRegistry(), 1000)
            : BrokerMetrics.DISABLED;
    for (int t = 0; t < 10; t++) {
      m.produced("topic-" + t, 1, 1); // some label values, as a broker with traffic has
    }
  }

  @Benchmark
  public long request() {
    long readNs = System.nanoTime();
    BrokerMetrics.Api api = m.api("Produce");
    api.started();
    long servedNs = System.nanoTime();
    long writtenNs = System.nanoTime();
    api.finished(readNs, servedNs, servedNs, writtenNs);
    return writtenNs;
  }

  @Benchmark
  public void partition() {
    m.produced("topic-3", 16_384, 160);
  }
}
