package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclBinding;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.AclMessages;
import dev.spool.protocol.message.DescribeAclsRequest;
import dev.spool.protocol.message.DescribeAclsResponse;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeAcls (docs/security.md#acls): DESCRIBE on the cluster; the ACLs of this broker's image
 * that match the filter, by id. A filter naming an unknown type, operation or permission, or a
 * malformed principal, is INVALID_ACL. Netty thread; reads only the immutable image.
 */
public final class DescribeAclsHandler
    extends MessageHandler<DescribeAclsRequest, DescribeAclsResponse> {
  private final BrokerContext ctx;

  public DescribeAclsHandler(BrokerContext ctx) {
    super(DescribeAclsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DescribeAclsResponse> call(DescribeAclsRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.DESCRIBE)) {
      return CompletableFuture.completedFuture(
          DescribeAclsResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.DESCRIBE))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<DescribeAclsResponse> call(DescribeAclsRequest req) {
    AclMessages.ParsedFilter f = AclMessages.parse(req.getFilter());
    DescribeAclsResponse.Builder b = DescribeAclsResponse.newBuilder();
    if (f.problem() != null) {
      b.setErrorCode(ErrorCode.INVALID_ACL).setErrorMessage(f.problem());
    } else {
      for (Map.Entry<String, AclBinding> e : new TreeMap<>(ctx.image().acls()).entrySet()) {
        if (f.filter().matches(e.getValue())) {
          b.addAcls(AclMessages.toMessage(e.getKey(), e.getValue()));
        }
      }
    }
    return CompletableFuture.completedFuture(b.build());
  }
}
