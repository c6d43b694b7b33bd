package dev.spool.client;

import dev.spool.common.TopicPartition;

/**
 * Where a record was written: its partition and offset, and its timestamp (the producer's create
 * time, or the broker's append time when the topic uses LogAppendTime). The offset is -1 when the
 * producer did not wait for an answer ({@code acks=0}).
 *
 * @param timestamp milliseconds since the epoch
 */
public record RecordMetadata(String topic, int partition, long offset, long timestamp) {
  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset;
  }
}
