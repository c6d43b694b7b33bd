package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.quorum.message.ControllerWriteRequest;
import dev.spool.quorum.message.ControllerWriteResponse;
import dev.spool.quorum.message.RecordResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Turns one write request into a {@link Decision}, on the active controller, before anything is
 * logged. Pure: request, image, the controller's Raft term and a seeded random in. Dispatches to
 * the per-request decision classes.
 */
public final class RequestDecider {
  private RequestDecider() {}

  /**
   * As {@link #decide(ControllerRequest, MetadataImage, long, ControllerSettings, Random,
   * IntFunction)} with no heartbeat known: every broker counts as alive.
   */
  public static Decision decide(
      ControllerRequest req, MetadataImage image, long term, ControllerSettings s, Random random)
      throws RequestRejectedException {
    return decide(req, image, term, s, random, id -> null);
  }

  /** As the full {@code decide} with no voter range known. */
  public static Decision decide(
      ControllerRequest req,
      MetadataImage image,
      long term,
      ControllerSettings s,
      Random random,
      IntFunction<Long> heartbeatAgeMs)
      throws RequestRejectedException {
    return decide(req, image, term, s, random, heartbeatAgeMs, () -> VoterRanges.NONE);
  }

  /**
   * @param heartbeatAgeMs the active controller's view of one broker's liveness
   *     (ActiveController#heartbeatAgeMs), asked only by UnregisterBroker
   * @param voters the quorum's current voters and their reported metadata.version ranges
   *     (ActiveController#controllerRange), asked only by UpdateFeatures
   */
  public static Decision decide(
      ControllerRequest req,
      MetadataImage image,
      long term,
      ControllerSettings s,
      Random random,
      IntFunction<Long> heartbeatAgeMs,
      Supplier<VoterRanges> voters)
      throws RequestRejectedException {
    return switch (req.getKindCase()) {
      case REGISTER -> BrokerDecisions.register(req.getRegister(), image, s);
      case ALTER_PARTITION -> PartitionDecisions.alterPartition(req.getAlterPartition(), image);
      case CREATE_TOPICS -> TopicDecisions.createTopics(req.getCreateTopics(), image, s, random);
      case DELETE_TOPICS -> TopicDecisions.deleteTopics(req.getDeleteTopics(), image);
      case CREATE_PARTITIONS ->
          PartitionGrowthDecisions.createPartitions(req.getCreatePartitions(), image, s, random);
      case ELECT_LEADERS -> PartitionDecisions.electLeaders(req.getElectLeaders(), image);
      case ALTER_CONFIGS -> TopicDecisions.alterConfigs(req.getAlterConfigs(), image);
      case ALTER_USER_SCRAM_CREDENTIALS ->
          ScramDecisions.alter(req.getAlterUserScramCredentials(), image);
      case UPDATE_FEATURES ->
          FeatureDecisions.update(req.getUpdateFeatures(), image, s, voters.get());
      case UNREGISTER_BROKER ->
          UnregisterDecisions.unregister(req.getUnregisterBroker(), image, heartbeatAgeMs, s);
      case ALTER_PARTITION_REASSIGNMENTS ->
          ReassignmentDecisions.alter(req.getAlterPartitionReassignments(), image);
      case CREATE_ACLS -> AclDecisions.create(req.getCreateAcls(), image, random);
      case DELETE_ACLS -> AclDecisions.delete(req.getDeleteAcls(), image);
      case ALTER_CLIENT_QUOTAS -> ClientQuotaDecisions.alter(req.getAlterClientQuotas(), image);
      case ALLOCATE_PRODUCER_IDS ->
          BrokerDecisions.allocateProducerIds(req.getAllocateProducerIds(), image, s);
      case CONTROLLER_WRITE -> controllerWrite(req.getControllerWrite(), term);
      case HEARTBEAT, DESCRIBE_QUORUM, CONTROLLER_HEARTBEAT ->
          throw new RequestRejectedException(
              ErrorCode.INVALID_REQUEST, req.getKindCase() + " is a read-only request");
      case KIND_NOT_SET ->
          throw new RequestRejectedException(ErrorCode.INVALID_REQUEST, "empty controller request");
    };
  }

  private static Decision controllerWrite(ControllerWriteRequest w, long term)
      throws RequestRejectedException {
    if (w.getTerm() != term) {
      throw new RequestRejectedException(
          ErrorCode.NOT_CONTROLLER,
          "controller write of term " + w.getTerm() + " refused in term " + term);
    }
    int n = w.getBatch().getRecordsCount();
    // The quorum's port has no authentication yet: a raw write is checked here as it is again on
    // replay, so an illegal record is refused before it reaches the log.
    for (int i = 0; i < n; i++) {
      RecordResult refused = RecordChecks.check(w.getBatch().getRecords(i));
      if (refused != null) {
        throw new RequestRejectedException(
            refused.getErrorCode(),
            "controller write record " + i + " refused: " + refused.getErrorMessage());
      }
    }
    ArrayList<Integer> items = new ArrayList<>(Collections.nCopies(n, 0));
    for (int i = 0; i < n; i++) {
      items.set(i, i);
    }
    return new Decision(
        w.getBatch(),
        ControllerReply.newBuilder()
            .setControllerWrite(ControllerWriteResponse.getDefaultInstance())
            .build(),
        items);
  }
}
