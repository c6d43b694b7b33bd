package dev.spool.cli;

import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.TopicPartition;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code spool perf e2e}: fixed-rate end-to-end latency, as the Kafka anchor's FixedRateE2E. One
 * producer thread sends exactly {@code --rate} records/s on a fixed schedule; each record carries
 * its <i>scheduled</i> send time and sequence number in its first 16 bytes; one consumer thread
 * (positioned at the end of every partition before the first send) measures receipt time minus
 * scheduled time, so a stalled producer counts too (no coordinated omission). The first {@code
 * --warmup-s} seconds are not recorded.
 */
@Command(
    name = "e2e",
    mixinStandardHelpOptions = true,
    description = "Fixed-rate end-to-end latency.")
final class PerfEndToEndTool implements Callable<Integer> {
  private static final long MAX_LATENCY_NS = TimeUnit.MINUTES.toNanos(1);

  private final CliContext ctx;

  @Spec CommandSpec spec;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Option(names = "--topic", required = true, paramLabel = "T")
  String topic;

  @Option(names = "--rate", required = true, paramLabel = "R", description = "Records per second.")
  int rate;

  @Option(
      names = "--duration-s",
      required = true,
      paramLabel = "D",
      description = "Measured seconds.")
  int durationS;

  @Option(
      names = "--record-size",
      defaultValue = "1024",
      paramLabel = "S",
      description = "Value bytes, at least 16 (default: ${DEFAULT-VALUE}).")
  int recordSize;

  @Option(names = "--acks", defaultValue = "all", paramLabel = "all|1|0|-1")
  String acks;

  @Option(
      names = "--warmup-s",
      defaultValue = "5",
      paramLabel = "W",
      description = "Seconds sent before measuring (default: ${DEFAULT-VALUE}).")
  int warmupS;

  @Option(
      names = "--linger-ms",
      defaultValue = "0",
      paramLabel = "MS",
      description = "Producer linger.ms (default ${DEFAULT-VALUE}, as FixedRateE2E).")
  long lingerMs;

  @Option(
      names = "--producer-prop",
      paramLabel = "k=v",
      description = "A producer config (repeatable).")
  List<String> producerProps;

  @Option(
      names = "--consumer-prop",
      paramLabel = "k=v",
      description = "A consumer config (repeatable; default fetch.max.wait.ms=100).")
  List<String> consumerProps;

  @Option(names = "--json", description = "Print the summary as one JSON object.")
  boolean json;

  PerfEndToEndTool(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    if (rate <= 0 || durationS <= 0 || warmupS < 0) {
      throw new IllegalArgumentException(
          "--rate and --duration-s must be positive, --warmup-s >= 0");
    }
    String bootstrap = cluster.resolve(ctx);
    long total = (long) rate * (durationS + warmupS);
    long warmCount = (long) rate * warmupS;
    Histogram h = new Histogram(MAX_LATENCY_NS, 3);
    AtomicLong received = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    long sendEndNs;
    long startNs;
    Map<String, String> consumerConfig = new HashMap<>();
    consumerConfig.put("bootstrap.servers", bootstrap);
    consumerConfig.put("fetch.max.wait.ms", "100");
    consumerConfig.putAll(KeyValues.parse(consumerProps, "--consumer-prop", spec));
    try (Consumer consumer = new Consumer(consumerConfig)) {
      List<TopicPartition> tps = consumer.partitionsFor(topic);
      consumer.assign(tps);
      consumer.seekToEnd(tps);
      tps.forEach(consumer::position);
      Thread reader =
          new Thread(
              () -> consume(consumer, h, received, total, warmCount, stop), "spool-e2e-consumer");
      reader.start();
      Map<String, String> props = new HashMap<>();
      props.put("bootstrap.servers", bootstrap);
      props.put("acks", acks);
      props.put("linger.ms", String.valueOf(lingerMs));
      props.putAll(KeyValues.parse(producerProps, "--producer-prop", spec));
      try (Producer producer = new Producer(props)) {
        byte[] pad = new byte[Math.max(recordSize, 16)];
        new Random(42).nextBytes(pad);
        startNs = System.nanoTime() + 100_000_000L;
        RatePacer pacer = new RatePacer(rate, startNs);
        for (long i = 0; i < total; i++) {
          pacer.awaitTurn(i);
          byte[] v = pad.clone();
          ByteBuffer.wrap(v).putLong(pacer.dueNs(i)).putLong(i);
          producer.send(new ProducerRecord(topic, null, null, v, null, null));
        }
        producer.flush();
        sendEndNs = System.nanoTime();
      }
      reader.join(60_000);
      stop.set(true);
      consumer.wakeup();
      reader.join(10_000);
    }
    double achieved = (total - warmCount) / Math.max(1e-9, (sendEndNs - startNs) / 1e9 - warmupS);
    report(h, received.get(), total, achieved);
    if (received.get() < total) {
      ctx.err().println("error: received " + received.get() + " of " + total + " records");
      return ExitCodes.FAILED;
    }
    return ExitCodes.OK;
  }

  private static void consume(
      Consumer consumer,
      Histogram h,
      AtomicLong received,
      long total,
      long warmCount,
      AtomicBoolean stop) {
    while (received.get() < total && !stop.get()) {
      for (ConsumerRecord r : consumer.poll(Duration.ofMillis(50))) {
        long now = System.nanoTime();
        ByteBuffer b = ByteBuffer.wrap(r.value());
        long scheduled = b.getLong();
        long seq = b.getLong();
        if (seq >= warmCount) {
          synchronized (h) {
            h.recordValue(Math.max(0, Math.min(now - scheduled, MAX_LATENCY_NS)));
          }
        }
        received.incrementAndGet();
      }
    }
  }

  private void report(Histogram h, long received, long total, double achieved) {
    double ms = 1e6;
    if (json) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            g.writeStringField("tool", "perf e2e");
            g.writeStringField("topic", topic);
            g.writeNumberField("rate", rate);
            g.writeNumberField("recordSize", recordSize);
            g.writeStringField("acks", acks);
            g.writeNumberField("lingerMs", lingerMs);
            g.writeNumberField("measured", h.getTotalCount());
            g.writeNumberField("received", received);
            g.writeNumberField("sent", total);
            g.writeNumberField("achievedPerSec", achieved);
            g.writeObjectFieldStart("latencyMs");
            g.writeNumberField("avg", h.getMean() / ms);
            g.writeNumberField("p50", h.getValueAtPercentile(50) / ms);
            g.writeNumberField("p90", h.getValueAtPercentile(90) / ms);
            g.writeNumberField("p99", h.getValueAtPercentile(99) / ms);
            g.writeNumberField("p999", h.getValueAtPercentile(99.9) / ms);
            g.writeNumberField("max", h.getMaxValue() / ms);
            g.writeEndObject();
            g.writeEndObject();
          });
      return;
    }
    ctx.out()
        .printf(
            Locale.ROOT,
            "e2e rate=%d/s size=%dB acks=%s linger.ms=%d measured=%d (of %d received, %d sent)"
                + " achieved~%.0f/s  e2e ms: avg %.3f p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f%n",
            rate,
            recordSize,
            acks,
            lingerMs,
            h.getTotalCount(),
            received,
            total,
            achieved,
            h.getMean() / ms,
            h.getValueAtPercentile(50) / ms,
            h.getValueAtPercentile(90) / ms,
            h.getValueAtPercentile(99) / ms,
            h.getValueAtPercentile(99.9) / ms,
            h.getMaxValue() / ms);
  }
}
