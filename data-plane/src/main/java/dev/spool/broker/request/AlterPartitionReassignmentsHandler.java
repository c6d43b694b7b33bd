package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import java.util.concurrent.CompletableFuture;

/**
 * AlterPartitionReassignments, forwarded to the quorum as it is (the controller decides;
 * docs/architecture.md#replica-reassignment). The answer waits, bounded by the request's timeout,
 * until this broker's image shows every accepted partition reassigning or moved and the throttle
 * set, so the caller's next ListPartitionReassignments here sees it. Netty thread.
 */
public final class AlterPartitionReassignmentsHandler
    extends MessageHandler<
        AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse> {
  private final BrokerContext ctx;

  public AlterPartitionReassignmentsHandler(BrokerContext ctx) {
    super(AlterPartitionReassignmentsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<AlterPartitionReassignmentsResponse> call(
      AlterPartitionReassignmentsRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.ALTER)) {
      return CompletableFuture.completedFuture(
          AlterPartitionReassignmentsResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.ALTER))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<AlterPartitionReassignmentsResponse> call(
      AlterPartitionReassignmentsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().alterPartitionReassignments(req),
        f -> {
          AlterPartitionReassignmentsResponse.Builder b =
              AlterPartitionReassignmentsResponse.newBuilder()
                  .setErrorCode(f.code())
                  .setErrorMessage(f.message());
          for (AlterPartitionReassignmentsRequest.Reassignment r : req.getPartitionsList()) {
            b.addPartitions(
                AlterPartitionReassignmentsResponse.Result.newBuilder()
                    .setTopic(r.getTopic())
                    .setPartition(r.getPartition())
                    .setErrorCode(f.code())
                    .setErrorMessage(f.message()));
          }
          return b.build();
        },
        false,
        resp -> img -> applied(req, resp, img),
        ctx.adminTimeout(req.getTimeoutMs()));
  }

  /** Whether {@code img} shows what {@code resp} says was accepted. */
  private static boolean applied(
      AlterPartitionReassignmentsRequest req,
      AlterPartitionReassignmentsResponse resp,
      MetadataImage img) {
    if (resp.getErrorCode() != ErrorCode.NONE) {
      return true;
    }
    if (req.hasThrottleBytesPerSec()
        && img.replicationThrottleBytesPerSec() != req.getThrottleBytesPerSec()) {
      return false;
    }
    for (int i = 0; i < resp.getPartitionsCount(); i++) {
      AlterPartitionReassignmentsRequest.Reassignment r = req.getPartitions(i);
      if (resp.getPartitions(i).getErrorCode() != ErrorCode.NONE) {
        continue;
      }
      PartitionState p = img.partition(new TopicPartition(r.getTopic(), r.getPartition()));
      if (p == null) {
        return false;
      }
      boolean shows =
          r.getCancel()
              ? !p.isReassigning()
              : p.targetReplicas().equals(r.getReplicasList())
                  && (p.isReassigning() || p.replicas().equals(r.getReplicasList()));
      if (!shows) {
        return false;
      }
    }
    return true;
  }
}
