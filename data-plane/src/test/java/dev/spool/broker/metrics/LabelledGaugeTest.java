package dev.spool.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link LabelledGauge} with {@link LabelCache} writes exactly the text the Prometheus client's
 * {@link GaugeWithCallback} wrote for the same samples (names, help, unit, label order, series
 * order, values), reuses one label set per partition, and the label cache stays bounded.
 */
@Tag("unit")
class LabelledGaugeTest {
  private static final List<TopicPartition> PARTITIONS = partitions();

  private static List<TopicPartition> partitions() {
    List<TopicPartition> l = new ArrayList<>();
    for (String t : List.of("orders", "a-b.c", "zeta")) {
      for (int p = 0; p < 12; p++) { // 12: "10" sorts before "2" as a string
        l.add(new TopicPartition(t, p));
      }
    }
    return l;
  }

  private static double value(TopicPartition tp) {
    return tp.partition() * 1_000_003L + tp.topic().length() + (tp.partition() == 3 ? 0.25 : 0);
  }

  private static String text(PrometheusRegistry r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, r.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void writesTheSameTextAsGaugeWithCallback() throws IOException {
    PrometheusRegistry old = new PrometheusRegistry();
    GaugeWithCallback.builder()
        .name("spool_log_size_bytes")
        .help("Bytes of the partition's log on this broker (every segment).")
        .unit(Unit.BYTES)
        .labelNames("topic", "partition")
        .callback(
            cb -> {
              for (TopicPartition tp : PARTITIONS) {
                cb.call(value(tp), tp.topic(), Integer.toString(tp.partition()));
              }
            })
        .register(old);
    GaugeWithCallback.builder()
        .name("spool_log_end_offset")
        .help("Next offset to be written to the partition's log on this broker.")
        .labelNames("topic", "partition")
        .callback(
            cb -> {
              for (TopicPartition tp : PARTITIONS) {
                cb.call(value(tp) * 2, tp.topic(), Integer.toString(tp.partition()));
              }
            })
        .register(old);

    PrometheusRegistry now = new PrometheusRegistry();
    LabelCache<TopicPartition> labels = LabelCache.partitions();
    List<String> names = List.of("topic", "partition");
    LabelledGauge.register(
        now,
        "spool_log_size_bytes",
        "Bytes of the partition's log on this broker (every segment).",
        Unit.BYTES,
        names,
        sink -> PARTITIONS.forEach(tp -> sink.add(value(tp), labels.of(tp))));
    LabelledGauge.register(
        now,
        "spool_log_end_offset",
        "Next offset to be written to the partition's log on this broker.",
        null,
        names,
        sink -> PARTITIONS.forEach(tp -> sink.add(value(tp) * 2, labels.of(tp))));

    String expected = text(old);
    assertTrue(expected.contains("spool_log_size_bytes{partition=\"10\",topic=\"a-b.c\"}"));
    assertEquals(expected, text(now));
    assertEquals(expected, text(now), "a second scrape, from cached labels, is the same");
    assertEquals(PARTITIONS.size(), labels.size(), "one label set per partition, shared");
  }

  @Test
  void anEmptyGaugeWritesNothingAsBefore() throws IOException {
    PrometheusRegistry r = new PrometheusRegistry();
    LabelledGauge.register(
        r,
        "spool_replica_fetcher_lag_records",
        "lag",
        null,
        List.of("topic", "partition"),
        s -> {});
    assertEquals("", text(r));
  }

  @Test
  void labelsAreBuiltOncePerPartitionAndTheCacheIsTrimmedWhenPartitionsGo() {
    LabelCache<TopicPartition> labels = LabelCache.partitions();
    TopicPartition tp = new TopicPartition("t", 7);
    assertSame(labels.of(tp), labels.of(tp));
    assertEquals("7", labels.of(tp).get("partition"));
    assertEquals("t", labels.of(tp).get("topic"));
    for (int p = 0; p < 200; p++) {
      labels.of(new TopicPartition("gone", p));
    }
    labels.trim(200); // 201 entries for 200 live partitions: kept
    assertEquals(201, labels.size());
    labels.trim(10); // the topic "gone" was deleted: 201 > 2 * 10 + 64
    assertEquals(0, labels.size());
    assertEquals("7", labels.of(tp).get("partition"));
  }
}
