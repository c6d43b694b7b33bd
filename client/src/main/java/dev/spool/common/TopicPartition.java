package dev.spool.common;

import java.util.Objects;

/**
 * A topic name and a partition number. Its string form {@code topic-3} is also the log directory
 * name.
 */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {
  public TopicPartition {
    Objects.requireNonNull(topic, "topic");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0: " + partition);
    }
  }

  /**
   * Parses {@code topic-3}; the partition is after the last dash (topic names may contain dashes).
   */
  public static TopicPartition parse(String s) {
    int dash = s.lastIndexOf('-');
    if (dash <= 0 || dash == s.length() - 1) {
      throw new IllegalArgumentException("not a topic-partition: " + s);
    }
    return new TopicPartition(s.substring(0, dash), Integer.parseInt(s.substring(dash + 1)));
  }

  @Override
  public int compareTo(TopicPartition o) {
    int c = topic.compareTo(o.topic);
    return c != 0 ? c : Integer.compare(partition, o.partition);
  }

  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}
