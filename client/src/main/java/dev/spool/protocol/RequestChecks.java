package dev.spool.protocol;

import dev.spool.common.TopicPartition;

/**
 * Checks of request fields that both listeners' decoders share: a field a {@link TopicPartition}
 * (or another internal type) cannot hold makes the request malformed, an {@link
 * InvalidFrameException} (answered INVALID_REQUEST where the protocol has an answer, the connection
 * closed, one log line), never an unexpected server error.
 */
public final class RequestChecks {
  private RequestChecks() {}

  /** The partition a request names; a negative number is a malformed request. */
  public static TopicPartition partition(String topic, int partition) {
    if (partition < 0) {
      throw new InvalidFrameException(
          "partition " + partition + " of topic '" + topic + "': partitions are numbered from 0");
    }
    return new TopicPartition(topic, partition);
  }
}
