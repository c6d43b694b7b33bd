package dev.spool.client;

import java.util.Map;

/**
 * Told how a {@link Consumer#commitAsync} ended. Called on the application thread, inside a later
 * {@code poll}, {@code commitSync} or {@code close} of the same consumer (as Kafka's).
 */
@FunctionalInterface
public interface OffsetCommitCallback {
  /**
   * {@code error} is null when every offset was committed, else the first partition's failure (a
   * {@link dev.spool.common.SpoolException} with its error code).
   */
  void onComplete(Map<dev.spool.common.TopicPartition, OffsetAndMetadata> offsets, Exception error);
}
