package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.ElectionType;
import dev.spool.quorum.image.PartitionState;
import java.util.concurrent.CompletableFuture;

/**
 * ElectLeaders (preferred or unclean), forwarded to the quorum; answers once this broker's image
 * shows the elected leaders (the preferred replica, or any leader for unclean), bounded by the
 * timeout. Netty thread.
 */
public final class ElectLeadersHandler
    extends MessageHandler<ElectLeadersRequest, ElectLeadersResponse> {
  private final BrokerContext ctx;

  public ElectLeadersHandler(BrokerContext ctx) {
    super(ElectLeadersRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<ElectLeadersResponse> call(ElectLeadersRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.ALTER)) {
      return CompletableFuture.completedFuture(
          ElectLeadersResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.ALTER))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<ElectLeadersResponse> call(ElectLeadersRequest req) {
    long timeoutMs = ctx.adminTimeout(req.getTimeoutMs());
    return ctx.quorum()
        .electLeaders(req)
        .handle(
            (resp, err) -> {
              if (err == null) {
                return resp;
              }
              AdminForwarding.Failure f = AdminForwarding.failure(err);
              return ElectLeadersResponse.newBuilder()
                  .setErrorCode(f.code())
                  .setErrorMessage(f.message())
                  .build();
            })
        .thenCompose(
            resp ->
                ctx.metadataWaiters()
                    .await(
                        img ->
                            resp.getResultsList().stream()
                                .filter(r -> r.getErrorCode() == ErrorCode.NONE)
                                .allMatch(
                                    r -> {
                                      PartitionState p =
                                          r.getPartition() < 0
                                              ? null
                                              : img.partition(
                                                  new TopicPartition(
                                                      r.getTopic(), r.getPartition()));
                                      return p == null
                                          || (req.getElectionType() == ElectionType.PREFERRED
                                              ? p.leader() == p.preferredLeader()
                                              : p.hasLeader());
                                    }),
                        timeoutMs)
                    .thenApply(img -> resp));
  }
}
