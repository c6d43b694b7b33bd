package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.DeleteAclsRequest;
import dev.spool.protocol.message.DeleteAclsResponse;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DeleteAcls (docs/security.md#acls): ALTER on the cluster, then forwarded to the quorum, whose
 * controller removes every ACL each filter matches. The answer waits, bounded by the request's
 * timeout, until this broker's image no longer holds them. Each ACL removed is one INFO line (the
 * audit trail). Netty thread.
 */
public final class DeleteAclsHandler extends MessageHandler<DeleteAclsRequest, DeleteAclsResponse> {
  private static final Logger log = LoggerFactory.getLogger(DeleteAclsHandler.class);
  private final BrokerContext ctx;

  public DeleteAclsHandler(BrokerContext ctx) {
    super(DeleteAclsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DeleteAclsResponse> call(DeleteAclsRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.ALTER)) {
      DeleteAclsResponse.Builder b = DeleteAclsResponse.newBuilder();
      req.getFiltersList()
          .forEach(
              f ->
                  b.addResults(
                      DeleteAclsResponse.Result.newBuilder()
                          .setErrorCode(Authz.CLUSTER)
                          .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.ALTER))));
      return CompletableFuture.completedFuture(b.build());
    }
    return call(req)
        .whenComplete(
            (resp, err) -> {
              if (resp == null) {
                return;
              }
              resp.getResultsList().stream()
                  .filter(r -> r.getErrorCode() == ErrorCode.NONE)
                  .flatMap(r -> r.getMatchesList().stream())
                  .forEach(
                      a ->
                          log.info(
                              "ACL {} ({}) deleted by {} on connection {}",
                              CreateAclsHandler.describe(a),
                              a.getId(),
                              caller.principal(),
                              caller.connection()));
            });
  }

  @Override
  public CompletableFuture<DeleteAclsResponse> call(DeleteAclsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().deleteAcls(req),
        f -> {
          DeleteAclsResponse.Builder b = DeleteAclsResponse.newBuilder();
          req.getFiltersList()
              .forEach(
                  x ->
                      b.addResults(
                          DeleteAclsResponse.Result.newBuilder()
                              .setErrorCode(f.code())
                              .setErrorMessage(f.message())));
          return b.build();
        },
        false,
        resp ->
            img ->
                resp.getResultsList().stream()
                    .filter(r -> r.getErrorCode() == ErrorCode.NONE)
                    .flatMap(r -> r.getMatchesList().stream())
                    .noneMatch(a -> img.acls().containsKey(a.getId())),
        ctx.adminTimeout(req.getTimeoutMs()));
  }
}
