package dev.spool.broker;

import dev.spool.broker.replication.ReplicaManager;
import dev.spool.broker.request.MetadataWaiters;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.lifecycle.BrokerState;
import dev.spool.quorum.lifecycle.MetadataListener;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes every metadata update the broker lifecycle replays: the replica manager turns the delta
 * into per-partition tasks on the owner workers (create logs with the topic's config, become leader
 * or follower, take ISR changes, delete); once those tasks ran, waiting admin requests re-check
 * their conditions against that image. When the broker first becomes RUNNING (caught up with the
 * metadata log and unfenced), logs of partitions no longer assigned here are deleted.
 *
 * <p>Threads: called on the broker lifecycle thread, one update at a time, in offset order.
 */
final class MetadataPublisher implements MetadataListener {
  private static final Logger log = LoggerFactory.getLogger(MetadataPublisher.class);

  private final ReplicaManager replicas;
  private final MetadataWaiters waiters;
  private boolean orphansChecked;
  private volatile MetadataImage applied = MetadataImage.EMPTY;
  private final CompletableFuture<Void> servable = new CompletableFuture<>();
  private volatile long servableAt = Long.MAX_VALUE;

  MetadataPublisher(ReplicaManager replicas, MetadataWaiters waiters) {
    this.replicas = replicas;
    this.waiters = waiters;
  }

  @Override
  public void onMetadataUpdate(MetadataImage image, MetadataDelta delta) {
    log.debug(
        "[node={}] metadata {} -> {}: {} partitions changed, {} removed",
        replicas.brokerId(),
        delta.fromOffset(),
        delta.toOffset(),
        delta.changedPartitions().size(),
        delta.removedPartitions().size());
    replicas
        .applyMetadata(image, delta)
        .whenComplete(
            (v, e) -> {
              synchronized (this) {
                if (image.offset() > applied.offset()) {
                  applied = image;
                }
              }
              waiters.onUpdate(applied);
              checkServable();
            });
  }

  /**
   * Completes once the broker may serve client requests: its partition tasks have run for the
   * metadata it had when it first caught up with the log ({@link #serveFrom}). Until then its image
   * may lack the cluster's topics and ACLs, and an answer from it would deny a principal the
   * cluster allows or say a topic does not exist.
   */
  CompletableFuture<Void> servable() {
    return servable;
  }

  /** The broker caught up with the metadata log at {@code offset} (its lifecycle's thread). */
  void serveFrom(long offset) {
    servableAt = offset;
    checkServable();
  }

  private void checkServable() {
    if (!servable.isDone() && applied.offset() >= servableAt) {
      servable.complete(null);
    }
  }

  /**
   * The newest image whose partition tasks have all run: admin answers wait for this one, so that
   * the replicas on this broker (not only its metadata) reflect the change.
   */
  MetadataImage appliedImage() {
    return applied;
  }

  @Override
  public void onStateChange(BrokerState from, BrokerState to) {
    if (to == BrokerState.RUNNING && !orphansChecked) {
      orphansChecked = true;
      replicas.deleteOrphanLogs();
    }
  }
}
