package dev.spool.quorum.lifecycle;

import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;

/**
 * Told about every metadata change a broker replays. Called on the {@link BrokerLifecycle} thread,
 * one call at a time, in offset order; a slow listener delays the next heartbeat, so hand long work
 * to another thread. Exceptions are logged and do not stop the lifecycle.
 */
public interface MetadataListener {

  /**
   * The broker's image moved to {@code image}; {@code delta} says what changed (new/changed and
   * removed topics and partitions with their states, changed brokers). Handle removals first: a
   * topic deleted and re-created under the same name appears in both.
   */
  void onMetadataUpdate(MetadataImage image, MetadataDelta delta);

  /** The lifecycle state changed (e.g. fenced → RECOVERING, unfenced → RUNNING). */
  default void onStateChange(BrokerState from, BrokerState to) {}
}
