package dev.spool.cli;

import dev.spool.client.Consumer;
import dev.spool.client.ConsumerMetrics;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.ConsumerRecords;
import dev.spool.common.TopicPartition;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code spool perf consume}: Kafka's ConsumerPerformance for Spool. Reads every partition of the
 * topic from the beginning until {@code --messages} records arrived (or none came for {@code
 * --timeout-ms}); bytes are key plus value bytes, as Kafka counts them.
 */
@Command(name = "consume", mixinStandardHelpOptions = true, description = "Consumer throughput.")
final class PerfConsumeTool implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(names = "--topic", required = true, paramLabel = "T")
  String topic;

  @Option(names = "--messages", required = true, paramLabel = "N", description = "Records to read.")
  long messages;

  @Option(
      names = "--timeout-ms",
      defaultValue = "10000",
      paramLabel = "T",
      description = "Give up when no record arrived for T ms (default: ${DEFAULT-VALUE}).")
  long timeoutMs;

  @Option(
      names = "--consumer-prop",
      paramLabel = "k=v",
      description = "A consumer config (repeatable).")
  List<String> consumerProps;

  @Option(names = "--reporting-interval-ms", defaultValue = "5000", paramLabel = "MS")
  long reportingIntervalMs;

  @Option(
      names = "--json",
      description = "Print the final summary as one JSON object (progress goes to stderr).")
  boolean json;

  PerfConsumeTool(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.resolve(ctx));
    props.put("auto.offset.reset", "earliest");
    props.putAll(KeyValues.parse(consumerProps, "--consumer-prop", spec));
    var progress = json ? ctx.err() : ctx.out();
    long records = 0;
    long bytes = 0;
    long startNs;
    long lastRecordNs;
    boolean timedOut = false;
    ConsumerMetrics metrics;
    try (Consumer consumer = new Consumer(props)) {
      List<TopicPartition> tps = consumer.partitionsFor(topic);
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      tps.forEach(consumer::position);
      startNs = System.nanoTime();
      lastRecordNs = startNs;
      long windowStartNs = startNs;
      long windowRecords = 0;
      long windowBytes = 0;
      while (records < messages) {
        ConsumerRecords batch = consumer.poll(Duration.ofMillis(100));
        long now = System.nanoTime();
        if (batch.isEmpty()) {
          if ((now - lastRecordNs) / 1_000_000 >= timeoutMs) {
            timedOut = true;
            break;
          }
        } else {
          lastRecordNs = now;
          for (ConsumerRecord r : batch) {
            long size =
                (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
            records++;
            bytes += size;
            windowRecords++;
            windowBytes += size;
          }
        }
        if ((now - windowStartNs) / 1_000_000 >= reportingIntervalMs) {
          double secs = (now - windowStartNs) / 1e9;
          progress.printf(
              Locale.ROOT,
              "%d records consumed, %.1f records/sec (%.2f MB/sec), %d total.%n",
              windowRecords,
              windowRecords / secs,
              windowBytes / secs / (1024 * 1024),
              records);
          windowStartNs = now;
          windowRecords = 0;
          windowBytes = 0;
        }
      }
      metrics = consumer.metrics();
    }
    double secs = Math.max(1e-9, (lastRecordNs - startNs) / 1e9);
    report(records, bytes, secs, metrics);
    if (timedOut) {
      ctx.err()
          .println(
              "error: no record for " + timeoutMs + " ms; consumed " + records + " of " + messages);
      return records == 0 ? ExitCodes.UNREACHABLE : ExitCodes.FAILED;
    }
    return ExitCodes.OK;
  }

  private void report(long records, long bytes, double secs, ConsumerMetrics m) {
    double rate = records / secs;
    double mb = bytes / secs / (1024 * 1024);
    if (json) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            g.writeStringField("tool", "perf consume");
            g.writeStringField("topic", topic);
            g.writeNumberField("records", records);
            g.writeNumberField("bytes", bytes);
            g.writeNumberField("elapsedMs", Math.round(secs * 1000));
            g.writeNumberField("recordsPerSec", rate);
            g.writeNumberField("mbPerSec", mb);
            g.writeNumberField("fetchRequests", m.fetchRequests());
            g.writeNumberField("fetchLatencyP50Ms", m.fetchLatencyP50Ms());
            g.writeNumberField("fetchLatencyP99Ms", m.fetchLatencyP99Ms());
            g.writeEndObject();
          });
      return;
    }
    ctx.out()
        .printf(
            Locale.ROOT,
            "%d records consumed in %.2f s, %.1f records/sec (%.2f MB/sec, %.2f MB total), "
                + "%d fetches.%n",
            records,
            secs,
            rate,
            mb,
            bytes / (1024.0 * 1024),
            m.fetchRequests());
  }
}
