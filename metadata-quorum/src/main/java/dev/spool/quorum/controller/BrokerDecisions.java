package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.AllocateProducerIdsRequest;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.BrokerRegistrationResponse;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;

/** Broker registration and producer-id allocation decisions. Pure. */
public final class BrokerDecisions {
  private BrokerDecisions() {}

  /**
   * Registers a broker. The same incarnation registering again (a retry) gets its existing epoch
   * and writes nothing. A new incarnation (a restart) replaces the registration; the new one starts
   * fenced, and in the same batch every partition of the broker is repaired as for a fence (new
   * leaders, leader epochs, smaller ISRs), so the restarted broker always re-joins through a new
   * epoch. Record 0 is the registration (reply item 0); the repairs are best effort (item -1): if
   * one loses a race, the controller's reconcile redoes it.
   *
   * <p>A broker whose supported metadata.version range does not hold the cluster's level (or,
   * before one is finalized, the level the bootstrap will write) is refused with
   * UNSUPPORTED_VERSION and nothing is written (docs/architecture.md#versioned-metadata).
   */
  public static Decision register(
      BrokerRegistrationRequest req, MetadataImage image, ControllerSettings s) {
    BrokerRegistrationResponse.Builder resp = BrokerRegistrationResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    if (req.getBrokerId() < 0
        || req.getHost().isEmpty()
        || req.getPort() <= 0
        || req.getPort() > 65535
        || req.getIncarnationId().isEmpty()
        || !BrokerRegistration.validKafkaEndpoint(req.getKafkaHost(), req.getKafkaPort())) {
      resp.setErrorCode(ErrorCode.INVALID_REQUEST)
          .setErrorMessage(
              "registration needs a broker id"
                  + " >= 0, an incarnation id and a host:port, got id="
                  + req.getBrokerId()
                  + " "
                  + req.getHost()
                  + ":"
                  + req.getPort()
                  + (req.getKafkaPort() == 0
                      ? ""
                      : " (Kafka listener " + req.getKafkaHost() + ":" + req.getKafkaPort() + ")"));
      return records.decision(ControllerReply.newBuilder().setRegister(resp).build());
    }
    String badRange =
        MetadataVersion.Range.check(req.getMinMetadataVersion(), req.getMaxMetadataVersion());
    if (badRange != null) {
      resp.setErrorCode(ErrorCode.INVALID_REQUEST)
          .setErrorMessage("broker " + req.getBrokerId() + ": " + badRange);
      return records.decision(ControllerReply.newBuilder().setRegister(resp).build());
    }
    MetadataVersion.Range versions =
        MetadataVersion.Range.ofRegistration(
            req.getMinMetadataVersion(), req.getMaxMetadataVersion());
    int level = FeatureDecisions.effectiveLevel(image, s);
    if (!versions.contains(level)) {
      resp.setErrorCode(ErrorCode.UNSUPPORTED_VERSION)
          .setErrorMessage(
              "broker "
                  + req.getBrokerId()
                  + " supports "
                  + MetadataVersion.FEATURE
                  + " "
                  + versions
                  + ", but the cluster's is "
                  + level
                  + (image.metadataVersion() == MetadataVersion.UNSET
                      ? " (the level the controller will finalize)"
                      : "")
                  + ": run a release that supports level "
                  + level);
      return records.decision(ControllerReply.newBuilder().setRegister(resp).build());
    }
    BrokerRegistration existing = image.broker(req.getBrokerId());
    if (existing != null
        && existing.incarnationId().equals(req.getIncarnationId())
        && existing.metadataVersions().equals(versions)) {
      resp.setBrokerEpoch(existing.epoch());
      return records.decision(ControllerReply.newBuilder().setRegister(resp).build());
    }
    MetadataRecord reg =
        Records.registerBroker(
            req.getBrokerId(),
            req.getIncarnationId(),
            req.getHost(),
            req.getPort(),
            req.getRack(),
            BrokerRegistration.kafkaEndpoint(req.getKafkaHost(), req.getKafkaPort()),
            versions,
            0);
    records.add(reg, 0);
    if (existing != null) {
      ImageBuilder scratch = new ImageBuilder(image);
      MetadataApplier.apply(
          scratch, MetadataBatch.newBuilder().addRecords(reg).build(), image.offset() + 1);
      MetadataImage after = scratch.build(image.offset() + 1);
      for (PartitionState p : after.partitionsOnBroker(req.getBrokerId())) {
        new PartitionChangeBuilder(p, after)
            .uncleanAllowed(PartitionDecisions.uncleanAllowed(after, p))
            .build()
            .ifPresent(r -> records.add(r, -1));
      }
    }
    return records.decision(ControllerReply.newBuilder().setRegister(resp).build());
  }

  /** Hands the next block of producer ids to a registered broker. */
  public static Decision allocateProducerIds(
      AllocateProducerIdsRequest req, MetadataImage image, ControllerSettings s) {
    AllocateProducerIdsResponse.Builder resp = AllocateProducerIdsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    BrokerRegistration b = image.broker(req.getBrokerId());
    if (b == null || b.epoch() != req.getBrokerEpoch()) {
      resp.setErrorCode(ErrorCode.STALE_BROKER_EPOCH)
          .setErrorMessage(
              "broker "
                  + req.getBrokerId()
                  + " epoch "
                  + req.getBrokerEpoch()
                  + " is not registered");
      return records.decision(ControllerReply.newBuilder().setAllocateProducerIds(resp).build());
    }
    long start = image.nextProducerId();
    resp.setProducerIdStart(start).setProducerIdLen(s.producerIdBlockSize());
    records.add(Records.producerIds(b.id(), b.epoch(), start, s.producerIdBlockSize()), 0);
    return records.decision(ControllerReply.newBuilder().setAllocateProducerIds(resp).build());
  }
}
