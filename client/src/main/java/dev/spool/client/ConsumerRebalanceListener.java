package dev.spool.client;

import dev.spool.common.TopicPartition;
import java.util.Collection;

/**
 * Told when the group moves partitions to or from this consumer; called on the application thread
 * inside {@link Consumer#poll} (and {@link Consumer#close}). Kafka's contract: revoked partitions
 * were still owned when {@link #onPartitionsRevoked} runs, so it may commit them (the consumer has
 * already committed consumed positions when {@code enable.auto.commit} is on); lost partitions (the
 * member was fenced or its session expired) may already belong to another member, so {@link
 * #onPartitionsLost} must not commit them.
 */
public interface ConsumerRebalanceListener {
  void onPartitionsRevoked(Collection<TopicPartition> partitions);

  void onPartitionsAssigned(Collection<TopicPartition> partitions);

  /** By default the same as a revocation, as Kafka's. */
  default void onPartitionsLost(Collection<TopicPartition> partitions) {
    onPartitionsRevoked(partitions);
  }

  /** A listener that does nothing. */
  ConsumerRebalanceListener NONE =
      new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {}
      };
}
