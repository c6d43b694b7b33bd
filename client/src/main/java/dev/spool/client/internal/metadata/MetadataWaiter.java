package dev.spool.client.internal.metadata;

import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import java.util.List;
import java.util.Set;

/**
 * Blocking wait for a topic's partitions, for application threads (producer send, partitionsFor):
 * asks for refreshes until the topic appears, is found not to exist (UNKNOWN_TOPIC_OR_PARTITION
 * after a few lookups, see {@link Metadata}), a SASL login fails (its error, at once) or the
 * deadline passes (REQUEST_TIMED_OUT, or the bootstrap connection error while the cluster was never
 * reached).
 */
public final class MetadataWaiter {
  private MetadataWaiter() {}

  /**
   * The partitions of {@code topic}; with {@code partition} non-null, also waits until it exists
   * (one refresh past the first answer, then UNKNOWN_TOPIC_OR_PARTITION).
   */
  public static List<PartitionInfo> awaitPartitions(
      Metadata md, Clock clock, String topic, Integer partition, long deadlineMs, String limitName)
      throws InterruptedException {
    List<PartitionInfo> parts = md.snapshot().partitionsFor(topic);
    if (parts != null && !parts.isEmpty() && (partition == null || partition < parts.size())) {
      return parts;
    }
    md.addTopics(Set.of(topic), clock.monotonicMs());
    boolean refreshedForPartition = false;
    while (true) {
      SpoolException login = md.authenticationFailure();
      if (login != null) {
        throw new SpoolException(login.errorCode(), login.getMessage(), login);
      }
      SpoolException topicError = md.topicError(topic);
      if (topicError != null) {
        throw topicError;
      }
      parts = md.snapshot().partitionsFor(topic);
      if (parts != null && !parts.isEmpty()) {
        if (partition == null || partition < parts.size()) {
          return parts;
        }
        if (refreshedForPartition) {
          throw new SpoolException(
              ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
              "topic '"
                  + topic
                  + "' has "
                  + parts.size()
                  + " partitions, there is no partition "
                  + partition);
        }
        refreshedForPartition = true;
      }
      int version = md.requestUpdate();
      if (!md.awaitUpdate(version, deadlineMs, clock::monotonicMs)
          || clock.monotonicMs() >= deadlineMs) {
        SpoolException cause = md.bootstrapFailure();
        throw new SpoolException(
            cause != null ? cause.errorCode() : ErrorCode.REQUEST_TIMED_OUT,
            "metadata for topic '"
                + topic
                + "' not available within "
                + limitName
                + (cause != null ? ": " + cause.getMessage() : ""));
      }
    }
  }
}
