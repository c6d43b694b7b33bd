package dev.spool.client;

import dev.spool.common.TopicPartition;
import dev.spool.record.Header;
import dev.spool.record.TimestampType;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One record read from a partition.
 *
 * @param timestamp milliseconds since the epoch (the producer's, or the broker's with
 *     LogAppendTime)
 * @param key {@code null} for a null key
 * @param value {@code null} for a null value (a tombstone)
 * @param leaderEpoch the leader epoch of the batch the record came in, -1 if unknown
 */
public record ConsumerRecord(
    String topic,
    int partition,
    long offset,
    long timestamp,
    TimestampType timestampType,
    byte[] key,
    byte[] value,
    List<Header> headers,
    int leaderEpoch) {

  public ConsumerRecord {
    headers = List.copyOf(headers);
  }

  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }

  /** The key decoded as UTF-8, or null. */
  public String keyAsString() {
    return key == null ? null : new String(key, StandardCharsets.UTF_8);
  }

  /** The value decoded as UTF-8, or null. */
  public String valueAsString() {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "ConsumerRecord("
        + topic
        + "-"
        + partition
        + "@"
        + offset
        + ", key "
        + (key == null ? "null" : key.length + " bytes")
        + ", value "
        + (value == null ? "null" : value.length + " bytes")
        + ")";
  }
}
