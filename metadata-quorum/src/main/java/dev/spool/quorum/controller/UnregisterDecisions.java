package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.UnregisterBrokerRequest;
import dev.spool.protocol.message.UnregisterBrokerResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.ControllerReply;
import java.util.List;
import java.util.function.IntFunction;

/**
 * UnregisterBroker (docs/architecture.md#unregistering-a-broker), as Kafka's: removes a dead
 * broker's registration with an UnregisterBrokerRecord. Refused, with nothing written, in this
 * order: a negative id (INVALID_REQUEST); an id nobody is registered with
 * (BROKER_ID_NOT_REGISTERED); a cluster below metadata.version 3, whose nodes may not know the
 * record (UNSUPPORTED_VERSION); a broker that is alive (BROKER_ALIVE): unfenced, or heard from
 * within its session timeout, or not yet heard of by this controller, which gives every broker a
 * full session from its own activation; a broker still named in a partition's replica set
 * (BROKER_HAS_REPLICAS). Kafka unregisters a live broker too (it re-registers at once); Spool
 * refuses, since that can only be a mistake. Pure: liveness comes in as heartbeat ages.
 */
public final class UnregisterDecisions {
  private UnregisterDecisions() {}

  /**
   * @param heartbeatAgeMs milliseconds since a registered broker's last heartbeat reached the
   *     active controller (from its activation for a broker not heard from since); null, and so
   *     alive, for a broker it does not track
   */
  public static Decision unregister(
      UnregisterBrokerRequest req,
      MetadataImage image,
      IntFunction<Long> heartbeatAgeMs,
      ControllerSettings s) {
    Decision.Builder records = new Decision.Builder();
    BrokerRegistration b = image.broker(req.getBrokerId());
    String refusal = null;
    ErrorCode code = ErrorCode.NONE;
    if (req.getBrokerId() < 0) {
      code = ErrorCode.INVALID_REQUEST;
      refusal = "broker id " + req.getBrokerId() + " is negative";
    } else if (b == null) {
      code = ErrorCode.BROKER_ID_NOT_REGISTERED;
      refusal = "no broker " + req.getBrokerId() + " is registered";
    } else if (image.metadataVersion() < MetadataVersion.UNREGISTER_BROKER) {
      code = ErrorCode.UNSUPPORTED_VERSION;
      refusal =
          "unregistering a broker needs "
              + MetadataVersion.FEATURE
              + " "
              + MetadataVersion.UNREGISTER_BROKER
              + "; the cluster is at "
              + image.metadataVersion()
              + ": raise it first (spool features upgrade --metadata-version "
              + MetadataVersion.UNREGISTER_BROKER
              + ")";
    } else if ((refusal = alive(b, heartbeatAgeMs.apply(b.id()), s.sessionTimeoutMs())) != null) {
      code = ErrorCode.BROKER_ALIVE;
    } else {
      List<PartitionState> on = image.partitionsOnBroker(b.id());
      if (!on.isEmpty()) {
        code = ErrorCode.BROKER_HAS_REPLICAS;
        refusal = MetadataApplier.holdsReplicas(b.id(), on) + ": move its replicas off first";
      }
    }
    UnregisterBrokerResponse.Builder resp = UnregisterBrokerResponse.newBuilder();
    if (refusal != null) {
      resp.setErrorCode(code).setErrorMessage(refusal);
    } else {
      records.add(Records.unregisterBroker(b.id(), b.epoch()), 0);
    }
    return records.decision(ControllerReply.newBuilder().setUnregisterBroker(resp).build());
  }

  /** Why {@code b} counts as alive, or null when it is fenced and its session ran out. */
  private static String alive(BrokerRegistration b, Long ageMs, long sessionTimeoutMs) {
    String stop = ": stop it first (it would only register again)";
    if (!b.fenced()) {
      return "broker " + b.id() + " is alive (unfenced)" + stop;
    }
    if (ageMs == null) {
      return "broker " + b.id() + " is fenced but not yet tracked by the active controller" + stop;
    }
    if (ageMs <= sessionTimeoutMs) {
      return "broker "
          + b.id()
          + " is fenced, but its last heartbeat (or the active controller's start) was "
          + ageMs
          + " ms ago, within its session timeout of "
          + sessionTimeoutMs
          + " ms"
          + stop;
    }
    return null;
  }
}
