package dev.spool.client;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The records of one poll, grouped by partition; each partition's records are in offset order. */
public final class ConsumerRecords implements Iterable<ConsumerRecord> {
  public static final ConsumerRecords EMPTY = new ConsumerRecords(Map.of());

  private final Map<TopicPartition, List<ConsumerRecord>> records;
  private final int count;

  public ConsumerRecords(Map<TopicPartition, List<ConsumerRecord>> records) {
    Map<TopicPartition, List<ConsumerRecord>> copy = new LinkedHashMap<>();
    int n = 0;
    for (Map.Entry<TopicPartition, List<ConsumerRecord>> e : records.entrySet()) {
      if (!e.getValue().isEmpty()) {
        copy.put(e.getKey(), Collections.unmodifiableList(e.getValue()));
        n += e.getValue().size();
      }
    }
    this.records = Collections.unmodifiableMap(copy);
    this.count = n;
  }

  public List<ConsumerRecord> records(TopicPartition tp) {
    return records.getOrDefault(tp, List.of());
  }

  public Set<TopicPartition> partitions() {
    return records.keySet();
  }

  public int count() {
    return count;
  }

  public boolean isEmpty() {
    return count == 0;
  }

  /** Every record: partition by partition, each in offset order. */
  public List<ConsumerRecord> all() {
    List<ConsumerRecord> all = new ArrayList<>(count);
    records.values().forEach(all::addAll);
    return all;
  }

  @Override
  public Iterator<ConsumerRecord> iterator() {
    return all().iterator();
  }
}
