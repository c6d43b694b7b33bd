package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.UnregisterBrokerRequest;
import dev.spool.protocol.message.UnregisterBrokerResponse;
import java.util.concurrent.CompletableFuture;

/**
 * UnregisterBroker, forwarded to the quorum as it is (the controller decides;
 * docs/architecture.md#unregistering-a-broker). A success waits, bounded by the request's timeout,
 * until this broker's image no longer has the broker, so the caller's next DescribeCluster here
 * does not list it. Netty thread.
 */
public final class UnregisterBrokerHandler
    extends MessageHandler<UnregisterBrokerRequest, UnregisterBrokerResponse> {
  private final BrokerContext ctx;

  public UnregisterBrokerHandler(BrokerContext ctx) {
    super(UnregisterBrokerRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<UnregisterBrokerResponse> call(
      UnregisterBrokerRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.ALTER)) {
      return CompletableFuture.completedFuture(
          UnregisterBrokerResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.ALTER))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<UnregisterBrokerResponse> call(UnregisterBrokerRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().unregisterBroker(req),
        f ->
            UnregisterBrokerResponse.newBuilder()
                .setErrorCode(f.code())
                .setErrorMessage(f.message())
                .build(),
        false,
        resp ->
            img -> resp.getErrorCode() != ErrorCode.NONE || img.broker(req.getBrokerId()) == null,
        ctx.adminTimeout(req.getTimeoutMs()));
  }
}
