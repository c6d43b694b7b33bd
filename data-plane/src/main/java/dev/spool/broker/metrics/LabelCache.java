package dev.spool.broker.metrics;

import dev.spool.common.TopicPartition;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Label sets built once per key (a partition, or a group's partition) and reused by every scrape
 * and every metric of that key (see {@link LabelledGauge} for why).
 *
 * <p>Bounded: {@link #trim} drops the whole cache when it holds more than twice the keys still live
 * (plus a little), so deleted topics and groups do not pile up; the next scrape rebuilds what it
 * needs.
 *
 * <p>Threads: any (the scraping thread in practice).
 */
final class LabelCache<K> {
  private static final int SLACK = 64;

  private final ConcurrentHashMap<K, Labels> cache = new ConcurrentHashMap<>();
  private final Function<K, Labels> build;

  LabelCache(Function<K, Labels> build) {
    this.build = build;
  }

  /** A cache of the labels {@code topic=<topic>, partition=<partition>} of each partition. */
  static LabelCache<TopicPartition> partitions() {
    return new LabelCache<>(
        tp -> Labels.of("topic", tp.topic(), "partition", Integer.toString(tp.partition())));
  }

  /** The labels of {@code key}, built on first use. */
  Labels of(K key) {
    Labels l = cache.get(key);
    if (l == null) {
      l = build.apply(key);
      cache.put(key, l);
    }
    return l;
  }

  /** Empties the cache when it outgrew {@code live} keys (twice over, plus slack). */
  void trim(int live) {
    if (cache.size() > 2L * live + SLACK) {
      cache.clear();
    }
  }

  int size() {
    return cache.size();
  }
}
