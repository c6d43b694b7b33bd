package dev.spool.broker.replication;

import dev.spool.common.ManualClock;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.controller.BrokerHeartbeatTracker;
import dev.spool.quorum.controller.ClusterDuties;
import dev.spool.quorum.controller.ControllerSettings;
import dev.spool.quorum.controller.Decision;
import dev.spool.quorum.controller.PartitionDecisions;
import dev.spool.quorum.controller.ReplyFinisher;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The simulated metadata quorum: one committed log of batches, the image it replays into, and the
 * controller's duties, all through the quorum's own pure code ({@link MetadataApplier}, {@link
 * PartitionDecisions}, {@link ClusterDuties}, {@link ReplyFinisher}). Raft itself is not simulated:
 * the quorum is always available to the brokers that can reach it (Raft has its own tests).
 *
 * <p>Threads: the simulation's single thread.
 */
final class SimQuorum {
  private final ManualClock clock;
  private final Consumer<String> count;
  MetadataImage image = MetadataImage.EMPTY;
  final List<MetadataBatch> log = new ArrayList<>(); // index i holds offset i + 1
  final BrokerHeartbeatTracker tracker =
      new BrokerHeartbeatTracker(ReplicationSimulation.SESSION_TIMEOUT_MS);
  final ControllerSettings settings =
      QuorumConfig.defaultControllerSettings()
          .withSessionTimeoutMs(ReplicationSimulation.SESSION_TIMEOUT_MS)
          .withLeaderBalancing(true, 1);

  /** {@code count} tallies what happened, for the run's summary. */
  SimQuorum(ManualClock clock, Consumer<String> count) {
    this.clock = clock;
    this.count = count;
  }

  /** Commits {@code records} as one batch and applies it to the image. */
  List<RecordResult> write(List<MetadataRecord> records) {
    MetadataBatch batch = MetadataBatch.newBuilder().addAllRecords(records).build();
    log.add(batch);
    long offset = log.size();
    ImageBuilder b = new ImageBuilder(image);
    List<RecordResult> results = MetadataApplier.apply(b, batch, offset);
    image = b.build(offset);
    return results;
  }

  /** Registers broker {@code id} (a start or restart) and returns its new broker epoch. */
  long register(int id) {
    write(
        List.of(
            Records.registerBroker(
                id, UUID.randomUUID().toString(), "host" + id, 9000 + id, "", 0)));
    return image.broker(id).epoch();
  }

  /** Decides and commits an AlterPartition as the active controller does. */
  AlterPartitionResponse alterPartition(AlterPartitionRequest req) {
    Decision d = PartitionDecisions.alterPartition(req, image);
    List<RecordResult> results =
        d.batch().getRecordsCount() == 0 ? List.of() : write(d.batch().getRecordsList());
    return ReplyFinisher.finish(d.toEntry(), results, image, log.size()).getAlterPartition();
  }

  /** The controller's time-based duties: fencing, elections, and leader balancing if asked. */
  void duties(boolean balance) {
    long now = clock.monotonicMs();
    tracker.observe(image, now);
    ClusterDuties.Outcome o = ClusterDuties.decide(image, tracker, now, balance, settings);
    if (!o.isEmpty()) {
      count.accept("controller writes");
      if (o.reason().contains("cannot reach")) {
        count.accept("leaderships moved from a leader its ISR cannot reach");
      }
      write(o.records());
    }
  }
}
