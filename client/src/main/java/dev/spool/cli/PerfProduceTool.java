package dev.spool.cli;

import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.RecordMetadata;
import dev.spool.common.SpoolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code spool perf produce}: Kafka's ProducerPerformance for Spool. Sends {@code --num-records}
 * records of {@code --record-size} random bytes, or values drawn from {@code --payload-file}
 * exactly as Kafka's tool draws them (the file split at {@code --payload-delimiter}, each record a
 * pick by a {@code SplittableRandom} seeded 0, so both tools send the same sequence of values),
 * with no key (so the sticky partitioner fills whole batches) unless {@code --key-space N} gives
 * each record one of N keys ({@code key-0} .. {@code key-N-1}, drawn by a {@code SplittableRandom}
 * seeded 1, so runs repeat: a keyed data set for compacted topics), optionally paced to {@code
 * --throughput} records/s; latency is from send() to the acknowledgement, so with unlimited
 * throughput it is mostly time queued in the producer buffer. A progress line every interval; a
 * final line with rates and latency percentiles (HdrHistogram).
 */
@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    description = "Producer throughput and latency.")
final class PerfProduceTool implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(names = "--topic", required = true, paramLabel = "T")
  String topic;

  @Option(names = "--num-records", required = true, paramLabel = "N")
  long numRecords;

  @Option(
      names = "--record-size",
      paramLabel = "S",
      description = "Value size in bytes (or --payload-file).")
  Integer recordSize;

  @Option(
      names = "--payload-file",
      paramLabel = "FILE",
      description =
          "Values to send, split at --payload-delimiter (UTF-8), picked as Kafka's tool does.")
  Path payloadFile;

  @Option(names = "--payload-delimiter", defaultValue = "\n", paramLabel = "D")
  String payloadDelimiter;

  @Option(
      names = "--throughput",
      required = true,
      paramLabel = "R",
      description = "Records per second to aim for; -1 = as fast as possible.")
  double throughput;

  @Option(
      names = "--key-space",
      paramLabel = "N",
      description =
          "Give each record one of N keys (key-0 .. key-<N-1>, seeded, the same every run);"
              + " default: no key.")
  Integer keySpace;

  @Option(names = "--acks", defaultValue = "all", paramLabel = "all|1|0|-1")
  String acks;

  @Option(
      names = "--producer-prop",
      paramLabel = "k=v",
      description = "A producer config (repeatable).")
  List<String> producerProps;

  @Option(names = "--reporting-interval-ms", defaultValue = "5000", paramLabel = "MS")
  long reportingIntervalMs;

  @Option(
      names = "--json",
      description = "Print the final summary as one JSON object (progress goes to stderr).")
  boolean json;

  PerfProduceTool(CliContext ctx) {
    this.ctx = ctx;
  }

  /** Counters shared by the I/O thread (callbacks) and the reporter. */
  private static final class Stats {
    final Histogram latencyUs = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    long windowCount;
    long windowBytes;
    long windowLatencyUsSum;
    long windowLatencyUsMax;
    long windowStartNs = System.nanoTime();
    long count;
    long bytes;
    long errors;
    boolean otherErrors;
    String firstError;

    synchronized void record(long micros, int size, Throwable error) {
      if (error != null) {
        errors++;
        Throwable root = ExitCodes.rootCause(error);
        if (firstError == null) {
          firstError = ExitCodes.describe(root);
        }
        if (!(root instanceof SpoolException se && ExitCodes.isConnectivity(se.errorCode()))) {
          otherErrors = true;
        }
        return;
      }
      long us = Math.max(0, micros);
      latencyUs.recordValue(Math.min(us, latencyUs.getHighestTrackableValue()));
      count++;
      bytes += size;
      windowCount++;
      windowBytes += size;
      windowLatencyUsSum += us;
      windowLatencyUsMax = Math.max(windowLatencyUsMax, us);
    }

    synchronized String progressLine() {
      long now = System.nanoTime();
      double secs = Math.max(1e-9, (now - windowStartNs) / 1e9);
      String line =
          String.format(
              Locale.ROOT,
              "%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency.",
              windowCount,
              windowCount / secs,
              windowBytes / secs / (1024 * 1024),
              windowCount == 0 ? 0.0 : windowLatencyUsSum / 1000.0 / windowCount,
              windowLatencyUsMax / 1000.0);
      windowCount = 0;
      windowBytes = 0;
      windowLatencyUsSum = 0;
      windowLatencyUsMax = 0;
      windowStartNs = now;
      return line;
    }
  }

  @Override
  public Integer call() throws Exception {
    if ((recordSize == null) == (payloadFile == null)) {
      throw new IllegalArgumentException("give exactly one of --record-size and --payload-file");
    }
    if ((recordSize != null && recordSize < 0) || numRecords < 0) {
      throw new IllegalArgumentException("--num-records and --record-size must be >= 0");
    }
    if (keySpace != null && keySpace < 1) {
      throw new IllegalArgumentException("--key-space must be >= 1");
    }
    List<byte[]> payloads = payloadFile == null ? List.of() : readPayloads();
    Keys keys = keySpace == null ? null : new Keys(keySpace);
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.resolve(ctx));
    props.put("acks", acks);
    props.putAll(KeyValues.parse(producerProps, "--producer-prop", spec));
    byte[] fixed = new byte[recordSize == null ? 0 : recordSize];
    Random random = new Random(42);
    for (int i = 0; i < fixed.length; i++) {
      fixed[i] = (byte) ('A' + random.nextInt(26));
    }
    SplittableRandom picker = new SplittableRandom(0);
    Stats stats = new Stats();
    var progress = json ? ctx.err() : ctx.out();
    ScheduledExecutorService reporter =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "spool-perf-reporter");
              t.setDaemon(true);
              return t;
            });
    long startNs;
    long endNs;
    try (Producer producer = new Producer(props)) {
      reporter.scheduleAtFixedRate(
          () -> progress.println(stats.progressLine()),
          reportingIntervalMs,
          reportingIntervalMs,
          TimeUnit.MILLISECONDS);
      startNs = System.nanoTime();
      RatePacer pacer = new RatePacer(throughput, startNs);
      CompletableFuture<RecordMetadata> last = CompletableFuture.completedFuture(null);
      for (long i = 0; i < numRecords; i++) {
        pacer.awaitTurn(i);
        byte[] payload = payloads.isEmpty() ? fixed : payloads.get(picker.nextInt(payloads.size()));
        byte[] key = keys == null ? null : keys.next();
        long sendNs = System.nanoTime();
        last = producer.send(new ProducerRecord(topic, null, key, payload, null, null));
        last.whenComplete(
            (m, e) -> stats.record((System.nanoTime() - sendNs) / 1000, payload.length, e));
      }
      producer.flush();
      endNs = System.nanoTime();
    } finally {
      reporter.shutdownNow();
    }
    report(stats, (endNs - startNs) / 1e9);
    if (stats.errors == 0) {
      return ExitCodes.OK;
    }
    ctx.err()
        .println(
            "error: "
                + stats.errors
                + " records failed (first: "
                + stats.firstError.substring(7)
                + ")");
    return stats.otherErrors ? ExitCodes.FAILED : ExitCodes.UNREACHABLE;
  }

  /**
   * The keys of {@code --key-space}: a seeded pick among N, their bytes made once for the first
   * 2^20 keys (so a large key space does not cost gigabytes) and on the fly above that.
   */
  private static final class Keys {
    private static final int CACHED = 1 << 20;
    private final int space;
    private final byte[][] cached;
    private final SplittableRandom random = new SplittableRandom(1);

    Keys(int space) {
      this.space = space;
      this.cached = new byte[Math.min(space, CACHED)][];
    }

    byte[] next() {
      int k = random.nextInt(space);
      if (k >= CACHED) {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
      }
      byte[] b = cached[k];
      if (b == null) {
        b = ("key-" + k).getBytes(StandardCharsets.UTF_8);
        cached[k] = b;
      }
      return b;
    }
  }

  /** The file split exactly as Kafka's ProducerPerformance splits it ({@code String.split}). */
  private List<byte[]> readPayloads() throws IOException {
    if (Files.notExists(payloadFile) || Files.size(payloadFile) == 0) {
      throw new IllegalArgumentException(payloadFile + " does not exist or is empty");
    }
    String text = Files.readString(payloadFile, StandardCharsets.UTF_8);
    List<byte[]> out = new ArrayList<>();
    for (String piece : text.split(payloadDelimiter)) {
      out.add(piece.getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  private void report(Stats s, double secs) {
    Histogram h = s.latencyUs;
    double rate = s.count / Math.max(secs, 1e-9);
    double mb = s.bytes / Math.max(secs, 1e-9) / (1024 * 1024);
    if (json) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            g.writeStringField("tool", "perf produce");
            g.writeStringField("topic", topic);
            g.writeNumberField("records", s.count);
            g.writeNumberField("errors", s.errors);
            g.writeNumberField("recordSize", s.count == 0 ? 0 : (double) s.bytes / s.count);
            g.writeStringField("acks", acks);
            g.writeNumberField("elapsedMs", Math.round(secs * 1000));
            g.writeNumberField("recordsPerSec", rate);
            g.writeNumberField("mbPerSec", mb);
            g.writeObjectFieldStart("latencyMs");
            g.writeNumberField("avg", h.getMean() / 1000);
            g.writeNumberField("p50", h.getValueAtPercentile(50) / 1000.0);
            g.writeNumberField("p95", h.getValueAtPercentile(95) / 1000.0);
            g.writeNumberField("p99", h.getValueAtPercentile(99) / 1000.0);
            g.writeNumberField("p999", h.getValueAtPercentile(99.9) / 1000.0);
            g.writeNumberField("max", h.getMaxValue() / 1000.0);
            g.writeEndObject();
            g.writeEndObject();
          });
      return;
    }
    ctx.out()
        .printf(
            Locale.ROOT,
            "%d records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, "
                + "%.2f ms max latency, %.2f ms 50th, %.2f ms 95th, %.2f ms 99th, %.2f ms 99.9th.%n",
            s.count,
            rate,
            mb,
            h.getMean() / 1000,
            h.getMaxValue() / 1000.0,
            h.getValueAtPercentile(50) / 1000.0,
            h.getValueAtPercentile(95) / 1000.0,
            h.getValueAtPercentile(99) / 1000.0,
            h.getValueAtPercentile(99.9) / 1000.0);
  }
}
