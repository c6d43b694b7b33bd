package dev.spool.broker.metrics;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.MetricType;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A gauge read at scrape time, like the Prometheus client's {@link GaugeWithCallback}, except that
 * the callback hands over ready-made {@link Labels} instead of label-value strings. {@code
 * GaugeWithCallback} builds, copies, sorts and validates a new label set for every sample of every
 * scrape (its name validation alone makes two charset encoders per sample); the per-partition
 * gauges take theirs from a {@link LabelCache}, built once per partition. With 10,000 partitions
 * and several per-partition metrics that was most of what a scrape allocated
 * (docs/operations.md#cost).
 *
 * <p>The metric's name, help, unit, type and label names come from a {@code GaugeWithCallback}
 * built with the same builder calls and never registered, so the registry's checks and the
 * exposition are exactly those of the gauge it replaces. The data points go into the client's own
 * {@link GaugeSnapshot}, which sorts them as it always did.
 *
 * <p>Threads: {@link #collect} runs on the scraping thread; the callback must read only published
 * state.
 */
final class LabelledGauge implements Collector {
  /** Where a callback puts its samples. */
  interface Sink {
    void add(double value, Labels labels);
  }

  private final GaugeWithCallback template;
  private final Consumer<Sink> callback;

  /** Samples in the last scrape, to size the next one's list (a race only mis-sizes it). */
  private volatile int lastSize = 16;

  private LabelledGauge(GaugeWithCallback template, Consumer<Sink> callback) {
    this.template = template;
    this.callback = callback;
  }

  /**
   * Registers a gauge {@code name} with label names {@code labelNames} (the order of {@link Labels}
   * the callback passes does not matter; they are sorted by name as the client sorts them). {@code
   * unit} may be null.
   */
  static LabelledGauge register(
      PrometheusRegistry registry,
      String name,
      String help,
      Unit unit,
      List<String> labelNames,
      Consumer<Sink> callback) {
    GaugeWithCallback.Builder b =
        GaugeWithCallback.builder()
            .name(name)
            .help(help)
            .labelNames(labelNames.toArray(String[]::new))
            .callback(cb -> {});
    if (unit != null) {
      b.unit(unit);
    }
    LabelledGauge g = new LabelledGauge(b.build(), callback);
    registry.register(g);
    return g;
  }

  @Override
  public GaugeSnapshot collect() {
    List<GaugeDataPointSnapshot> points = new ArrayList<>(lastSize);
    callback.accept(
        (value, labels) -> points.add(new GaugeDataPointSnapshot(value, labels, null, 0L)));
    lastSize = Math.max(16, points.size());
    return new GaugeSnapshot(template.getMetadata(), points);
  }

  @Override
  public String getPrometheusName() {
    return template.getPrometheusName();
  }

  @Override
  public MetricType getMetricType() {
    return template.getMetricType();
  }

  @Override
  public Set<String> getLabelNames() {
    return template.getLabelNames();
  }

  @Override
  public MetricMetadata getMetadata() {
    return template.getMetadata();
  }

  @Override
  public MetricFamilyDescriptor getMetricFamilyDescriptor() {
    return template.getMetricFamilyDescriptor();
  }
}
