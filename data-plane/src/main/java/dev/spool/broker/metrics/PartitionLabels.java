package dev.spool.broker.metrics;

import dev.spool.common.TopicPartition;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code topic} and {@code partition} label set of each partition, built once and reused by
 * every scrape and every per-partition metric (see {@link LabelledGauge} for why).
 *
 * <p>Bounded: {@link #trim} drops the whole cache when it holds more than twice the partitions
 * still hosted (plus a little), so deleted topics do not pile up; the next scrape rebuilds what it
 * needs.
 *
 * <p>Threads: any (the scraping thread in practice).
 */
final class PartitionLabels {
  private static final int SLACK = 64;

  private final ConcurrentHashMap<TopicPartition, Labels> cache = new ConcurrentHashMap<>();

  /** The labels {@code topic=<topic>, partition=<partition>} of {@code tp}. */
  Labels of(TopicPartition tp) {
    Labels l = cache.get(tp);
    if (l == null) {
      l = Labels.of("topic", tp.topic(), "partition", Integer.toString(tp.partition()));
      cache.put(tp, l);
    }
    return l;
  }

  /** Empties the cache when it outgrew {@code live} partitions (twice over, plus slack). */
  void trim(int live) {
    if (cache.size() > 2L * live + SLACK) {
      cache.clear();
    }
  }

  int size() {
    return cache.size();
  }
}
