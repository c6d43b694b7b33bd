package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.broker.security.LogSafe;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.CreateAclsRequest;
import dev.spool.protocol.message.CreateAclsResponse;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreateAcls (docs/security.md#acls): ALTER on the cluster, then forwarded to the quorum, whose
 * controller checks each ACL and stores it once. The answer waits, bounded by the request's
 * timeout, until this broker's image holds every ACL created, so a check right after here sees it.
 * Each ACL asked for is one INFO line (the audit trail): who asked, the ACL and the outcome. Netty
 * thread.
 */
public final class CreateAclsHandler extends MessageHandler<CreateAclsRequest, CreateAclsResponse> {
  private static final Logger log = LoggerFactory.getLogger(CreateAclsHandler.class);
  private final BrokerContext ctx;

  public CreateAclsHandler(BrokerContext ctx) {
    super(CreateAclsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<CreateAclsResponse> call(CreateAclsRequest req, Caller caller) {
    CompletableFuture<CreateAclsResponse> answer;
    if (!Authz.cluster(ctx, caller, AclOperation.ALTER)) {
      CreateAclsResponse.Builder b = CreateAclsResponse.newBuilder();
      req.getCreationsList()
          .forEach(
              a ->
                  b.addResults(
                      CreateAclsResponse.Result.newBuilder()
                          .setErrorCode(Authz.CLUSTER)
                          .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.ALTER))));
      answer = CompletableFuture.completedFuture(b.build());
    } else {
      answer = call(req);
    }
    return answer.whenComplete(
        (resp, err) -> {
          for (int i = 0; i < req.getCreationsCount(); i++) {
            String outcome =
                err != null
                    ? "failed: " + err
                    : resp.getResults(i).getErrorCode() == ErrorCode.NONE
                        ? "created as " + resp.getResults(i).getId()
                        : "refused " + resp.getResults(i).getErrorCode();
            log.info(
                "ACL {} asked by {} on connection {}: {}",
                describe(req.getCreations(i)),
                caller.principal(),
                caller.connection(),
                outcome);
          }
        });
  }

  /** An ACL of a request for a log line, each client-chosen part made safe. */
  static String describe(Acl a) {
    return LogSafe.quote(a.getPermission())
        + " "
        + LogSafe.quote(a.getPrincipal())
        + " from "
        + LogSafe.quote(a.getHost())
        + " "
        + LogSafe.quote(a.getOperation())
        + " on "
        + LogSafe.quote(a.getResourceType())
        + ":"
        + LogSafe.quote(a.getPatternType())
        + ":"
        + LogSafe.quote(a.getResourceName());
  }

  @Override
  public CompletableFuture<CreateAclsResponse> call(CreateAclsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().createAcls(req),
        f -> {
          CreateAclsResponse.Builder b = CreateAclsResponse.newBuilder();
          req.getCreationsList()
              .forEach(
                  a ->
                      b.addResults(
                          CreateAclsResponse.Result.newBuilder()
                              .setErrorCode(f.code())
                              .setErrorMessage(f.message())));
          return b.build();
        },
        false,
        resp ->
            img ->
                resp.getResultsList().stream()
                    .filter(r -> r.getErrorCode() == ErrorCode.NONE)
                    .allMatch(r -> img.acls().containsKey(r.getId())),
        ctx.adminTimeout(req.getTimeoutMs()));
  }
}
